"""Elementwise binary operators on same-shape arrays, add_n, and NDArray arithmetic."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry
from symmod.test_utils import (check_numeric_gradient, check_symbolic_backward,
                               check_symbolic_forward)

from math_reference import cases, check_case

BINARY = ['elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div', '_mod', '_power',
          '_maximum', '_minimum', '_hypot', '_equal', '_not_equal', '_greater',
          '_greater_equal', '_lesser', '_lesser_equal', '_logical_and', '_logical_or',
          '_logical_xor']
TESTED_OPS = set(BINARY) | {'add_n'}


def _py_mod(a, b):
    """MXNet's modulo: sign of the divisor, x mod 0 = 0 (numpy gives NaN for floats)."""
    with np.errstate(divide='ignore', invalid='ignore'):
        return np.where(b == 0, 0, np.mod(a, b)).astype(np.result_type(a, b))


NUMPY = {
    'elemwise_add': np.add, 'elemwise_sub': np.subtract, 'elemwise_mul': np.multiply,
    'elemwise_div': np.divide, '_mod': _py_mod, '_power': np.power,
    '_maximum': np.maximum, '_minimum': np.minimum, '_hypot': np.hypot,
    '_equal': np.equal, '_not_equal': np.not_equal, '_greater': np.greater,
    '_greater_equal': np.greater_equal, '_lesser': np.less, '_lesser_equal': np.less_equal,
    '_logical_and': np.logical_and, '_logical_or': np.logical_or,
    '_logical_xor': np.logical_xor,
}
RTOL = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}


def _operands(op, shape, dtype, rng):
    lhs = rng.uniform(0.5, 3, shape) if op == '_power' else rng.uniform(-3, 3, shape)
    rhs = rng.uniform(0.5, 2, shape)
    if op not in ('elemwise_div', '_power'):
        rhs *= rng.choice([-1, 1], shape)
    if op.startswith('_logical') or op in ('_equal', '_not_equal', '_mod'):
        lhs, rhs = np.round(lhs), np.round(rhs)
    return lhs.astype(dtype), rhs.astype(dtype)


# ---- values computed by MXNet 1.9.1 ---------------------------------------------------
@pytest.mark.parametrize('k,op,params', cases(TESTED_OPS))
def test_matches_mxnet_reference(k, op, params):
    check_case(k)


# ---- forward against numpy ------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shape', [(7,), (3, 4), (2, 3, 5)])
@pytest.mark.parametrize('op', BINARY)
def test_binary_forward_matches_numpy(op, shape, dtype):
    lhs, rhs = _operands(op, shape, dtype, np.random.RandomState(1))
    out = getattr(mx.nd, op)(mx.nd.array(lhs, dtype=dtype), mx.nd.array(rhs, dtype=dtype))
    expected = NUMPY[op](lhs, rhs).astype(dtype)
    assert out.dtype == dtype and out.shape == shape
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=RTOL[dtype], atol=RTOL[dtype])


def test_comparisons_give_zero_one_in_input_dtype():
    a = mx.nd.array([1, 2, 3], dtype='int32')
    b = mx.nd.array([3, 2, 1], dtype='int32')
    out = mx.nd._greater(a, b)
    assert out.dtype == np.int32
    assert out.asnumpy().tolist() == [0, 0, 1]
    out = mx.nd._lesser_equal_scalar(mx.nd.array([1.0, 2.0, 3.0]), scalar=2.0)
    assert out.dtype == np.float32 and out.asnumpy().tolist() == [1, 1, 0]


def test_modulo_follows_the_divisor_sign_and_zero_divisor_gives_zero():
    a = mx.nd.array([-7, 7, -7, 7, 5])
    b = mx.nd.array([3, -3, -3, 3, 0])
    assert mx.nd._mod(a, b).asnumpy().tolist() == [2, -2, -1, 1, 0]
    assert mx.nd._mod_scalar(a, scalar=0).asnumpy().tolist() == [0] * 5


def test_integer_arithmetic_is_c_arithmetic():
    a = mx.nd.array([-7, 7, 5, 2], dtype='int32')
    b = mx.nd.array([2, -2, 3, 1], dtype='int32')
    assert mx.nd.elemwise_div(a, b).asnumpy().tolist() == [-3, -3, 1, 2]   # truncation
    assert mx.nd._power(b, mx.nd.array([3, 2, -1, 0], dtype='int32')).asnumpy().tolist() \
        == [8, 4, 0, 1]


# ---- gradients ------------------------------------------------------------------------
DIFFERENTIABLE = ['elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div', '_mod',
                  '_power', '_maximum', '_minimum', '_hypot']


