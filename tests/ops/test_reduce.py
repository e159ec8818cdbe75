"""Reductions (sum, mean, prod, nansum, nanprod, max, min, norm) and index searches
(argmax, argmin, argmax_channel)."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import check_numeric_gradient, check_symbolic_backward

from math_reference import cases, check_case

NUMPY = {'sum': np.sum, 'mean': np.mean, 'prod': np.prod, 'nansum': np.nansum,
         'nanprod': np.nanprod, 'max': np.max, 'min': np.min}
TESTED_OPS = set(NUMPY) | {'norm', 'argmax', 'argmin', 'argmax_channel'}
# (axis, keepdims, exclude) -> numpy axis for a 3-d input, and the expected shape
AXES = [
    (None, False, False, None, (1,)),
    ((), True, False, None, (1, 1, 1)),
    (1, False, False, 1, (2, 4)),
    (-1, True, False, 2, (2, 3, 1)),
    ((0, 2), False, False, (0, 2), (3,)),
    (1, False, True, (0, 2), (3,)),
    ((0, 1), True, True, 2, (2, 3, 1)),
    ((0, 1, 2), False, False, None, (1,)),
]
RTOL = {np.float16: 1e-2, np.float32: 1e-5, np.float64: 1e-12}


@pytest.mark.parametrize('k,op,params', cases(TESTED_OPS))
def test_matches_mxnet_reference(k, op, params):
    check_case(k)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('axis,keepdims,exclude,np_axis,shape', AXES)
@pytest.mark.parametrize('op', sorted(NUMPY))
def test_forward_matches_numpy(op, axis, keepdims, exclude, np_axis, shape, dtype):
    x = np.random.RandomState(10).uniform(0.5, 1.5, (2, 3, 4)).astype(dtype)
    if op.startswith('nan'):
        x[0, 1, 2] = np.nan
    out = getattr(mx.nd, op)(mx.nd.array(x, dtype=dtype), axis=axis, keepdims=keepdims,
                             exclude=exclude)
    assert out.shape == shape and out.dtype == dtype
    expected = NUMPY[op](x.astype(np.float64), axis=np_axis).reshape(shape)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=RTOL[dtype])


def test_integer_reductions_keep_the_dtype_and_truncate_the_mean():
    x = mx.nd.array([[-1, -2, 2], [3, 4, 4]], dtype='int32')
    assert mx.nd.sum(x, axis=1).asnumpy().tolist() == [-1, 11]
    mean = mx.nd.mean(x, axis=1)
    assert mean.dtype == np.int32 and mean.asnumpy().tolist() == [0, 3]
    assert mx.nd.max(x).asnumpy().tolist() == [4]


def test_max_min_propagate_nan():
    x = mx.nd.array([1.0, np.nan, 3.0])
    assert np.isnan(mx.nd.max(x).asnumpy()[0]) and np.isnan(mx.nd.min(x).asnumpy()[0])


def test_shape_errors():
    x = mx.nd.ones((2, 3))
    with pytest.raises(MXNetError, match='duplicates'):
        mx.nd.sum(x, axis=(1, -1))
    with pytest.raises(MXNetError, match='exceeds'):
        mx.nd.sum(x, axis=2)
    with pytest.raises(MXNetError, match='size should be > 0'):
        mx.nd.max(mx.nd.empty((2, 0)))     # (nd.ones refuses a 0 dim)
    with pytest.raises(MXNetError, match='ord'):
        mx.nd.norm(x, ord=3)


def test_symbol_shape_inference():
    sym = mx.sym.sum(mx.sym.Variable('x'), axis=(0, 2), keepdims=True)
    _, out_shapes, _ = sym.infer_shape(x=(2, 3, 4))
    assert out_shapes == [(1, 3, 1)]
    sym = mx.sym.mean(mx.sym.Variable('x'), axis=1, exclude=True)
    assert sym.infer_shape(x=(2, 3, 4))[1] == [(3,)]


# ---- gradients ------------------------------------------------------------------------
@pytest.mark.parametrize('params', [{}, {'axis': 1}, {'axis': (0, 2), 'keepdims': True},
                                    {'axis': 1, 'exclude': True}])
@pytest.mark.parametrize('op', ['sum', 'mean', 'prod', 'nansum', 'nanprod', 'max', 'min'])
def test_numeric_gradient_float64(op, params):
    x = np.random.RandomState(11).permutation(24).reshape(2, 3, 4) / 24.0 + 0.5  # no ties
    sym = getattr(mx.sym, op)(mx.sym.Variable('x'), **params)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('params', [{}, {'ord': 1}, {'axis': 1}, {'ord': 1, 'axis': (0, 2)},
                                    {'axis': (1, 2), 'keepdims': True}])
def test_norm_numeric_gradient_float64(params):
    x = np.random.RandomState(12).uniform(0.2, 1.0, (2, 3, 4)) * np.where(
        np.arange(24).reshape(2, 3, 4) % 3, 1, -1)
    sym = mx.sym.norm(mx.sym.Variable('x'), **params)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_norm_forward():
    x = np.random.RandomState(13).normal(size=(2, 3, 4))
    out = mx.nd.norm(mx.nd.array(x, dtype='float64'), axis=(1, 2))
    np.testing.assert_allclose(out.asnumpy(), np.sqrt((x ** 2).sum(axis=(1, 2))), rtol=1e-12)
    out = mx.nd.norm(mx.nd.array(x), ord=1, axis=0, keepdims=True)
    np.testing.assert_allclose(out.asnumpy(), np.abs(x).sum(axis=0, keepdims=True), rtol=1e-6)
    out = mx.nd.norm(mx.nd.array(x), out_dtype='float64')
    assert out.dtype == np.float64 and out.shape == (1,)
    np.testing.assert_allclose(out.asnumpy(), [np.linalg.norm(x)], rtol=1e-6)


@pytest.mark.parametrize('op', ['max', 'min'])
def test_max_min_gradient_goes_to_every_tied_element(op):
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    pick = x == (x.max(axis=1, keepdims=True) if op == 'max' else x.min(axis=1, keepdims=True))
    dy = np.array([2.0, 5.0])
    check_symbolic_backward(getattr(mx.sym, op)(mx.sym.Variable('x'), axis=1), [x], [dy],
                            [pick * dy[:, None]], dtype=np.float64)


def test_nan_reductions_give_nan_elements_zero_gradient():
    x = np.array([[1.0, np.nan, 2.0]])
    dy = np.array([3.0])
    check_symbolic_backward(mx.sym.nansum(mx.sym.Variable('x'), axis=1), [x], [dy],
                            [[[3.0, 0.0, 3.0]]], dtype=np.float64)
    check_symbolic_backward(mx.sym.nanprod(mx.sym.Variable('x'), axis=1), [x], [dy],
                            [[[6.0, 0.0, 3.0]]], dtype=np.float64)


def test_mean_and_sum_gradients_broadcast_back():
    x = np.ones((2, 3))
    dy = np.array([1.0, 2.0])
    check_symbolic_backward(mx.sym.mean(mx.sym.Variable('x'), axis=1), [x], [dy],
                            [np.repeat(dy[:, None] / 3, 3, axis=1)], dtype=np.float64)
    check_symbolic_backward(mx.sym.sum(mx.sym.Variable('x'), axis=0, exclude=True), [x], [dy],
                            [np.repeat(dy[:, None], 3, axis=1)], grad_req='add',
                            dtype=np.float64)


# ---- argmax / argmin / argmax_channel -------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, np.int32])
def test_argmax_argmin_return_first_index_in_input_dtype(dtype):
    x = np.array([[1, 5, 5], [7, 0, 7]], dtype=dtype)
    nd = mx.nd.array(x, dtype=dtype)
    out = mx.nd.argmax(nd, axis=1)
    assert out.dtype == dtype and out.asnumpy().tolist() == [1, 0]
    assert mx.nd.argmin(nd, axis=0).asnumpy().tolist() == [0, 1, 0]
    assert mx.nd.argmax(nd).asnumpy().tolist() == [3]
    assert mx.nd.argmax(nd, keepdims=True).shape == (1, 1)
    assert mx.nd.argmax(nd, axis=-1, keepdims=True).shape == (2, 1)
    assert mx.nd.argmax_channel(nd).asnumpy().tolist() == [1, 0]


def test_argmax_treats_nan_as_the_extreme():
    x = mx.nd.array([1.0, np.nan, 3.0])
    assert mx.nd.argmax(x, axis=0).asnumpy().tolist() == [1]
    assert mx.nd.argmin(x, axis=0).asnumpy().tolist() == [1]


def test_argmax_gradient_is_zero_and_axis_is_checked():
    check_symbolic_backward(mx.sym.argmax(mx.sym.Variable('x'), axis=1),
                            [np.array([[1.0, 2.0]])], [np.ones(1)], [np.zeros((1, 2))])
    with pytest.raises(MXNetError, match='axis'):
        mx.nd.argmax(mx.nd.ones((2, 3)), axis=2)
    assert mx.sym.argmax_channel(mx.sym.Variable('x')).infer_shape(x=(4, 5, 6))[1] == [(4, 6)]


def test_aliases_and_ndarray_methods():
    assert registry.get('sum_axis').name == 'sum'
    assert registry.get('max_axis').name == 'max'
    assert registry.get('min_axis').name == 'min'
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    assert x.sum(axis=1).asnumpy().tolist() == [3.0, 7.0]
    assert x.mean().asnumpy().tolist() == [2.5]
    assert x.max(axis=0).asnumpy().tolist() == [3.0, 4.0]
    assert x.argmax(axis=1).asnumpy().tolist() == [1.0, 1.0]
    assert mx.nd.sum_axis(x, axis=0).asnumpy().tolist() == [4.0, 6.0]


def test_forward_req_add_accumulates():
    op = registry.get('sum')({'axis': '1'})
    out = np.array([10.0, 20.0])
    op.forward(True, ['add'], [np.array([[1.0, 2.0], [3.0, 4.0]])], [out], [])
    np.testing.assert_allclose(out, [13.0, 27.0])
