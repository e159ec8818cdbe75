"""gluon.data.DataLoader: batches, last_batch modes, worker threads, batchify, errors."""
import json
import os
import threading

import numpy as np
import pytest

import symmod as mx
from symmod import gluon
from symmod.gluon.data.dataloader import default_batchify_fn

REF_PATH = os.path.join(os.path.dirname(__file__), '..', 'data', 'gluon_data_reference.json')
with open(REF_PATH) as _f:
    REF = json.load(_f)


def _pairs():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int32) * 10
    return gluon.data.ArrayDataset(mx.nd.array(x), y)


def _as_lists(loader):
    return [{'x': bx.asnumpy().tolist(), 'y': by.asnumpy().tolist(),
             'x_dtype': bx.dtype.__name__, 'y_dtype': by.dtype.__name__}
            for bx, by in loader]


@pytest.mark.parametrize('num_workers', [0, 2])
@pytest.mark.parametrize('case', REF['loader'], ids=lambda c: c['last_batch'])
def test_loader_batches_match_mxnet(case, num_workers):
    loader = gluon.data.DataLoader(_pairs(), batch_size=4, last_batch=case['last_batch'],
                                   num_workers=num_workers)
    for expected in case['epochs']:
        assert _as_lists(loader) == expected
    # recorded after the epochs: with 'rollover' the length counts the held-over samples
    assert len(loader) == case['len']


@pytest.mark.parametrize('prefetch', [None, 0, 1, 7])
def test_workers_give_same_batches_in_same_order(prefetch):
    images = np.random.RandomState(0).randint(0, 255, (37, 4, 4, 1)).astype(np.uint8)
    data = gluon.data.ArrayDataset(mx.nd.array(images, dtype='uint8'), np.arange(37))
    data = data.transform_first(lambda x: x.astype('float32') / 255)
    np.random.seed(11)
    serial = [(x.asnumpy(), y.asnumpy()) for x, y in
              gluon.data.DataLoader(data, batch_size=5, shuffle=True)]
    np.random.seed(11)
    threaded = [(x.asnumpy(), y.asnumpy()) for x, y in
                gluon.data.DataLoader(data, batch_size=5, shuffle=True, num_workers=2,
                                      prefetch=prefetch)]
    assert len(serial) == len(threaded) == 8
    for (sx, sy), (tx, ty) in zip(serial, threaded):
        np.testing.assert_array_equal(sx, tx)
        np.testing.assert_array_equal(sy, ty)
    assert sorted(np.concatenate([y for _, y in serial]).tolist()) == list(range(37))


def test_workers_are_threads_of_this_process():
    seen = set()

    def record(x):
        seen.add((os.getpid(), threading.get_ident()))
        return x
    data = gluon.data.SimpleDataset(list(range(12))).transform(record)
    batches = [b.asnumpy().tolist() for b in gluon.data.DataLoader(data, 3, num_workers=2)]
    assert batches == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    assert {pid for pid, _ in seen} == {os.getpid()}
    assert threading.get_ident() not in {tid for _, tid in seen}


def test_worker_exception_reaches_caller():
    def fail(x):
        if x == 5:
            raise KeyError('bad sample 5')
        return x
    data = gluon.data.SimpleDataset(list(range(8))).transform(fail)
    with pytest.raises(KeyError, match='bad sample 5'):
        list(gluon.data.DataLoader(data, 2, num_workers=2))


def test_batch_sampler_and_custom_batchify():
    data = gluon.data.SimpleDataset(list(range(7)))
    batch_sampler = gluon.data.BatchSampler(gluon.data.SequentialSampler(7), 3, 'discard')
    loader = gluon.data.DataLoader(data, batch_sampler=batch_sampler, batchify_fn=list)
    assert list(loader) == [[0, 1, 2], [3, 4, 5]] and len(loader) == 2
    sampler = gluon.data.IntervalSampler(7, 2)
    loader = gluon.data.DataLoader(data, 4, sampler=sampler, batchify_fn=tuple)
    assert list(loader) == [(0, 2, 4, 6), (1, 3, 5)]


def test_auto_reload_and_pin_memory():
    loader = gluon.data.DataLoader(gluon.data.SimpleDataset([1, 2, 3]), 2, auto_reload=True,
                                   pin_memory=True)
    first = [b.asnumpy().tolist() for b in loader]
    second = [b.asnumpy().tolist() for b in loader]
    assert first == second == [[1, 2], [3]]
    assert next(iter(loader)).context == mx.cpu_pinned(0)


def test_batchify_matches_mxnet():
    ref = REF['batchify']
    ints = default_batchify_fn([1, 2, 3])
    assert ints.asnumpy().tolist() == ref['ints']['value']
    assert ints.dtype.__name__ == ref['ints']['dtype']
    floats = default_batchify_fn([1.5, 2.0])
    assert floats.dtype.__name__ == ref['floats']['dtype']
    nested = default_batchify_fn([(mx.nd.array([1, 2]), (3, np.float32(0.5))),
                                  (mx.nd.array([4, 5]), (6, np.float32(1.5)))])
    assert [type(nested).__name__, type(nested[1]).__name__] == ref['nested']['types']
    assert nested[0].asnumpy().tolist() == ref['nested']['x']
    assert [a.asnumpy().tolist() for a in nested[1]] == ref['nested']['inner']
    assert [a.dtype.__name__ for a in nested[1]] == ref['nested']['inner_dtypes']
    arrays = default_batchify_fn([np.ones((2, 3), np.uint8), np.zeros((2, 3), np.uint8)])
    assert list(arrays.shape) == ref['numpy']['shape']
    assert arrays.dtype.__name__ == ref['numpy']['dtype']


@pytest.mark.parametrize('name', ['no_batch_size', 'shuffle_and_sampler',
                                  'batch_sampler_and_size'])
def test_argument_errors_match_mxnet(name):
    data = gluon.data.SimpleDataset(list(range(5)))
    calls = {
        'no_batch_size': lambda: gluon.data.DataLoader(data),
        'shuffle_and_sampler': lambda: gluon.data.DataLoader(
            data, 2, shuffle=True, sampler=gluon.data.SequentialSampler(5)),
        'batch_sampler_and_size': lambda: gluon.data.DataLoader(
            data, 2, batch_sampler=gluon.data.BatchSampler(gluon.data.SequentialSampler(5), 2)),
    }
    expected = REF['errors'][name]
    with pytest.raises(ValueError) as err:
        calls[name]()
    assert type(err.value).__name__ == expected['type']
    assert str(err.value) == expected['message']


def test_timeout_must_be_positive():
    with pytest.raises(AssertionError, match='timeout must be positive, given 0'):
        gluon.data.DataLoader([1, 2], 1, timeout=0)
