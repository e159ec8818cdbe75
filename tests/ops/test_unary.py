"""Unary math operators, hard_sigmoid and clip."""
import math

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import registry, special
from symmod.test_utils import check_numeric_gradient, check_symbolic_backward

from math_reference import cases, check_case


def _vectorize(f):
    return lambda x: np.vectorize(f, otypes=[np.float64])(x.astype(np.float64))


def _c_round(x):
    return np.trunc(x) + np.where(np.abs(x - np.trunc(x)) >= 0.5, np.sign(x), 0)


# name -> (numpy reference, input range); references are independent of symmod
NUMPY = {
    'relu': (lambda x: np.maximum(x, 0), (-2, 2)),
    'sigmoid': (lambda x: 1 / (1 + np.exp(-x.astype(np.float64))), (-4, 4)),
    'softsign': (lambda x: x / (1 + np.abs(x)), (-3, 3)),
    '_copy': (lambda x: x, (-2, 2)),
    'negative': (np.negative, (-2, 2)),
    'reciprocal': (np.reciprocal, (0.5, 3)),
    'abs': (np.abs, (-2, 2)),
    'sign': (np.sign, (-2, 2)),
    'round': (_c_round, (-3, 3)),
    'rint': (lambda x: np.where(x - np.floor(x) <= np.ceil(x) - x, np.floor(x), np.ceil(x)),
             (-3, 3)),
    'ceil': (np.ceil, (-3, 3)),
    'floor': (np.floor, (-3, 3)),
    'trunc': (np.trunc, (-3, 3)),
    'fix': (np.fix, (-3, 3)),
    'square': (np.square, (-2, 2)),
    'sqrt': (np.sqrt, (0.2, 4)),
    'rsqrt': (lambda x: 1 / np.sqrt(x), (0.2, 4)),
    'cbrt': (np.cbrt, (0.2, 4)),
    'rcbrt': (lambda x: 1 / np.cbrt(x), (0.2, 4)),
    'exp': (np.exp, (-2, 2)),
    'log': (np.log, (0.2, 4)),
    'log10': (np.log10, (0.2, 4)),
    'log2': (np.log2, (0.2, 4)),
    'log1p': (np.log1p, (-0.5, 3)),
    'expm1': (np.expm1, (-2, 2)),
    'sin': (np.sin, (-3, 3)),
    'cos': (np.cos, (-3, 3)),
    'tan': (np.tan, (-1.2, 1.2)),
    'arcsin': (np.arcsin, (-0.9, 0.9)),
    'arccos': (np.arccos, (-0.9, 0.9)),
    'arctan': (np.arctan, (-3, 3)),
    'degrees': (np.degrees, (-3, 3)),
    'radians': (np.radians, (-180, 180)),
    'sinh': (np.sinh, (-2, 2)),
    'cosh': (np.cosh, (-2, 2)),
    'tanh': (np.tanh, (-2, 2)),
    'arcsinh': (np.arcsinh, (-3, 3)),
    'arccosh': (np.arccosh, (1.2, 4)),
    'arctanh': (np.arctanh, (-0.9, 0.9)),
    'erf': (_vectorize(math.erf), (-2, 2)),
    'gamma': (_vectorize(math.gamma), (0.3, 4)),
    'gammaln': (_vectorize(math.lgamma), (-2.5, 4)),
    'logical_not': (lambda x: (x == 0), (-1, 1)),
}
TESTED_OPS = set(NUMPY) | {'erfinv', 'hard_sigmoid', 'clip'}
ZERO_GRAD = {'sign', 'round', 'rint', 'ceil', 'floor', 'trunc', 'fix', 'logical_not'}
RTOL = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-13}


@pytest.mark.parametrize('k,op,params', cases(TESTED_OPS))
def test_matches_mxnet_reference(k, op, params):
    check_case(k)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('op', sorted(NUMPY))
def test_forward_matches_numpy(op, dtype):
    reference, (lo, hi) = NUMPY[op]
    x = np.random.RandomState(8).uniform(lo, hi, (4, 6)).astype(dtype)
    if op in ('round', 'rint', 'fix', 'trunc', 'ceil', 'floor', 'sign', 'logical_not'):
        x.flat[:6] = [-2.5, -1.5, -0.5, 0.0, 0.5, 2.5]
    if op == 'gammaln':
        x.flat[0] = -1.5
    out = getattr(mx.nd, op)(mx.nd.array(x, dtype=dtype))
    assert out.dtype == dtype and out.shape == x.shape
    expected = reference(x).astype(dtype)
    rtol = RTOL[dtype]
    if op in ('degrees', 'radians'):
        rtol = max(rtol, 1e-7)      # MXNet scales by a single-precision 180 / pi
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=rtol, atol=rtol)


