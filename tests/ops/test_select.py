"""where, Cast, zeros_like and ones_like."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import check_numeric_gradient, check_symbolic_backward

from math_reference import cases, check_case

TESTED_OPS = {'where', 'Cast', 'zeros_like', 'ones_like'}


@pytest.mark.parametrize('k,op,params', cases(TESTED_OPS))
def test_matches_mxnet_reference(k, op, params):
    check_case(k)


@pytest.mark.parametrize('src,dst', [(np.float32, 'int32'), (np.float32, 'float16'),
                                     (np.int32, 'float64'), (np.float64, 'uint8'),
                                     (np.float32, 'bool')])
def test_cast(src, dst):
    x = np.array([-1.7, 0.0, 1.7, 3.2]).astype(src)
    out = mx.nd.Cast(mx.nd.array(x, dtype=src), dtype=dst)
    assert out.dtype == np.dtype(dst)
    if dst != 'uint8':
        np.testing.assert_array_equal(out.asnumpy(), x.astype(dst))
    assert mx.nd.cast(mx.nd.array(x, dtype=src), dtype=dst).dtype == np.dtype(dst)


def test_cast_gradient_is_cast_back_and_type_inference():
    sym = mx.sym.Cast(mx.sym.Variable('x'), dtype='float16')
    arg_types, out_types, _ = sym.infer_type(x=np.float32)
    assert arg_types == [np.float32] and out_types == [np.float16]
    x = mx.nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Cast(x, dtype='float64')
    y.backward(mx.nd.array([0.5, 2.0], dtype='float64'))
    assert x.grad.dtype == np.float32 and x.grad.asnumpy().tolist() == [0.5, 2.0]
    with pytest.raises(MXNetError, match='dtype'):
        mx.nd.Cast(x, dtype='complex64')
    with pytest.raises(MXNetError, match='bfloat16'):
        mx.nd.Cast(x, dtype='bfloat16')


# ---- zeros_like / ones_like / where --------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float16, np.float64, np.int32])
def test_zeros_ones_like(dtype):
    x = mx.nd.array([[1, 2, 3]], dtype=dtype)
    for op, value in (('zeros_like', 0), ('ones_like', 1)):
        out = getattr(mx.nd, op)(x)
        assert out.dtype == dtype and out.shape == (1, 3)
        assert (out.asnumpy() == value).all()


def test_where_forward_and_gradient():
    cond = np.array([[1, 0, 2], [0, 0, -1]], dtype=np.float32)
    x, y = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3)
    out = mx.nd.where(mx.nd.array(cond), mx.nd.array(x), mx.nd.array(y))
    np.testing.assert_array_equal(out.asnumpy(), np.where(cond != 0, x, y))
    rows = mx.nd.where(mx.nd.array([0, 1]), mx.nd.array(x), mx.nd.array(y))
    np.testing.assert_array_equal(rows.asnumpy(), [y[0], x[1]])
    sym = mx.sym.where(mx.sym.Variable('c'), mx.sym.Variable('x'), mx.sym.Variable('y'))
    assert sym.list_arguments() == ['c', 'x', 'y']
    dy = np.arange(1.0, 7.0).reshape(2, 3)
    mask = cond != 0
    check_symbolic_backward(sym, [cond, x, y], [dy],
                            [np.zeros((2, 3)), dy * mask, dy * ~mask], dtype=np.float64)
    check_numeric_gradient(sym, [cond, x, y], grad_nodes=['x', 'y'], numeric_eps=1e-6,
                           rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_where_shape_and_type_inference():
    sym = mx.sym.where(mx.sym.Variable('c'), mx.sym.Variable('x'), mx.sym.Variable('y'))
    arg_shapes, out_shapes, _ = sym.infer_shape(c=(3,), x=(3, 4))
    assert arg_shapes == [(3,), (3, 4), (3, 4)] and out_shapes == [(3, 4)]
    arg_types, out_types, _ = sym.infer_type(c=np.int32, x=np.float64)
    assert arg_types == [np.int32, np.float64, np.float64] and out_types == [np.float64]
    with pytest.raises(MXNetError):
        sym.infer_shape(c=(2,), x=(3, 4))


def test_where_grad_req_add_accumulates():
    check_symbolic_backward(mx.sym.where(mx.sym.Variable('c'), mx.sym.Variable('x'),
                                         mx.sym.Variable('y')),
                            [np.array([1.0, 0.0]), np.ones(2), np.ones(2)], [np.ones(2)],
                            {'x': [1.0, 0.0], 'y': [0.0, 1.0]}, grad_req='add',
                            dtype=np.float64)


@pytest.mark.parametrize('op', ['zeros_like', 'ones_like'])
def test_fill_ops_have_zero_gradient(op):
    check_symbolic_backward(getattr(mx.sym, op)(mx.sym.Variable('x')), [np.ones((1, 3))],
                            [np.ones((1, 3))], [np.zeros((1, 3))])


def test_where_float16_and_integer_condition():
    cond = mx.nd.array([[1, 0], [0, 3]], dtype='int32')
    x = mx.nd.array([[1, 2], [3, 4]], dtype='float16')
    y = mx.nd.zeros((2, 2), dtype='float16')
    out = mx.nd.where(cond, x, y)
    assert out.dtype == np.float16 and out.asnumpy().tolist() == [[1, 0], [0, 4]]


def test_cast_alias():
    assert registry.get('cast').name == 'Cast'