@pytest.mark.parametrize('op', DIFFERENTIABLE)
def test_binary_numeric_gradient_float64(op):
    rng = np.random.RandomState(3)
    lhs = rng.uniform(0.5, 1.5, (2, 3))
    rhs = rng.uniform(2.0, 3.0, (2, 3)) * np.array([1, -1, 1])
    if op == '_power':
        rhs = np.abs(rhs)
    sym = getattr(mx.sym, op)(mx.sym.Variable('a'), mx.sym.Variable('b'))
    check_numeric_gradient(sym, [lhs, rhs], numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_add_n_numeric_gradient_float64():
    xs = [np.random.RandomState(i).normal(size=(2, 3)) for i in range(3)]
    sym = mx.sym.add_n(*[mx.sym.Variable('x%d' % i) for i in range(3)])
    assert sym.list_arguments() == ['x0', 'x1', 'x2']
    check_numeric_gradient(sym, xs, numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('op', ['_maximum', '_minimum'])
def test_maximum_minimum_ties_send_gradient_to_lhs(op):
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    values = [np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 4.0])]
    dy = np.array([1.0, 1.0, 1.0])
    picks_lhs = values[0] > values[1] if op == '_maximum' else values[0] < values[1]
    picks_lhs = picks_lhs | (values[0] == values[1])
    check_symbolic_backward(getattr(mx.sym, op)(a, b), values, [dy],
                            [picks_lhs * 1.0, (~picks_lhs) * 1.0], dtype=np.float64)


@pytest.mark.parametrize('op', ['_equal', '_greater', '_logical_and'])
def test_comparisons_have_zero_gradient(op):
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    values = [np.array([1.0, 2.0]), np.array([2.0, 2.0])]
    check_symbolic_backward(getattr(mx.sym, op)(a, b), values, [np.ones(2)],
                            [np.zeros(2), np.zeros(2)])


def test_grad_req_add_accumulates():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    values = [np.array([[1.0, 2.0]]), np.array([[3.0, 5.0]])]
    dy = np.array([[0.5, -1.0]])
    check_symbolic_backward(mx.sym.elemwise_div(a, b), values, [dy],
                            [dy / values[1], -dy * values[0] / values[1] ** 2],
                            grad_req='add', dtype=np.float64)
    check_symbolic_backward(mx.sym._rdiv_scalar(a, scalar=2.0), values[:1], [dy],
                            [-dy * 2.0 / values[0] ** 2], grad_req='add', dtype=np.float64)


def test_forward_req_add_accumulates_into_output():
    op = registry.get('elemwise_mul')({})
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    out = np.array([10.0, 20.0])
    op.forward(True, ['add'], [a, b], [out], [])
    np.testing.assert_allclose(out, [13.0, 28.0])
    op = registry.get('_minus_scalar')({'scalar': '1'})
    op.forward(True, ['add'], [a], [out], [])
    np.testing.assert_allclose(out, [13.0, 29.0])


# ---- names and composition ------------------------------------------------------------
@pytest.mark.parametrize('alias,canonical', [
    ('_Plus', 'elemwise_add'), ('_plus', 'elemwise_add'), ('_add', 'elemwise_add'),
    ('_Minus', 'elemwise_sub'), ('_sub', 'elemwise_sub'), ('_Mul', 'elemwise_mul'),
    ('_Div', 'elemwise_div'), ('_Mod', '_mod'), ('_Power', '_power'), ('_Maximum', '_maximum'),
    ('_Minimum', '_minimum'), ('_Hypot', '_hypot'), ('_Equal', '_equal'),
    ('_Not_Equal', '_not_equal'), ('_Greater', '_greater'), ('_Greater_Equal', '_greater_equal'),
    ('_Lesser', '_lesser'), ('_Lesser_Equal', '_lesser_equal'),
    ('_PlusScalar', '_plus_scalar'), ('_MinusScalar', '_minus_scalar'),
    ('_RMinusScalar', '_rminus_scalar'), ('_MulScalar', '_mul_scalar'),
    ('_DivScalar', '_div_scalar'), ('_RDivScalar', '_rdiv_scalar'),
    ('_PowerScalar', '_power_scalar'), ('_RPowerScalar', '_rpower_scalar'),
    ('_EqualScalar', '_equal_scalar'), ('_GreaterScalar', '_greater_scalar'),
    ('ElementWiseSum', 'add_n')])
def test_aliases_resolve_to_canonical_names(alias, canonical):
    assert registry.get(alias).name == canonical
    assert hasattr(mx.nd, alias) and hasattr(mx.sym, alias)


