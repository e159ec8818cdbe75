"""NDArrayIter against batches recorded from MXNet 1.9.1 (tests/data/io_reference.json)."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

REF = json.load(open(os.path.join(os.path.dirname(__file__), '..', 'data',
                                  'io_reference.json')))
DATA = np.arange(20, dtype=np.float32).reshape(10, 2)
LABEL = np.arange(10, dtype=np.float32)


def collect(it, epochs):
    out = []
    for _ in range(epochs):
        out.append([{'data': [d.asnumpy().tolist() for d in b.data],
                     'label': [l.asnumpy().tolist() for l in b.label],
                     'pad': b.pad, 'index': b.index} for b in it])
        it.reset()
    return out


def descs(items):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in items]


@pytest.mark.parametrize('case', sorted(REF['ndarray_iter']))
def test_batches_match_mxnet(case):
    ref = REF['ndarray_iter'][case]
    if ref['shuffle']:
        np.random.seed(ref['seed'])
    it = mx.io.NDArrayIter(DATA, LABEL, batch_size=ref['batch_size'], shuffle=ref['shuffle'],
                           last_batch_handle=ref['handle'])
    assert descs(it.provide_data) == ref['provide_data']
    assert descs(it.provide_label) == ref['provide_label']
    assert collect(it, len(ref['epochs'])) == ref['epochs']


def test_names_and_order_match_mxnet():
    ref = REF['ndarray_iter_names']
    a = np.zeros((6, 2), dtype=np.float32)
    it = mx.io.NDArrayIter({'zeta': a, 'alpha': a + 1, 'mid': a + 2},
                           {'l2': a[:, 0], 'l1': a[:, 0] + 1}, batch_size=3)
    assert descs(it.provide_data) == ref['dict']['provide_data']
    assert descs(it.provide_label) == ref['dict']['provide_label']
    assert collect(it, 1)[0][0] == ref['dict']['first']
    it = mx.io.NDArrayIter([a, a + 1], [a[:, 0]], batch_size=3, data_name='x', label_name='y')
    assert descs(it.provide_data) == ref['list']['provide_data']
    assert descs(it.provide_label) == ref['list']['provide_label']


def test_numpy_input_becomes_float32_and_ndarray_keeps_its_type():
    ref = REF['ndarray_iter_names']
    it = mx.io.NDArrayIter(np.arange(6, dtype=np.int64).reshape(6, 1), batch_size=3)
    assert descs(it.provide_data) == ref['int64_numpy']['provide_data']
    assert it.provide_label == []
    it = mx.io.NDArrayIter(mx.nd.array(np.arange(6).reshape(6, 1), dtype='int32'), batch_size=3)
    assert descs(it.provide_data) == ref['int32_ndarray']['provide_data']
    assert next(it).data[0].dtype == np.int32


def test_more_than_ten_list_inputs_sort_by_name_like_mxnet():
    arrays = [np.full((4, 1), i, dtype=np.float32) for i in range(11)]
    it = mx.io.NDArrayIter(arrays, batch_size=2)
    names = [d.name for d in it.provide_data]
    assert names == sorted('_%d_data' % i for i in range(11))
    assert names[:3] == ['_0_data', '_10_data', '_1_data']
    batch = next(it)
    assert [int(d.asnumpy()[0, 0]) for d in batch.data] == [int(n.split('_')[1]) for n in names]


def test_batch_axis_from_layout():
    data = np.arange(3 * 10 * 2, dtype=np.float32).reshape(3, 10, 2)   # T, N, C
    label = np.arange(10).reshape(1, 10)      # labels follow the layout too
    it = mx.io.NDArrayIter(data, label, batch_size=4, layout='TNC', last_batch_handle='pad')
    assert [d.shape for d in it.provide_data] == [(3, 4, 2)]
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    np.testing.assert_array_equal(batches[1].data[0].asnumpy(), data[:, 4:8])
    np.testing.assert_array_equal(batches[2].data[0].asnumpy(),
                                  np.concatenate([data[:, 8:], data[:, :2]], axis=1))
    np.testing.assert_array_equal(batches[2].label[0].asnumpy(), [[8, 9, 0, 1]])


def test_shuffle_layout_permutes_batch_axis_consistently():
    data = np.arange(2 * 6, dtype=np.float32).reshape(2, 6)
    it = mx.io.NDArrayIter(data, data[:1].copy(), batch_size=6, shuffle=True, layout='TN')
    batch = next(it)
    seen = batch.data[0].asnumpy()
    assert sorted(seen[0]) == list(range(6))
    np.testing.assert_array_equal(seen[1], seen[0] + 6)
    np.testing.assert_array_equal(batch.label[0].asnumpy(), seen[:1])


def test_shuffle_is_repeatable_with_numpy_seed_and_keeps_pairs():
    def orders(seed):
        np.random.seed(seed)
        it = mx.io.NDArrayIter(DATA, LABEL, batch_size=5, shuffle=True)
        out = []
        for _ in range(3):
            for b in it:
                d, l = b.data[0].asnumpy(), b.label[0].asnumpy()
                np.testing.assert_array_equal(d[:, 0], 2 * l)     # pairs stay together
                out.extend(l.tolist())
            it.reset()
        return out
    first = orders(3)
    assert first == orders(3)
    assert first != orders(4)
    assert sorted(first[:10]) == list(range(10))
    assert first[:10] != first[10:20]                          # reshuffled on reset


def test_hard_reset_drops_rolled_over_examples():
    it = mx.io.NDArrayIter(DATA, LABEL, batch_size=4, last_batch_handle='roll_over')
    list(it)
    it.hard_reset()
    batch = next(it)
    assert batch.pad == 0
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [0, 1, 2, 3])


def test_iter_next_getdata_protocol_and_pad():
    it = mx.io.NDArrayIter(DATA, LABEL, batch_size=4)
    seen = []
    while it.iter_next():
        seen.append((it.getlabel()[0].asnumpy().tolist(), it.getpad(), it.getindex()))
    assert seen == [([0, 1, 2, 3], 0, None), ([4, 5, 6, 7], 0, None),
                    ([8, 9, 0, 1], 2, None)]
    with pytest.raises(AssertionError, match='DataIter needs reset'):
        it.getdata()


def test_inner_batches_are_views_not_copies():
    source = mx.nd.array(DATA)
    it = mx.io.NDArrayIter(source, batch_size=4, last_batch_handle='discard')
    batch = next(it)
    assert np.shares_memory(np.asarray(batch.data[0]), np.asarray(it.data[0][1]))


def test_array_without_the_batch_axis_is_rejected():
    with pytest.raises(MXNetError, match="'softmax_label' has shape \\(10,\\), which has no "
                                         "batch axis 1"):
        mx.io.NDArrayIter(np.zeros((3, 10)), np.zeros(10), batch_size=2, layout='TN')


def test_shorter_arrays_raise_clear_error():
    with pytest.raises(MXNetError, match=r"as 'data', which has 10 .* 'softmax_label' has 9"):
        mx.io.NDArrayIter(DATA, np.arange(9), batch_size=3)
    with pytest.raises(MXNetError, match=r"as 'a', which has 10 .* 'b' has 8"):
        mx.io.NDArrayIter({'a': DATA, 'b': np.zeros((8, 2))}, batch_size=3)


@pytest.mark.parametrize('shuffle', [False, True])
def test_longer_arrays_contribute_their_first_examples_like_mxnet(shuffle):
    # MXNet 1.9.1 counts examples in the first data array; a longer label (one weight
    # vector reused for two data halves in its test_loss) is read from its start
    data = np.arange(8, dtype=np.float32).reshape(4, 2)
    labels = {'label': np.arange(10, 16), 'w': np.arange(4)}
    np.random.seed(3)
    with pytest.warns(UserWarning, match="'label' has 6 examples .* only the first 4"):
        it = mx.io.NDArrayIter(data, labels, batch_size=2, shuffle=shuffle)
    assert [d.shape for d in it.provide_label] == [(2,), (2,)]
    seen = []
    for batch in it:
        rows = batch.data[0].asnumpy()[:, 0] / 2
        label, w = (x.asnumpy() for x in batch.label)
        np.testing.assert_array_equal(label, rows + 10)
        np.testing.assert_array_equal(w, rows)
        seen.extend(rows)
    assert sorted(seen) == [0, 1, 2, 3]


def test_bad_arguments():
    with pytest.raises(ValueError, match="last_batch_handle must be one of 'pad', 'discard', "
                                         "'roll_over', found 'rollover'"):
        mx.io.NDArrayIter(DATA, batch_size=3, last_batch_handle='rollover')
    with pytest.raises(TypeError, match='Input must be NDArray'):
        mx.io.NDArrayIter('not an array', batch_size=3)
    with pytest.raises(TypeError, match="Invalid type .* for x"):
        mx.io.NDArrayIter({'x': object()}, batch_size=3)
    with pytest.raises(AssertionError):
        mx.io.NDArrayIter(None, batch_size=3)
    with pytest.raises(AssertionError, match='data must not be empty'):
        mx.io.NDArrayIter({}, batch_size=3)
    with pytest.raises(ValueError, match='batch_size must be a positive integer'):
        mx.io.NDArrayIter(DATA, batch_size=0)


def test_gpu_context_arrays_stay_on_their_device():
    # runs on numba's CUDA simulator when there is no GPU (tests/conftest.py)
    data = mx.nd.array(DATA, ctx=mx.gpu(0))
    it = mx.io.NDArrayIter(data, mx.nd.array(LABEL, ctx=mx.gpu(0)), batch_size=4, shuffle=True)
    batches = list(it)
    assert all(b.data[0].context == mx.gpu(0) for b in batches)
    last = batches[-1]
    assert last.pad == 2
    np.testing.assert_array_equal(last.data[0].asnumpy()[:, 0], 2 * last.label[0].asnumpy())
    seen = np.concatenate([b.label[0].asnumpy()[:4 - b.pad] for b in batches])
    assert sorted(seen.tolist()) == list(range(10))
