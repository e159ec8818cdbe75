"""Broadcasting binary operators, broadcast_to, broadcast_axis and broadcast_like."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import check_numeric_gradient, check_symbolic_backward

from math_reference import cases, check_case

NUMPY = {
    'broadcast_add': np.add, 'broadcast_sub': np.subtract, 'broadcast_mul': np.multiply,
    'broadcast_div': np.divide, 'broadcast_mod': np.mod, 'broadcast_power': np.power,
    'broadcast_maximum': np.maximum, 'broadcast_minimum': np.minimum,
    'broadcast_hypot': np.hypot, 'broadcast_equal': np.equal,
    'broadcast_not_equal': np.not_equal, 'broadcast_greater': np.greater,
    'broadcast_greater_equal': np.greater_equal, 'broadcast_lesser': np.less,
    'broadcast_lesser_equal': np.less_equal, 'broadcast_logical_and': np.logical_and,
    'broadcast_logical_or': np.logical_or, 'broadcast_logical_xor': np.logical_xor,
}
TESTED_OPS = set(NUMPY) | {'broadcast_to', 'broadcast_axis', 'broadcast_like'}
SHAPE_PAIRS = [((2, 3, 4), (3, 1)), ((2, 1, 4), (1, 3, 1)), ((4,), (3, 1)), ((3, 4), (3, 4)),
               ((5, 1), (1,))]
RTOL = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}


@pytest.mark.parametrize('k,op,params', cases(TESTED_OPS))
def test_matches_mxnet_reference(k, op, params):
    check_case(k)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shapes', SHAPE_PAIRS)
@pytest.mark.parametrize('op', sorted(NUMPY))
def test_forward_matches_numpy(op, shapes, dtype):
    rng = np.random.RandomState(5)
    positive = op in ('broadcast_div', 'broadcast_power', 'broadcast_mod')
    lhs = rng.uniform(0.5 if positive else -3, 3, shapes[0])
    rhs = rng.uniform(0.5 if positive else -3, 2, shapes[1])
    if op in ('broadcast_equal', 'broadcast_not_equal') or 'logical' in op:
        lhs, rhs = np.round(lhs), np.round(rhs)
    lhs, rhs = lhs.astype(dtype), rhs.astype(dtype)
    out = getattr(mx.nd, op)(mx.nd.array(lhs, dtype=dtype), mx.nd.array(rhs, dtype=dtype))
    expected = NUMPY[op](lhs, rhs).astype(dtype)
    assert out.dtype == dtype and out.shape == expected.shape
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=RTOL[dtype], atol=RTOL[dtype])


DIFFERENTIABLE = ['broadcast_add', 'broadcast_sub', 'broadcast_mul', 'broadcast_div',
                  'broadcast_mod', 'broadcast_power', 'broadcast_maximum', 'broadcast_minimum',
                  'broadcast_hypot']


@pytest.mark.parametrize('shapes', [((2, 3), (1, 3)), ((2, 1, 3), (4, 1)), ((3,), (2, 3))])
@pytest.mark.parametrize('op', DIFFERENTIABLE)
def test_numeric_gradient_float64(op, shapes):
    rng = np.random.RandomState(6)
    lhs = rng.uniform(0.5, 1.5, shapes[0])
    rhs = rng.uniform(2.0, 3.0, shapes[1])     # no ties, no modulo wrap-around
    sym = getattr(mx.sym, op)(mx.sym.Variable('a'), mx.sym.Variable('b'))
    check_numeric_gradient(sym, [lhs, rhs], numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_gradient_sums_over_broadcast_axes():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    lhs, rhs = np.arange(6.0).reshape(2, 3), np.array([[2.0, 3.0, 4.0]])
    dy = np.ones((2, 3))
    check_symbolic_backward(mx.sym.broadcast_mul(a, b), [lhs, rhs], [dy],
                            [np.broadcast_to(rhs, (2, 3)), lhs.sum(axis=0, keepdims=True)],
                            dtype=np.float64)


def test_grad_req_add_accumulates():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    lhs, rhs = np.ones((2, 3)), np.full((3,), 2.0)
    dy = np.arange(6.0).reshape(2, 3)
    check_symbolic_backward(mx.sym.broadcast_sub(a, b), [lhs, rhs], [dy],
                            [dy, -dy.sum(axis=0)], grad_req='add', dtype=np.float64)


def test_comparisons_have_zero_gradient_and_input_dtype():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    check_symbolic_backward(mx.sym.broadcast_greater(a, b), [np.ones((2, 2)), np.zeros((2,))],
                            [np.ones((2, 2))], [np.zeros((2, 2)), np.zeros((2,))])
    out = mx.nd.broadcast_equal(mx.nd.array([[1, 2]], dtype='int32'),
                                mx.nd.array([[1], [2]], dtype='int32'))
    assert out.dtype == np.int32 and out.asnumpy().tolist() == [[1, 0], [0, 1]]


def test_incompatible_shapes_raise():
    with pytest.raises(MXNetError, match='could not be broadcast'):
        mx.nd.broadcast_add(mx.nd.ones((2, 3)), mx.nd.ones((4,)))
    sym = mx.sym.broadcast_mul(mx.sym.Variable('a'), mx.sym.Variable('b'))
    with pytest.raises(MXNetError, match=r'\(2, 3\)'):
        sym.infer_shape(a=(2, 3), b=(3, 3))


def test_shape_inference():
    sym = mx.sym.broadcast_add(mx.sym.Variable('a'), mx.sym.Variable('b'))
    _, out_shapes, _ = sym.infer_shape(a=(2, 1, 4), b=(3, 1))
    assert out_shapes == [(2, 3, 4)]
    op = registry.get('broadcast_add')({})
    assert op.infer_shape([(2, 3), None], [None], [])[1] == [None]     # rhs still unknown
    assert op.infer_shape([(2, 0), (1, 3)], [None], [])[1] == [(2, 0)]  # 0 = unknown dim


@pytest.mark.parametrize('alias,canonical', [('broadcast_plus', 'broadcast_add'),
                                             ('broadcast_minus', 'broadcast_sub'),
                                             ('broadcast_axes', 'broadcast_axis')])
def test_aliases(alias, canonical):
    assert registry.get(alias).name == canonical
    assert hasattr(mx.nd, alias) and hasattr(mx.sym, alias)


# ---- broadcast_to / broadcast_axis / broadcast_like -----------------------------------------
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, np.int32])
def test_broadcast_to_matches_numpy(dtype):
    x = np.arange(6).reshape(2, 1, 3).astype(dtype)
    out = mx.nd.broadcast_to(mx.nd.array(x, dtype=dtype), shape=(2, 4, 3))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x, (2, 4, 3)))
    assert out.dtype == dtype
    kept = mx.nd.broadcast_to(mx.nd.array(x, dtype=dtype), shape=(0, 5, 0))
    assert kept.shape == (2, 5, 3)
    assert mx.nd.array(x, dtype=dtype).broadcast_to((2, 2, 3)).shape == (2, 2, 3)


def test_broadcast_to_errors():
    with pytest.raises(MXNetError, match='cannot be broadcasted'):
        mx.nd.broadcast_to(mx.nd.ones((2, 3)), shape=(4, 3))
    with pytest.raises(MXNetError, match='cannot be broadcasted'):
        mx.nd.broadcast_to(mx.nd.ones((2, 3)), shape=(2, 3, 1))


def test_broadcast_axis_matches_numpy():
    x = np.arange(3.0).reshape(1, 3, 1)
    out = mx.nd.broadcast_axis(mx.nd.array(x), axis=(0, 2), size=(2, 4))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(x, (2, 3, 4)))
    out = mx.nd.broadcast_axes(mx.nd.array(x), axis=2, size=5)
    assert out.shape == (1, 3, 5)
    with pytest.raises(MXNetError, match='size 1'):
        mx.nd.broadcast_axis(mx.nd.array(x), axis=1, size=3)
    with pytest.raises(MXNetError):
        mx.nd.broadcast_axis(mx.nd.array(x), axis=(0, 2), size=(2,))
    with pytest.raises(MXNetError, match='range'):
        mx.nd.broadcast_axis(mx.nd.array(x), axis=-1, size=3)


def test_broadcast_like_matches_numpy():
    lhs = mx.nd.array([[1.0, 2.0, 3.0]])
    out = mx.nd.broadcast_like(lhs, mx.nd.zeros((4, 3)))
    np.testing.assert_array_equal(out.asnumpy(), np.broadcast_to(lhs.asnumpy(), (4, 3)))
    out = mx.nd.broadcast_like(mx.nd.ones((1, 3)), mx.nd.zeros((2, 5)), lhs_axes=(0,),
                               rhs_axes=(-1,))
    assert out.shape == (5, 3)
    with pytest.raises(MXNetError):
        mx.nd.broadcast_like(mx.nd.ones((2, 3)), mx.nd.zeros((4, 3)))


@pytest.mark.parametrize('make,shape', [
    (lambda x: mx.sym.broadcast_to(x, shape=(3, 0, 4)), (1, 2, 1)),
    (lambda x: mx.sym.broadcast_axis(x, axis=(1,), size=(3,)), (2, 1)),
    (lambda x: mx.sym.broadcast_like(x, mx.sym.Variable('y')), (1, 3))])
def test_broadcast_numeric_gradient_float64(make, shape):
    x = mx.sym.Variable('x')
    sym = make(x)
    location = {'x': np.random.RandomState(7).normal(size=shape)}
    if 'y' in sym.list_arguments():
        location['y'] = np.zeros((4, 3))
        check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                               grad_nodes=['x'], dtype=np.float64)
        check_symbolic_backward(sym, location, [np.ones((4, 3))],
                                {'x': np.full(shape, 4.0), 'y': np.zeros((4, 3))},
                                dtype=np.float64)
    else:
        check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                               dtype=np.float64)


def test_broadcast_to_forward_req_add():
    op = registry.get('broadcast_to')({'shape': '(2, 3)'})
    out = np.ones((2, 3))
    op.forward(True, ['add'], [np.array([[1.0, 2.0, 3.0]])], [out], [])
    np.testing.assert_array_equal(out, [[2, 3, 4], [2, 3, 4]])


def test_broadcast_like_keeps_each_input_dtype():
    out = mx.nd.broadcast_like(mx.nd.ones((1, 3), dtype='float32'),
                               mx.nd.zeros((2, 3), dtype='int32'))
    assert out.dtype == np.float32 and out.shape == (2, 3)
    lhs, rhs = mx.sym.var('lhs'), mx.sym.var('rhs')
    _, out_types, _ = mx.sym.broadcast_like(lhs, rhs).infer_type(lhs=np.float64, rhs=np.int64)
    assert out_types == [np.float64]
