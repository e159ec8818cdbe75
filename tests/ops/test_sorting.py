"""topk, sort and argsort against numpy, finite differences and MXNet 1.9.1's recorded
results (including the order MXNet gives equal values)."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.ops.sorting import sort_indices
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay_with_shapes

TESTED_OPS = {'topk', 'sort', 'argsort'}

DTYPES = [np.float32, np.float64]
REFERENCE = 'ops_deconv_sort_reference.npz'


# ---- MXNet's recorded results (inputs with many ties) ---------------------------------------
@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    # exact: equal values must come out in MXNet's order
    replay_with_shapes(REFERENCE, name, tol=1e-6, exact=True)


# ---- numpy references on distinct values ------------------------------------------------------
def distinct(shape, dtype=np.float64):
    """Values without ties (so any correct sort gives the same answer), in random order."""
    return (np.random.permutation(int(np.prod(shape))).reshape(shape) / 4.0 - 3).astype(dtype)


def np_order(x, axis, is_ascend):
    if axis is None:
        x, axis = x.reshape(-1), 0
    return np.argsort(x if is_ascend else -x, axis=axis, kind='stable')


def np_topk_indices(x, axis, k, is_ascend):
    order = np_order(x, axis, is_ascend)
    length = order.shape[0 if axis is None else axis]
    k = length if k < 1 else k
    return np.take(order, np.arange(k), axis=0 if axis is None else axis)


TOPK_CASES = [
    # shape, axis, k, is_ascend
    ((3, 7), -1, 2, False),
    ((3, 7), 1, 7, True),
    ((4, 5, 6), 1, 3, False),
    ((4, 5, 6), 0, 0, True),
    ((2, 40), -1, 3, False),            # partial (heap) selection: 8 * k <= length
    ((2, 3, 4), None, 5, False),
    ((6,), 0, 1, True),
]


@pytest.mark.parametrize('dtype', DTYPES + [np.float16, np.int32])
@pytest.mark.parametrize('case', TOPK_CASES)
def test_topk_forward(case, dtype):
    shape, axis, k, is_ascend = case
    x = distinct(shape)
    if dtype == np.int32:
        x = (x * 4).astype(np.int32)
    xd = mx.nd.array(x, dtype=dtype)
    idx = np_topk_indices(x, axis, k, is_ascend)
    flat = x.reshape(-1) if axis is None else x
    values = np.take(flat, idx) if axis is None else np.take_along_axis(x, idx, axis=axis)
    common = dict(axis=axis, k=k, is_ascend=is_ascend)
    got = mx.nd.topk(xd, **common)
    assert got.dtype == np.float32 and np.array_equal(got.asnumpy(), idx)
    got = mx.nd.topk(xd, ret_typ='value', **common)
    assert got.dtype == dtype and np.array_equal(got.asnumpy(), values.astype(dtype))
    val, ind = mx.nd.topk(xd, ret_typ='both', dtype='int64', **common)
    assert ind.dtype == np.int64 and np.array_equal(ind.asnumpy(), idx)
    assert np.array_equal(val.asnumpy(), values.astype(dtype))
    mask = mx.nd.topk(xd, ret_typ='mask', **common).asnumpy()
    expected = np.zeros(flat.shape)
    if axis is None:
        expected[idx] = 1
    else:
        np.put_along_axis(expected, idx, 1, axis=axis)
    assert mask.dtype == dtype and np.array_equal(mask, expected.reshape(x.shape))


@pytest.mark.parametrize('dtype', DTYPES + [np.int64])
@pytest.mark.parametrize('shape,axis', [((3, 7), -1), ((4, 5, 6), 1), ((5, 2), 0),
                                        ((2, 3, 4), None), ((30,), 0)])
@pytest.mark.parametrize('is_ascend', [True, False])
def test_sort_and_argsort_forward(shape, axis, is_ascend, dtype):
    x = (distinct(shape) * 4).astype(dtype)
    order = np_order(x, axis, is_ascend)
    flat = x.reshape(-1) if axis is None else x
    values = np.take(flat, order) if axis is None else np.take_along_axis(x, order, axis=axis)
    xd = mx.nd.array(x, dtype=dtype)
    got = mx.nd.sort(xd, axis=axis, is_ascend=is_ascend)
    assert got.dtype == dtype and np.array_equal(got.asnumpy(), values)
    got = mx.nd.argsort(xd, axis=axis, is_ascend=is_ascend)
    assert got.dtype == np.float32 and np.array_equal(got.asnumpy(), order)
    got = mx.nd.argsort(xd, axis=axis, is_ascend=is_ascend, dtype='int32')
    assert got.dtype == np.int32 and np.array_equal(got.asnumpy(), order)


# ---- ties ----------------------------------------------------------------------------------
@pytest.mark.parametrize('length', [2, 5, 16])
@pytest.mark.parametrize('is_ascend', [True, False])
def test_short_rows_keep_equal_values_in_index_order(length, is_ascend):
    # MXNet's full sort of a row of at most 16 is an insertion sort, hence stable
    x = np.random.randint(0, 3, size=(50, length)).astype(np.float64)
    got = mx.nd.argsort(mx.nd.array(x), is_ascend=is_ascend, dtype='int64').asnumpy()
    assert np.array_equal(got, np.argsort(x if is_ascend else -x, axis=1, kind='stable'))


@pytest.mark.parametrize('length,k', [(17, 3), (100, 100), (100, 5), (1000, 1000), (1000, 7)])
@pytest.mark.parametrize('is_ascend', [True, False])
def test_long_rows_with_ties_are_sorted(length, k, is_ascend):
    # longer rows use introsort or heap selection: ties in some order, values in order
    x = np.random.randint(0, 5, size=(20, length)).astype(np.float64)
    idx = sort_indices(x, k, is_ascend)
    assert all(sorted(row) == sorted(set(row)) for row in idx.tolist())   # no repeats
    values = np.take_along_axis(x, idx, axis=1)
    best = np.sort(x, axis=1)[:, :k] if is_ascend else -np.sort(-x, axis=1)[:, :k]
    assert np.array_equal(values, best)


def test_large_int64_values_keep_their_order():
    # beyond 2**53 float64 keys would merge neighbours; ranks keep them apart
    base = 2 ** 62
    x = np.array([[base + 3, base + 1, base + 2, -base, base + 1]], np.int64)
    got = mx.nd.argsort(mx.nd.array(x, dtype=np.int64), dtype='int64').asnumpy()
    assert np.array_equal(got, [[3, 1, 4, 2, 0]])
    got = mx.nd.sort(mx.nd.array(x, dtype=np.int64), is_ascend=False).asnumpy()
    assert np.array_equal(got, np.sort(x)[:, ::-1])


def test_topk_partial_selection_tie_order_matches_mxnet():
    # hand-checked against MXNet 1.9.1 (std::partial_sort picks ties out of index order)
    rng = np.random.RandomState(0)
    x = rng.randint(0, 4, size=(3, 40)).astype(np.float32)
    got = mx.nd.topk(mx.nd.array(x), k=3).asnumpy()
    assert np.array_equal(got, [[5, 1, 4], [6, 1, 4], [8, 1, 5]])
    got = mx.nd.argsort(mx.nd.array([[1, 3, 3, 2, 3, 1]]), is_ascend=False).asnumpy()
    assert np.array_equal(got, [[1, 2, 4, 3, 0, 5]])


# ---- gradients ------------------------------------------------------------------------------
@pytest.mark.parametrize('params', [dict(k=2, ret_typ='value'), dict(k=3, ret_typ='both'),
                                    dict(axis=0, k=2, ret_typ='value', is_ascend=True),
                                    dict(axis=None, k=4, ret_typ='value'),
                                    dict(axis=1, k=0, ret_typ='value')])
def test_topk_numeric_gradient(params):
    sym = mx.sym.topk(mx.sym.Variable('data'), **params)
    if params['ret_typ'] == 'both':
        sym = sym[0]        # the values; the indices are piecewise constant
    check_numeric_gradient(sym, [distinct((3, 4, 5))], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('axis', [-1, 0, 1, None])
@pytest.mark.parametrize('is_ascend', [True, False])
def test_sort_numeric_gradient(axis, is_ascend):
    sym = mx.sym.sort(mx.sym.Variable('data'), axis=axis, is_ascend=is_ascend)
    check_numeric_gradient(sym, [distinct((3, 4, 5))], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('axis', [-1, 0])
def test_value_gradient_scatters_and_accumulates(axis):
    x = distinct((4, 6))
    dy = np.random.randn(*((4, 2) if axis == -1 else (2, 6)))
    sym = mx.sym.topk(mx.sym.Variable('data'), axis=axis, k=2, ret_typ='value')
    idx = np_topk_indices(x, axis, 2, False)
    expected = np.zeros_like(x)
    np.put_along_axis(expected, idx, dy, axis=axis)
    for req, start in (('write', 0.0), ('add', 1.0)):
        ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x, dtype=np.float64)},
                      args_grad={'data': mx.nd.full(x.shape, start, dtype=np.float64)},
                      grad_req=req)
        ex.forward(is_train=True)
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        assert_almost_equal(ex.grad_dict['data'].asnumpy(), expected + start, rtol=1e-12)


@pytest.mark.parametrize('sym_fn', [lambda d: mx.sym.topk(d, k=2),
                                    lambda d: mx.sym.topk(d, k=2, ret_typ='mask'),
                                    lambda d: mx.sym.argsort(d)])
def test_index_outputs_give_zero_gradient(sym_fn):
    x = distinct((3, 5))
    sym = sym_fn(mx.sym.Variable('data'))
    ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x)},
                  args_grad={'data': mx.nd.ones(x.shape)})
    out = ex.forward(is_train=True)[0]
    ex.backward(mx.nd.ones(out.shape))
    assert np.array_equal(ex.grad_dict['data'].asnumpy(), np.zeros(x.shape))


# ---- outputs, types, params and errors --------------------------------------------------------
def test_outputs_and_types():
    data = mx.sym.Variable('data')
    expect = [(dict(ret_typ='both'), ['t_output0', 't_output1'], [np.float64, np.float32]),
              (dict(ret_typ='both', dtype='int32'), ['t_output0', 't_output1'],
               [np.float64, np.int32]),
              (dict(ret_typ='value'), ['t_output0'], [np.float64]),
              (dict(), ['t_output'], [np.float32]),
              (dict(ret_typ='mask'), ['t_output'], [np.float64])]
    for params, names, types in expect:
        sym = mx.sym.topk(data, name='t', **params)
        assert sym.list_outputs() == names
        assert sym.infer_type(data=np.float64)[1] == types
    assert mx.sym.sort(data, name='s').list_outputs() == ['s_output0']
    assert mx.sym.sort(data).infer_type(data=np.float64)[1] == [np.float64]
    assert mx.sym.argsort(data, name='a').list_outputs() == ['a_output']
    assert mx.sym.argsort(data, dtype='int64').infer_type(data=np.float64)[1] == [np.int64]
    # hidden index outputs are int32, as in MXNet's CPU build
    op = registry.get('topk')({'ret_typ': 'value'})
    assert op.infer_type([np.dtype(np.float64)], [None, None], [])[1] == [np.float64, np.int32]
    assert registry.get('sort')({}).infer_type([np.dtype(np.float16)], [None, None], [])[1] == \
        [np.float16, np.int32]
    for alias, name in (('_npx_topk', 'topk'), ('_npi_sort', 'sort'),
                        ('_npi_argsort', 'argsort')):
        assert registry.get(alias) is registry.get(name)


def test_shapes():
    data = mx.sym.Variable('data')
    cases = [(mx.sym.topk(data, k=3), (4, 5), [(4, 3)]),
             (mx.sym.topk(data, k=2, axis=0, ret_typ='both'), (4, 5), [(2, 5), (2, 5)]),
             (mx.sym.topk(data, k=3, axis=None), (4, 5), [(3,)]),
             (mx.sym.topk(data, k=3, axis=None, ret_typ='mask'), (4, 5), [(4, 5)]),
             (mx.sym.topk(data, k=0), (4, 5), [(4, 5)]),
             (mx.sym.sort(data, axis=None), (4, 5), [(20,)]),
             (mx.sym.argsort(data, axis=0), (4, 5), [(4, 5)])]
    for sym, shape, outs in cases:
        assert sym.infer_shape(data=shape)[1] == outs


def test_errors():
    data = mx.sym.Variable('data')
    with pytest.raises(MXNetError, match='k must be smaller than 5, get k = 6'):
        mx.sym.topk(data, k=6).infer_shape(data=(3, 5))
    with pytest.raises(MXNetError, match='out of bounds'):
        mx.sym.sort(data, axis=2).infer_shape(data=(3, 5))
    with pytest.raises(MXNetError, match='ret_typ'):
        mx.sym.topk(data, ret_typ='values')
    with pytest.raises(MXNetError, match='dtype'):
        mx.sym.argsort(data, dtype='int8')
    x16 = mx.nd.array(np.ones((2, 3)), dtype=np.float16)
    for fn in (mx.nd.sort, mx.nd.argsort):
        with pytest.raises(MXNetError, match='float16'):
            fn(x16).asnumpy()
    assert mx.nd.topk(x16, k=2, ret_typ='value').dtype == np.float16
