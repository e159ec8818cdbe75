"""DataIter protocol, ResizeIter and PrefetchingIter."""
import json
import os
import threading

import numpy as np
import pytest

import symmod as mx

REF = json.load(open(os.path.join(os.path.dirname(__file__), '..', 'data',
                                  'io_reference.json')))


def labels_of(it, epochs=1):
    out = []
    for _ in range(epochs):
        out.append([b.label[0].asnumpy().tolist() for b in it])
        it.reset()
    return out


def test_resize_iter_matches_mxnet():
    data = np.arange(10, dtype=np.float32).reshape(10, 1)
    it = mx.io.ResizeIter(mx.io.NDArrayIter(data, batch_size=4), 5)
    got = []
    for _ in range(2):
        got.append([{'data': [d.asnumpy().tolist() for d in b.data], 'label': [],
                     'pad': b.pad, 'index': b.index} for b in it])
        it.reset()
    assert got == REF['resize_iter']
    assert it.batch_size == 4 and it.provide_data[0].shape == (4, 1)


def test_resize_iter_without_internal_reset_continues():
    data = np.arange(8, dtype=np.float32)
    it = mx.io.ResizeIter(mx.io.NDArrayIter(data, data, batch_size=2), 3, reset_internal=False)
    assert labels_of(it, 2) == [[[0, 1], [2, 3], [4, 5]], [[6, 7], [0, 1], [2, 3]]]


def test_resize_iter_forwards_default_bucket_key():
    inner = mx.io.NDArrayIter(np.zeros((4, 1)), batch_size=2)
    inner.default_bucket_key = 7
    assert mx.io.ResizeIter(inner, 1).default_bucket_key == 7


class CountingIter(mx.io.DataIter):
    """A DataIter written the MXNet way: iter_next + get*."""

    def __init__(self, n, batch_size=2):
        super(CountingIter, self).__init__(batch_size)
        self.n, self.i = n, 0
        self.provide_data = [mx.io.DataDesc('data', (batch_size,))]
        self.provide_label = [mx.io.DataDesc('softmax_label', (batch_size,))]

    def reset(self):
        self.i = 0

    def iter_next(self):
        self.i += 1
        return self.i <= self.n

    def getdata(self):
        return [mx.nd.full((self.batch_size,), self.i)]

    def getlabel(self):
        return [mx.nd.full((self.batch_size,), -self.i)]

    def getpad(self):
        return 0


def test_dataiter_base_next_builds_batches():
    it = CountingIter(3)
    batches = list(it)
    assert [b.data[0].asnumpy()[0] for b in batches] == [1, 2, 3]
    assert [b.label[0].asnumpy()[0] for b in batches] == [-1, -2, -3]
    assert all(b.pad == 0 and b.index is None for b in batches)
    assert iter(it) is it
    it.reset()
    assert next(it).data[0].asnumpy()[0] == 1


def test_prefetching_iter_joins_and_renames():
    a = np.arange(12, dtype=np.float32).reshape(6, 2)
    it1 = mx.io.NDArrayIter({'data': a}, {'label': a[:, 0]}, batch_size=3)
    it2 = mx.io.NDArrayIter({'data': a + 100}, {'label': a[:, 1]}, batch_size=3)
    piter = mx.io.PrefetchingIter([it1, it2], rename_data=[{'data': 'd1'}, {'data': 'd2'}])
    assert [d.name for d in piter.provide_data] == ['d1', 'd2']
    assert [d.name for d in piter.provide_label] == ['label', 'label']
    assert piter.batch_size == 3
    for _ in range(2):
        batches = list(piter)
        assert len(batches) == 2
        for i, batch in enumerate(batches):
            np.testing.assert_array_equal(batch.data[0].asnumpy(), a[3 * i:3 * i + 3])
            np.testing.assert_array_equal(batch.data[1].asnumpy(), a[3 * i:3 * i + 3] + 100)
            assert [d.name for d in batch.provide_data] == ['d1', 'd2']
        piter.reset()


def test_prefetching_iter_reads_on_another_thread():
    seen = []

    class Recording(CountingIter):
        def iter_next(self):
            seen.append(threading.current_thread().name)
            return super(Recording, self).iter_next()

    piter = mx.io.PrefetchingIter(Recording(2))
    assert labels_of(piter) == [[[-1, -1], [-2, -2]]]
    assert seen and all(name == 'symmod-prefetch' for name in seen)


def test_prefetching_iter_threads_stop_when_it_is_collected():
    import gc
    piter = mx.io.PrefetchingIter([CountingIter(2), CountingIter(2)])
    threads = [worker.thread for worker in piter._workers]
    assert all(t.is_alive() for t in threads)
    del piter
    gc.collect()
    for t in threads:
        t.join(timeout=5)
    assert not any(t.is_alive() for t in threads)


def test_prefetching_iter_hands_errors_to_the_caller():
    class Broken(CountingIter):
        def getdata(self):
            raise RuntimeError('disk on fire')

    piter = mx.io.PrefetchingIter(Broken(2))
    with pytest.raises(RuntimeError, match='disk on fire'):
        next(piter)


def test_prefetching_iter_checks_iterators_agree():
    piter = mx.io.PrefetchingIter([CountingIter(2), CountingIter(3)])
    next(piter), next(piter)
    with pytest.raises(AssertionError, match='Number of entry mismatches'):
        next(piter)
