"""Shape operators: Reshape (every special value), Flatten, reshape_like, expand_dims,
squeeze, shape_array, size_array."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops.shape import infer_reshape, reshape_output_shape
from symmod.test_utils import (assert_almost_equal, check_numeric_gradient,
                               check_symbolic_backward, check_symbolic_forward)

from shape_loss_reference import case_names, check_case

TESTED_OPS = {'Reshape', 'Flatten', 'reshape_like', 'expand_dims', 'squeeze', 'shape_array',
              'size_array'}

DTYPES = [np.float32, np.float64]

# (input shape, shape, reverse) -> output, as listed in MXNet's Reshape documentation and
# as real MXNet 1.9.1 infers them (checked with the MXNet wheel)
RESHAPE_CASES = [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
    ((2, 3, 4), (0, -1), True, (3, 8)),
    ((2, 3, 4, 5), (-3, -3), True, (6, 20)),
    ((2, 3, 4), (-1, 3, 0), True, (2, 3, 4)),
    ((8, 3), (-4, -1, 2, 0), False, (4, 2, 3)),
    ((2, 12), (0, -4, 3, -1), False, (2, 3, 4)),
]


def bind(sym, grad_req='write', **arrays):
    args = {k: mx.nd.array(v, dtype=v.dtype) for k, v in arrays.items()}
    grads = {k: mx.nd.zeros(v.shape, dtype=v.dtype) for k, v in arrays.items()}
    ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=grad_req)
    ex.forward(is_train=True)
    return ex


@pytest.mark.parametrize('name', case_names('reshape_like'))
def test_matches_mxnet_reference(name):
    check_case(name)


# ---- Reshape ----------------------------------------------------------------------------
@pytest.mark.parametrize('dshape,shape,reverse,expected', RESHAPE_CASES)
def test_reshape_special_values(dshape, shape, reverse, expected):
    assert infer_reshape(dshape, shape, reverse) == expected
    x = np.random.randn(*dshape).astype(np.float32)
    sym = mx.sym.Reshape(mx.sym.Variable('data'), shape=shape, reverse=reverse)
    assert sym.infer_shape(data=dshape)[1] == [expected]
    check_symbolic_forward(sym, {'data': x}, [x.reshape(expected)])


@pytest.mark.parametrize('dtype', DTYPES)
def test_reshape_backward_and_numeric_gradient(dtype):
    x = np.random.randn(2, 3, 4)
    sym = mx.sym.reshape(mx.sym.Variable('data'), shape=(-1, 0))
    head = np.random.randn(8, 3)
    check_symbolic_backward(sym, {'data': x}, [head], {'data': head.reshape(2, 3, 4)},
                            dtype=dtype)
    check_symbolic_backward(sym, {'data': x}, [head], {'data': head.reshape(2, 3, 4)},
                            grad_req='add', dtype=dtype)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_reshape_incompatible_size_raises():
    with pytest.raises(MXNetError, match=r'Reshape: cannot reshape \(2, 3\) into \(4, -1\)'):
        reshape_output_shape((2, 3), (4, -1))
    with pytest.raises(MXNetError, match='cannot reshape'):
        mx.nd.Reshape(mx.nd.zeros((2, 3)), shape=(5,))
    with pytest.raises(MXNetError, match='cannot reshape'):
        mx.sym.Reshape(mx.sym.Variable('x'), shape=(4, -1)).infer_shape(x=(2, 3))


@pytest.mark.parametrize('shape,match', [((-1, -1), 'more than one -1'),
                                         ((0, 0, 0, 0), 'no dimension left'),
                                         ((-4, -1, -1, 0), 'both be -1'),
                                         ((-4, 3, 2, 0), 'do not multiply'),
                                         ((-5, 2), 'invalid value')])
def test_reshape_bad_special_values(shape, match):
    with pytest.raises(MXNetError, match=match):
        infer_reshape((10, 3, 4), shape)


def test_reshape_partial_inference_and_backward_inference():
    x = mx.sym.Variable('x')
    args, outs, _ = mx.sym.Reshape(x, shape=(0, -1)).infer_shape_partial(x=(2, 0, 4))
    assert outs == [(2, 0)]
    # an input with one unknown dim is filled from a known output
    y = mx.sym.Reshape(x, shape=(6, 4))
    args, outs, _ = y.infer_shape_partial(x=(0, 4))
    assert args == [(6, 4)] and outs == [(6, 4)]


def test_reshape_deprecated_target_shape():
    x = mx.sym.Variable('x')
    assert mx.sym.Reshape(x, target_shape=(0, 4)).infer_shape(x=(2, 3, 4))[1] == [(6, 4)]
    assert mx.sym.Reshape(x, target_shape=(3, 0), keep_highest=True).infer_shape(
        x=(2, 3, 4))[1] == [(2, 12)]


def test_ndarray_reshape_method_uses_special_values():
    a = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    assert a.reshape((-1, 0)).shape == (8, 3)
    assert a.reshape(-3, -2).shape == (6, 4)
    assert a.reshape(shape=(-1, 0), reverse=True).shape == (6, 4)
    assert_almost_equal(a.reshape((4, -1)).asnumpy(), np.arange(24).reshape(4, 6))
    with pytest.raises(MXNetError):
        a.reshape((5, -1))


def test_reshape_params_from_json_strings():
    sym = mx.sym.Reshape(mx.sym.Variable('x'), shape='(-1, 0)', reverse='True')
    assert sym.infer_shape(x=(10, 5, 4))[1] == [(50, 4)]


# ---- Flatten, reshape_like, expand_dims, squeeze --------------------------------------
@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', [(2, 3, 4), (5, 2), (4,)])
def test_flatten(dtype, shape):
    x = np.random.randn(*shape).astype(dtype)
    sym = mx.sym.flatten(mx.sym.Variable('data'))
    expected = x.reshape(shape[0], -1)
    check_symbolic_forward(sym, {'data': x}, [expected], dtype=dtype)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_reshape_like():
    lhs, rhs = np.random.randn(6), np.random.randn(3, 2)
    sym = mx.sym.reshape_like(mx.sym.Variable('lhs'), mx.sym.Variable('rhs'))
    check_symbolic_forward(sym, {'lhs': lhs, 'rhs': rhs}, [lhs.reshape(3, 2)], dtype=np.float64)
    head = np.random.randn(3, 2)
    check_symbolic_backward(sym, {'lhs': lhs, 'rhs': rhs}, [head],
                            {'lhs': head.reshape(6), 'rhs': np.zeros((3, 2))}, dtype=np.float64)
    ranged = mx.sym.reshape_like(mx.sym.Variable('lhs'), mx.sym.Variable('rhs'), lhs_begin=0,
                                 lhs_end=1, rhs_begin=0, rhs_end=2)
    assert ranged.infer_shape(lhs=(30, 7), rhs=(15, 2, 4))[1] == [(15, 2, 7)]
    with pytest.raises(MXNetError, match='different size'):
        sym.infer_shape(lhs=(7,), rhs=(3, 2))


@pytest.mark.parametrize('axis', [0, 1, 3, -1, -4])
def test_expand_dims(axis):
    x = np.random.randn(2, 3, 4)
    sym = mx.sym.expand_dims(mx.sym.Variable('data'), axis=axis)
    check_symbolic_forward(sym, {'data': x}, [np.expand_dims(x, axis)], dtype=np.float64)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_expand_dims_bad_axis_and_backward_inference():
    with pytest.raises(MXNetError, match=r'axis must be in the range \[-4, 3\]'):
        mx.nd.expand_dims(mx.nd.zeros((2, 3, 4)), axis=5)
    # the input shape is inferred back from a known output shape
    sym = mx.sym.expand_dims(mx.sym.Variable('x'), axis=1) + mx.sym.Variable('y')
    args, _, _ = sym.infer_shape(y=(2, 1, 3))
    assert args == [(2, 3), (2, 1, 3)]


@pytest.mark.parametrize('axis,expected', [(None, (3,)), (0, (3, 1)), (2, (1, 3)),
                                           ((0, 2), (3,)), (-1, (1, 3))])
def test_squeeze(axis, expected):
    x = np.random.randn(1, 3, 1)
    sym = mx.sym.squeeze(mx.sym.Variable('data'), axis=axis)
    check_symbolic_forward(sym, {'data': x}, [x.reshape(expected)], dtype=np.float64)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_squeeze_keeps_one_axis_and_errors():
    assert mx.nd.squeeze(mx.nd.ones((1, 1, 1))).shape == (1,)
    with pytest.raises(MXNetError, match='not equal to one'):
        mx.nd.squeeze(mx.nd.ones((1, 3)), axis=1)
    with pytest.raises(MXNetError, match='duplicate'):
        mx.nd.squeeze(mx.nd.ones((1, 3)), axis=(0, -2))
    with pytest.raises(MXNetError, match='out of bounds'):
        mx.nd.squeeze(mx.nd.ones((1, 3)), axis=2)


# ---- shape_array, size_array ------------------------------------------------------------
def test_shape_and_size_array():
    x = mx.nd.zeros((2, 3, 4))
    shape = mx.nd.shape_array(x)
    size = mx.nd.size_array(x)
    assert shape.dtype == np.int64 and size.dtype == np.int64
    assert shape.asnumpy().tolist() == [2, 3, 4]
    assert size.shape == (1,) and size.asnumpy().tolist() == [24]
    sym = mx.sym.shape_array(mx.sym.Variable('x'))
    assert sym.infer_type(x=np.float32)[1] == [np.int64]
    assert sym.infer_shape(x=(5, 6))[1] == [(2,)]


def test_shape_array_gives_zero_gradient():
    x = mx.nd.array(np.random.randn(2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.shape_array(x)
    y.backward()
    assert not x.grad.asnumpy().any()