# name -> input range where the function is smooth (away from kinks and ties)
GRAD_DOMAIN = {name: rng for name, (_, rng) in NUMPY.items() if name not in ZERO_GRAD}
GRAD_DOMAIN.update({'relu': (0.1, 2), 'abs': (0.1, 2), 'erfinv': (-0.9, 0.9),
                    'gammaln': (0.3, 4)})


@pytest.mark.parametrize('op', sorted(GRAD_DOMAIN))
def test_numeric_gradient_float64(op):
    lo, hi = GRAD_DOMAIN[op]
    x = np.random.RandomState(9).uniform(lo, hi, (2, 3))
    if op in ('relu', 'abs'):
        x *= np.array([1, -1, 1])
    sym = getattr(mx.sym, op)(mx.sym.Variable('x'))
    check_numeric_gradient(sym, [x], numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


@pytest.mark.parametrize('op', sorted(ZERO_GRAD))
def test_zero_gradient_ops(op):
    x = np.array([[-1.5, 0.3, 2.0]])
    check_symbolic_backward(getattr(mx.sym, op)(mx.sym.Variable('x')), [x], [np.ones((1, 3))],
                            [np.zeros((1, 3))])


def test_gradients_at_special_points_follow_mxnet():
    x = np.array([-1.0, 0.0, 1.0])
    dy = np.ones(3)
    v = mx.sym.Variable('x')
    check_symbolic_backward(mx.sym.relu(v), [x], [dy], [[0.0, 0.0, 1.0]])
    check_symbolic_backward(mx.sym.abs(v), [x], [dy], [[-1.0, 0.0, 1.0]])
    check_symbolic_backward(mx.sym.clip(v, a_min=-1.0, a_max=0.5), [np.array([-2, -1, 0.5, 1])],
                            [np.ones(4)], [[0.0, 1.0, 1.0, 0.0]])


def test_nan_handling_matches_mxnet():
    x = mx.nd.array([np.nan, -1.0, 2.0])
    np.testing.assert_array_equal(mx.nd.sign(x).asnumpy(), [0, -1, 1])
    assert np.isnan(mx.nd.relu(x).asnumpy()[0])
    assert np.isnan(mx.nd.clip(x, -1, 1).asnumpy()[0])


def test_rounding_ties():
    x = mx.nd.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    assert mx.nd.round(x).asnumpy().tolist() == [-3, -2, -1, 1, 2, 3]     # away from zero
    assert mx.nd.rint(x).asnumpy().tolist() == [-3, -2, -1, 0, 1, 2]      # toward -inf
    assert mx.nd.fix(x).asnumpy().tolist() == [-2, -1, 0, 0, 1, 2]


def test_integer_inputs_are_computed_in_double_and_truncated():
    x = mx.nd.array([-3, 0, 2, 10], dtype='int32')
    assert mx.nd.abs(x).asnumpy().tolist() == [3, 0, 2, 10]
    assert mx.nd.sqrt(mx.nd.array([4, 8, 10], dtype='int32')).asnumpy().tolist() == [2, 2, 3]
    assert mx.nd.exp(mx.nd.array([0, 1, 2], dtype='int64')).asnumpy().tolist() == [1, 2, 7]
    out = mx.nd.reciprocal(mx.nd.array([1, 2, -1], dtype='int32'))
    assert out.dtype == np.int32 and out.asnumpy().tolist() == [1, 0, -1]
    assert mx.nd.round(x).dtype == np.int32


def test_erfinv_inverts_erf():
    y = np.linspace(-0.999999, 0.999999, 41)
    x = mx.nd.erfinv(mx.nd.array(y, dtype='float64')).asnumpy()
    np.testing.assert_allclose([math.erf(v) for v in x], y, rtol=1e-14, atol=1e-15)
    edge = mx.nd.erfinv(mx.nd.array([1, -1, 1.5, 0])).asnumpy()
    assert edge[0] == np.inf and edge[1] == -np.inf and np.isnan(edge[2]) and edge[3] == 0
    tail = mx.nd.erfinv(mx.nd.array([1 - 1e-15], dtype='float64')).asnumpy()[0]
    assert math.erfc(tail) == pytest.approx(1e-15, rel=1e-6)


def test_digamma_is_the_derivative_of_lgamma():
    x = np.array([-2.7, -0.5, 0.2, 1.0, 3.3, 12.5, 150.0])
    h = 1e-6
    numeric = [(math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h) for v in x]
    np.testing.assert_allclose(special.digamma(x), numeric, rtol=1e-7)
    assert special.digamma(np.array([1.0]))[0] == pytest.approx(-0.5772156649015329, rel=1e-15)


@pytest.mark.parametrize('op', ['erf', 'erfinv', 'gamma', 'gammaln'])
def test_special_functions_accept_float16(op):
    x = np.array([0.25, 0.5], dtype=np.float16)
    out = getattr(mx.nd, op)(mx.nd.array(x, dtype='float16'))
    assert out.dtype == np.float16
    expected = getattr(mx.nd, op)(mx.nd.array(x, dtype='float32')).asnumpy()
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-3)