def test_alias_symbol_stores_canonical_name_and_computes():
    x, y = mx.sym.Variable('x'), mx.sym.Variable('y')
    sym = mx.sym._Plus(x, y)
    assert sym.list_arguments() == ['x', 'y']
    assert '"op": "elemwise_add"' in sym.tojson()
    check_symbolic_forward(sym, [np.ones((2, 2)), np.full((2, 2), 2.0)], [np.full((2, 2), 3.0)])
    scalar = mx.sym._MulScalar(x, scalar=3)
    assert '"op": "_mul_scalar"' in scalar.tojson()


def test_add_n_takes_variable_inputs():
    arrays = [mx.nd.array(np.full((2,), i)) for i in range(1, 5)]
    assert mx.nd.add_n(*arrays).asnumpy().tolist() == [10, 10]
    assert mx.nd.ElementWiseSum(*arrays[:2]).asnumpy().tolist() == [3, 3]
    with pytest.raises(MXNetError):
        registry.get('add_n')({'num_args': '0'})


def test_elemwise_shape_mismatch_raises():
    with pytest.raises(MXNetError, match=r'\(2, 3\)'):
        mx.nd.elemwise_add(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))
    sym = mx.sym.elemwise_mul(mx.sym.Variable('a'), mx.sym.Variable('b'))
    with pytest.raises(MXNetError):
        sym.infer_shape(a=(2, 3), b=(2, 4))


def test_elemwise_shape_inference_fills_unknown_inputs():
    sym = mx.sym.elemwise_add(mx.sym.Variable('a'), mx.sym.Variable('b'))
    arg_shapes, out_shapes, _ = sym.infer_shape(a=(4, 5))
    assert arg_shapes == [(4, 5), (4, 5)] and out_shapes == [(4, 5)]


def test_unknown_parameter_is_rejected():
    with pytest.raises(MXNetError, match='scalar'):
        mx.nd._plus_scalar(mx.nd.ones((2,)), scalr=1.0)


# ---- NDArray operators ----------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.int32])
def test_ndarray_arithmetic_matches_numpy(dtype):
    a_np = np.array([[1, 2, 3], [4, 5, 6]], dtype=dtype)
    b_np = np.array([[2], [3]], dtype=dtype)
    a, b = mx.nd.array(a_np, dtype=dtype), mx.nd.array(b_np, dtype=dtype)
    pairs = [(a + b, a_np + b_np), (a - b, a_np - b_np), (a * b, a_np * b_np),
             (a + 1, a_np + 1), (1 - a, 1 - a_np), (2 * a, 2 * a_np), (a ** 2, a_np ** 2),
             (a == b, (a_np == b_np).astype(dtype)), (a > 2, (a_np > 2).astype(dtype)),
             (-a, -a_np), (abs(-a), a_np), (a % 4, a_np % 4)]
    if dtype != np.int32:
        pairs += [(a / b, a_np / b_np), (1 / a, 1 / a_np), (2 ** a, 2.0 ** a_np)]
    for got, expected in pairs:
        assert got.dtype == dtype
        np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)
    a += 1
    np.testing.assert_allclose(a.asnumpy(), a_np + 1)
    a *= b
    np.testing.assert_allclose(a.asnumpy(), (a_np + 1) * b_np)


@pytest.mark.parametrize('op', [name for name in BINARY + ['add_n']
                                if registry.get(name).inplace])
def test_declared_inplace_ops_can_write_over_their_input(op):
    lhs, rhs = _operands(op, (3, 4), np.float32, np.random.RandomState(15))
    inst = registry.get(op)({'num_args': 2} if op == 'add_n' else {})
    expected = np.empty_like(lhs)
    inst.forward(True, ['write'], [lhs.copy(), rhs.copy()], [expected], [])
    for index, _ in inst.inplace:
        args = [lhs.copy(), rhs.copy()]
        inst.forward(True, ['write'], args, [args[index]], [])
        np.testing.assert_array_equal(args[index], expected)


def test_integer_modulo_has_zero_gradients():
    # MXNet 1.9.1 (checked with it): mod_grad/mod_rgrad are 0 for integer types
    a, b = mx.sym.var('a', dtype='int32'), mx.sym.var('b', dtype='int32')
    for sym in [a % b, mx.sym.broadcast_mod(a, b), a % 3, 100 % a]:
        values = {'a': np.array([29, -35, 51, 31]), 'b': np.array([7, 25, -8, 9])}
        names = sym.list_arguments()
        exe = sym.simple_bind(mx.cpu(), type_dict={n: np.int32 for n in names},
                              **{n: (4,) for n in names})
        exe.forward(is_train=True, **{n: values[n] for n in names})
        exe.backward([mx.nd.array([1, 2, 1, 1], dtype=np.int32)])
        for name, grad in exe.grad_dict.items():
            np.testing.assert_array_equal(grad.asnumpy(), [0, 0, 0, 0], err_msg=name)