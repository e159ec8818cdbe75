"""Operators with a scalar operand (``_plus_scalar`` ... ``_logical_xor_scalar``) and
smooth_l1."""
import numpy as np
import pytest

import symmod as mx
from symmod.ops import registry
from symmod.test_utils import check_numeric_gradient, check_symbolic_backward

from math_reference import cases, check_case

SCALAR = ['_plus_scalar', '_minus_scalar', '_rminus_scalar', '_mul_scalar', '_div_scalar',
          '_rdiv_scalar', '_mod_scalar', '_rmod_scalar', '_maximum_scalar', '_minimum_scalar',
          '_power_scalar', '_rpower_scalar', '_hypot_scalar', '_equal_scalar',
          '_not_equal_scalar', '_greater_scalar', '_greater_equal_scalar', '_lesser_scalar',
          '_lesser_equal_scalar', '_logical_and_scalar', '_logical_or_scalar',
          '_logical_xor_scalar']
TESTED_OPS = set(SCALAR) | {'smooth_l1'}
RTOL = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}


def _py_mod(a, b):
    """MXNet's modulo: sign of the divisor, x mod 0 = 0 (numpy gives NaN for floats)."""
    with np.errstate(divide='ignore', invalid='ignore'):
        return np.where(b == 0, 0, np.mod(a, b)).astype(np.result_type(a, b))


SCALAR_NUMPY = {
    '_plus_scalar': np.add, '_minus_scalar': np.subtract,
    '_rminus_scalar': lambda x, s: s - x, '_mul_scalar': np.multiply,
    '_div_scalar': np.divide, '_rdiv_scalar': lambda x, s: s / x,
    '_mod_scalar': _py_mod, '_rmod_scalar': lambda x, s: _py_mod(s, x),
    '_maximum_scalar': np.maximum, '_minimum_scalar': np.minimum,
    '_power_scalar': np.power, '_rpower_scalar': lambda x, s: np.power(s, x),
    '_hypot_scalar': np.hypot, '_equal_scalar': np.equal, '_not_equal_scalar': np.not_equal,
    '_greater_scalar': np.greater, '_greater_equal_scalar': np.greater_equal,
    '_lesser_scalar': np.less, '_lesser_equal_scalar': np.less_equal,
    '_logical_and_scalar': np.logical_and, '_logical_or_scalar': np.logical_or,
    '_logical_xor_scalar': np.logical_xor,
}


@pytest.mark.parametrize('k,op,params', cases(TESTED_OPS))
def test_matches_mxnet_reference(k, op, params):
    check_case(k)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('op', SCALAR)
def test_scalar_forward_matches_numpy(op, dtype):
    rng = np.random.RandomState(2)
    x = rng.uniform(0.5, 3, (4, 5)).astype(dtype)
    x[0, :2] = [1.5, 0.0]
    for scalar in (1.5, 2.0):
        out = getattr(mx.nd, op)(mx.nd.array(x, dtype=dtype), scalar=scalar)
        with np.errstate(divide='ignore'):
            expected = SCALAR_NUMPY[op](x, dtype(scalar)).astype(dtype)
        assert out.dtype == dtype
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=RTOL[dtype], atol=RTOL[dtype])


# ---- scalar dtype rules ---------------------------------------------------------------
def test_scalar_is_cast_to_the_array_dtype_first():
    a = mx.nd.array([1, 2, 3], dtype='int32')
    for op, scalar, expected in (('_plus_scalar', 0.5, [1, 2, 3]),
                                 ('_mul_scalar', 1.5, [1, 2, 3]),
                                 ('_div_scalar', 2.0, [0, 1, 1]),
                                 ('_rdiv_scalar', 2.0, [2, 1, 0]),
                                 ('_power_scalar', 0.5, [1, 1, 1]),
                                 ('_greater_scalar', 1.5, [0, 1, 1]),
                                 ('_rminus_scalar', 1.0, [0, -1, -2])):
        out = getattr(mx.nd, op)(a, scalar=scalar)
        assert out.dtype == np.int32, op
        assert out.asnumpy().tolist() == expected, op
    half = mx.nd._plus_scalar(mx.nd.array([1.0], dtype='float16'), scalar=0.1)
    assert half.dtype == np.float16
    assert half.asnumpy()[0] == np.float16(1.0) + np.float16(0.1)