# ---- hard_sigmoid, clip ---------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_hard_sigmoid(dtype):
    x = np.array([-4.0, -1.0, 0.0, 1.0, 4.0], dtype=dtype)
    out = mx.nd.hard_sigmoid(mx.nd.array(x, dtype=dtype), alpha=0.25, beta=0.5)
    np.testing.assert_allclose(out.asnumpy(), np.clip(0.25 * x + 0.5, 0, 1), rtol=1e-7)
    assert out.dtype == dtype
    sym = mx.sym.hard_sigmoid(mx.sym.Variable('x'))
    check_numeric_gradient(sym, [np.array([[-1.0, 0.3, 2.0]])], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)
    check_symbolic_backward(sym, [np.array([-3.0, 0.0, 3.0])], [np.ones(3)], [[0, 0.2, 0]])


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64, np.int32])
def test_clip_matches_numpy(dtype):
    x = np.array([-3, -1, 0, 2, 5], dtype=dtype)
    out = mx.nd.clip(mx.nd.array(x, dtype=dtype), a_min=-1, a_max=2)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.asnumpy(), np.clip(x, -1, 2))


def test_clip_gradient_and_params():
    check_numeric_gradient(mx.sym.clip(mx.sym.Variable('x'), a_min=-0.5, a_max=0.5),
                           [np.array([[-0.9, -0.2, 0.1, 0.8]])], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)
    with pytest.raises(MXNetError, match='a_max'):
        mx.nd.clip(mx.nd.ones((2,)), a_min=0)
    sym = mx.sym.clip(mx.sym.Variable('x'), a_min=0.1, a_max=2)
    assert '"a_min": "0.1"' in sym.tojson()


def test_grad_req_add_accumulates():
    check_symbolic_backward(mx.sym.exp(mx.sym.Variable('x')), [np.array([0.0, 1.0])],
                            [np.array([1.0, 2.0])], [np.exp([0.0, 1.0]) * [1.0, 2.0]],
                            grad_req='add', dtype=np.float64)
    check_symbolic_backward(mx.sym.clip(mx.sym.Variable('x'), a_min=0.0, a_max=1.0),
                            [np.array([-1.0, 0.5, 2.0])], [np.array([1.0, 2.0, 3.0])],
                            [[0.0, 2.0, 0.0]], grad_req='add', dtype=np.float64)


def test_aliases():
    assert registry.get('identity').name == '_copy'
    assert registry.get('_sparse_exp').name == 'exp'
    x = mx.nd.array([1.0, 2.0])
    assert mx.nd.identity(x).asnumpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize('op', sorted(n for n in NUMPY if registry.get(n).inplace))
def test_declared_inplace_ops_can_write_over_their_input(op):
    x = np.random.RandomState(14).uniform(0.2, 1.2, (3, 4)).astype(np.float32)
    inst = registry.get(op)({})
    expected = np.empty_like(x)
    inst.forward(True, ['write'], [x.copy()], [expected], [])
    aliased = x.copy()
    inst.forward(True, ['write'], [aliased], [aliased], [])
    np.testing.assert_array_equal(aliased, expected)


def test_float32_exp_is_correctly_rounded():
    # MXNet calls the C library's expf: exp(1) is 2.7182817 (numpy's float32 loop: 2.718282)
    assert mx.nd.exp(mx.nd.ones(1)).asnumpy()[0] == np.float32(2.7182817)
    x = np.random.RandomState(3).uniform(-20, 20, 10000).astype(np.float32)
    want = np.exp(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(mx.nd.exp(mx.nd.array(x)).asnumpy(), want)
    inplace = x.copy()
    registry.get('exp')({}).forward(False, ['write'], [inplace], [inplace], [])
    np.testing.assert_array_equal(inplace, want)