def test_scalar_is_int_false_promotes_integers_to_float64():
    out = mx.nd._plus_scalar(mx.nd.array([1, 2], dtype='int32'), scalar=0.5, is_int=False)
    assert out.dtype == np.float64
    assert out.asnumpy().tolist() == [1.5, 2.5]
    x = mx.sym.Variable('x')
    _, out_types, _ = mx.sym._mul_scalar(x, scalar=0.5, is_int=False).infer_type(x=np.int32)
    assert out_types == [np.float64]


def test_float32_stays_float32_with_float_scalars():
    x = mx.nd.array([1.0, 2.0])
    for out in (x + 0.1, x * np.float64(0.5), 0.3 - x, x / 3.0, x ** 2.0, 2.0 ** x):
        assert out.dtype == np.float32


SCALAR_DIFFERENTIABLE = ['_plus_scalar', '_minus_scalar', '_rminus_scalar', '_mul_scalar',
                         '_div_scalar', '_rdiv_scalar', '_mod_scalar', '_rmod_scalar',
                         '_maximum_scalar', '_minimum_scalar', '_power_scalar',
                         '_rpower_scalar', '_hypot_scalar', 'smooth_l1']


@pytest.mark.parametrize('op', SCALAR_DIFFERENTIABLE)
def test_scalar_numeric_gradient_float64(op):
    x = np.random.RandomState(4).uniform(0.6, 1.4, (2, 3)) * np.array([1, 1, -1])
    if op in ('_power_scalar', '_rdiv_scalar', '_rmod_scalar'):
        x = np.abs(x)
    scalar = 0.7 if op == 'smooth_l1' else 2.5
    sym = getattr(mx.sym, op)(mx.sym.Variable('x'), scalar=scalar)
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_smooth_l1_matches_its_formula():
    x = np.linspace(-2, 2, 17)
    for sigma in (1.0, 2.0, 0.5):
        out = mx.nd.smooth_l1(mx.nd.array(x, dtype='float64'), scalar=sigma).asnumpy()
        inner = np.abs(x) < 1 / sigma ** 2
        expected = np.where(inner, 0.5 * (sigma * x) ** 2, np.abs(x) - 0.5 / sigma ** 2)
        np.testing.assert_allclose(out, expected, rtol=1e-14)
    assert mx.nd.smooth_l1(mx.nd.array([1.0, 2.0])).asnumpy().tolist() == [0.5, 1.5]


def test_scalar_gradients_req_add_and_output_use():
    x = np.array([0.5, 1.0, 2.0])
    dy = np.array([1.0, -2.0, 0.5])
    check_symbolic_backward(mx.sym._rpower_scalar(mx.sym.Variable('x'), scalar=3.0), [x],
                            [dy], [dy * 3.0 ** x * np.log(3.0)], grad_req='add',
                            dtype=np.float64)
    check_symbolic_backward(mx.sym._maximum_scalar(mx.sym.Variable('x'), scalar=1.0), [x],
                            [dy], [dy * (x >= 1.0)], dtype=np.float64)
    check_symbolic_backward(mx.sym._equal_scalar(mx.sym.Variable('x'), scalar=1.0), [x],
                            [dy], [np.zeros(3)], dtype=np.float64)


def test_scalar_parameter_strings_parse_like_symbol_json():
    op = registry.get('_plus_scalar')({'scalar': '0.25', 'is_int': 'False'})
    assert op.scalar == 0.25 and op.is_int is False
    assert registry.get('_minus_scalar')({}).scalar == 1.0


@pytest.mark.parametrize('dtype', [np.float32, np.int32])
@pytest.mark.parametrize('op', [name for name in SCALAR if registry.get(name).inplace])
def test_declared_inplace_ops_can_write_over_their_input(op, dtype):
    x = np.array([[-7, -2, 3], [5, 8, 1]], dtype=dtype)
    inst = registry.get(op)({'scalar': 2})
    expected = np.empty_like(x)
    inst.forward(True, ['write'], [x.copy()], [expected], [])
    aliased = x.copy()
    inst.forward(True, ['write'], [aliased], [aliased], [])
    np.testing.assert_array_equal(aliased, expected)


def test_ndarray_inplace_integer_division_truncates():
    a = mx.nd.array([-7, 7, 5], dtype='int32')
    a /= 2
    assert a.dtype == np.int32 and a.asnumpy().tolist() == [-3, 3, 2]
