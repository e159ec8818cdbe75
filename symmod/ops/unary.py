"""Unary elementwise math (exp, log, trig, rounding, special functions ...),
hard_sigmoid and clip.

Each operator's gradient is written as MXNet defines it (``abs`` has gradient 0 at 0,
``relu`` has gradient 0 at 0, ``clip`` passes the gradient at its bounds, rounding has
zero gradient). Integer inputs are computed in double precision and truncated back to
the integer dtype, as MXNet's C kernels do; float16 goes through float32 where numpy or
numba lack half-precision loops.
"""
import math

import numpy as np

from ..base import parse_float
from . import special
from .common import store, store_cast, zero_grad
from .elemwise import is_integer, pass_grad
from .registry import Operator, Param, REQUIRED, register

__all__ = ['UnaryMath', 'sigmoid']


# ---- the operator base ----------------------------------------------------------------
class UnaryMath(Operator):
    """Base of ``y = f(x)`` elementwise operators.

    Subclasses set ``compute(x, out=None)`` and ``grad(x, y, dy, out)`` (returns
    ``dy * f'(x)``, written into ``out`` when given), or ``grad = None`` for a zero
    gradient. ``int_native`` marks functions numpy computes right on integers.
    """
    compute = None
    grad = None
    int_native = False
    warns = True        # may hit inf / nan: silence numpy's warnings as MXNet is silent

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        if self.warns:
            with np.errstate(all='ignore'):
                self._forward(in_data[0], out_data[0], req[0])
        else:
            self._forward(in_data[0], out_data[0], req[0])

    def _forward(self, x, out, req):
        if is_integer(x.dtype) and not self.int_native:
            store_cast(out, req, self.compute(x.astype(np.float64)))
        else:
            store(out, req, self.compute, x)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        dst, r = in_grad[0], req[0]
        if self.grad is None:
            zero_grad(dst, r)
            return
        if r == 'null':
            return
        x, y, dy = in_data[0], out_data[0], out_grad[0]
        with np.errstate(all='ignore'):
            if is_integer(dst.dtype):
                value = self.grad(*[None if a is None else a.astype(np.float64)
                                    for a in (x, y, dy)], None)
                store_cast(dst, r, value)
            else:
                store(dst, r, self.grad, x, y, dy)


def _unary(name, aliases, compute, grad, uses, doc, int_native=False, inplace=False,
           warns=True):
    """Declare and register a unary operator; ``uses`` says what its gradient reads."""
    body = {'name': name, 'aliases': aliases, '__doc__': doc,
            'compute': staticmethod(compute),
            'grad': None if grad is None else staticmethod(grad),
            'int_native': int_native, 'warns': warns, 'zero_gradient': grad is None,
            'backward_uses_inputs': uses == 'input',
            'backward_uses_outputs': uses == 'output',
            'inplace': ((0, 0),) if inplace else ()}
    return register(type(name, (UnaryMath,), body))


# ---- forward functions that numpy lacks or computes differently from MXNet ---------------
def relu_values(x, out=None):
    """``max(x, 0)`` with NaN kept (MXNet's relu), in numba for float arrays."""
    if out is not None and special.fusable(out, x):
        return special.relu_forward(x, out)
    return np.maximum(x, 0, out=out)


def sigmoid(x, out=None):
    """The logistic function ``1 / (1 + exp(-x))`` (``exp`` overflows to inf, and the
    result to 0, for very negative x: callers silence numpy's warning)."""
    y = np.negative(x, out=out)
    np.exp(y, out=y)
    y += 1
    return np.reciprocal(y, out=y)


def _exp(x, out=None):
    """``e ** x``; float32 through a float64 loop, correctly rounded like the C library's
    ``expf`` MXNet calls (numpy's float32 SIMD loop is 1 ulp off for ~40% of inputs)."""
    if x.dtype == np.float32:
        if out is None:
            out = np.empty_like(x)
        return np.exp(x, out=out, dtype=np.float64, casting='unsafe')
    return np.exp(x, out=out)


def _softsign(x, out=None):
    denom = np.abs(x)
    denom += 1
    return np.divide(x, denom, out=out)


def _copy(x, out=None):
    if out is None:
        return x.copy()
    np.copyto(out, x)
    return out


def _sign(x, out=None):
    # MXNet's sign(NaN) is 0 (numpy's is NaN); ``out`` may be ``x`` (in place)
    negative = np.less(x, 0)
    result = np.greater(x, 0, out=out) if out is not None else np.greater(x, 0).astype(x.dtype)
    result -= negative
    return result


def _round(x, out=None):
    # halves go away from zero (C round), not to even as numpy's round does
    if is_integer(x.dtype):
        return _copy(x, out)
    whole = np.trunc(x)
    away = np.abs(x - whole) >= 0.5
    return np.add(whole, np.copysign(away, x).astype(x.dtype), out=out)


def _rint(x, out=None):
    # MXNet's rint takes the floor on ties (rint(2.5) = 2, rint(-0.5) = -1)
    if is_integer(x.dtype):
        return _copy(x, out)
    low, high = np.floor(x), np.ceil(x)
    np.copyto(high, low, where=(x - low) <= (high - x))
    return high if out is None else _copy(high, out)


def _rounding(ufunc):
    def compute(x, out=None):
        return _copy(x, out) if is_integer(x.dtype) else ufunc(x, out=out)
    return compute


def _reciprocal_of(ufunc):
    def compute(x, out=None):
        y = ufunc(x, out=out)
        return np.reciprocal(y, out=y)
    return compute


def _scaled(factor):
    def compute(x, out=None):
        return np.multiply(x, factor, out=out)
    return compute


def _logical_not(x, out=None):
    return np.equal(x, 0, out=out) if out is not None else np.equal(x, 0).astype(x.dtype)


# MXNet computes these constants in single precision ('180.0f / PI')
_DEGREES = float(np.float32(180.0) / np.float32(math.pi))
_RADIANS = float(np.float32(math.pi) / np.float32(180.0))


# ---- gradient functions: g(x, y, dy, out) = dy * f'(x) --------------------------------
def _g_negative(x, y, dy, out):
    return np.negative(dy, out=out)


def _times(derivative, source):
    """Gradient ``dy * derivative(v)`` with ``v`` the input ('x') or the output ('y')."""
    def grad(x, y, dy, out):
        value = derivative(x if source == 'x' else y, out)
        value *= dy
        return value
    return grad


def _over(denominator, source, negate=False):
    """Gradient ``dy / denominator(v)`` (negated when ``negate``)."""
    def grad(x, y, dy, out):
        value = denominator(x if source == 'x' else y, out)
        np.divide(dy, value, out=value)
        return np.negative(value, out=value) if negate else value
    return grad


def _g_relu(x, y, dy, out):
    if out is not None and special.fusable(out, y, dy):
        return special.relu_backward(y, dy, out)
    value = np.sign(y, out=out)       # 1 above 0, 0 at 0, NaN stays NaN
    value *= dy
    return value


def _g_abs(x, y, dy, out):
    if out is not None and special.fusable(out, x, dy):
        return special.sign_times(x, dy, out)
    value = _sign(x, out)
    value *= dy
    return value


def _d_sigmoid(y, out):
    value = np.subtract(1, y, out=out)
    value *= y
    return value


def _den_softsign(x, out):
    value = np.abs(x, out=out)
    value += 1
    return np.square(value, out=value)


def _d_twice(x, out):
    return np.multiply(x, 2, out=out)


def _d_half_over(y, out):
    return np.divide(0.5, y, out=out)


def _den_rsqrt(x, out):
    value = np.sqrt(x, out=out)
    value *= x
    return np.multiply(value, -2, out=value)


def _den_cbrt(y, out):
    value = np.square(y, out=out)
    return np.multiply(value, 3, out=value)


def _den_rcbrt(x, out):
    value = np.cbrt(x, out=out)
    value *= x
    return np.multiply(value, 3, out=value)


def _d_constant(factor):
    def derivative(v, out):
        if out is None:
            return np.full(v.shape, factor, v.dtype)
        out.fill(factor)
        return out
    return derivative


def _den_one_plus(x, out):
    return np.add(x, 1, out=out)


def _one_minus_square(x, out):
    value = np.square(x, out=out)
    return np.subtract(1, value, out=value)


def _one_plus_square(x, out):
    value = np.square(x, out=out)
    value += 1
    return value


def _den_sqrt_one_minus_square(x, out):
    value = _one_minus_square(x, out)
    return np.sqrt(value, out=value)


def _den_sqrt_square_minus_one(x, out):
    value = np.square(x, out=out)
    value -= 1
    return np.sqrt(value, out=value)


def _den_hypot_one(x, out):
    return np.hypot(x, 1, out=out)


def _d_neg_sin(x, out):
    value = np.sin(x, out=out)
    return np.negative(value, out=value)


def _d_erf(x, out):
    value = np.square(x, out=out)
    np.negative(value, out=value)
    np.exp(value, out=value)
    return np.multiply(value, 2.0 / math.sqrt(math.pi), out=value)


def _d_erfinv(y, out):
    value = np.square(y, out=out)
    np.exp(value, out=value)
    return np.multiply(value, 0.5 * math.sqrt(math.pi), out=value)


def _d_gamma(x, out):
    value = special.gamma(x, out=out)
    value *= special.digamma(x)
    return value


def _den_square(x, out):
    return np.square(x, out=out)


def _den_times(factor):
    def denominator(x, out):
        return np.multiply(x, factor, out=out)
    return denominator


def _d_ufunc(ufunc):
    def derivative(v, out):
        return ufunc(v, out=out)
    return derivative


# ---- the operators --------------------------------------------------------------------
_unary('relu', ('_sparse_relu',), relu_values, _g_relu, 'output',
       'Rectified linear unit: ``max(x, 0)``.', int_native=True, inplace=True, warns=False)
_unary('sigmoid', ('_sparse_sigmoid',), sigmoid, _times(_d_sigmoid, 'y'), 'output',
       'Logistic sigmoid: ``1 / (1 + exp(-x))``.', inplace=True)
_unary('softsign', (), _softsign, _over(_den_softsign, 'x'), 'input',
       'Softsign: ``x / (1 + |x|)``.')
_unary('_copy', ('identity',), _copy, pass_grad, None, 'Returns a copy of the input.',
       int_native=True, inplace=True, warns=False)
_unary('negative', ('_sparse_negative',), np.negative, _g_negative, None,
       'Numerical negative: ``-x``.', int_native=True, inplace=True, warns=False)
_unary('reciprocal', (), np.reciprocal, _over(_den_square, 'x', negate=True), 'input',
       'Reciprocal: ``1 / x``.')
_unary('abs', ('_sparse_abs',), np.abs, _g_abs, 'input',
       'Absolute value (gradient 0 at 0).', int_native=True, warns=False)
_unary('sign', ('_sparse_sign',), _sign, None, 'input',
       'Sign: -1, 0 or 1 (0 for NaN); zero gradient.', int_native=True, warns=False)
_unary('round', ('_sparse_round',), _round, None, None,
       'Rounds to the nearest integer, halves away from zero; zero gradient.',
       int_native=True, warns=False)
_unary('rint', ('_sparse_rint',), _rint, None, None,
       'Rounds to the nearest integer, halves toward minus infinity; zero gradient.',
       int_native=True, warns=False)
_unary('ceil', ('_sparse_ceil',), _rounding(np.ceil), None, None,
       'Ceiling: the smallest integer >= x; zero gradient.', int_native=True, inplace=True,
       warns=False)
_unary('floor', ('_sparse_floor',), _rounding(np.floor), None, None,
       'Floor: the largest integer <= x; zero gradient.', int_native=True, inplace=True,
       warns=False)
_unary('trunc', ('_sparse_trunc',), _rounding(np.trunc), None, None,
       'Truncates toward zero; zero gradient.', int_native=True, inplace=True, warns=False)
_unary('fix', ('_sparse_fix',), _rounding(np.trunc), None, None,
       'Rounds toward zero; zero gradient.', int_native=True, inplace=True, warns=False)
_unary('square', ('_sparse_square',), np.square, _times(_d_twice, 'x'), 'input',
       'Square: ``x * x``.', int_native=True)
_unary('sqrt', ('_sparse_sqrt',), np.sqrt, _times(_d_half_over, 'y'), 'output',
       'Square root.', inplace=True)
_unary('rsqrt', ('_sparse_rsqrt',), _reciprocal_of(np.sqrt), _over(_den_rsqrt, 'x'), 'input',
       'Reciprocal square root: ``1 / sqrt(x)``.')
_unary('cbrt', ('_sparse_cbrt',), np.cbrt, _over(_den_cbrt, 'y'), 'output', 'Cube root.',
       inplace=True)
_unary('rcbrt', (), _reciprocal_of(np.cbrt), _over(_den_rcbrt, 'x', negate=True), 'input',
       'Reciprocal cube root: ``1 / cbrt(x)``.')
_unary('exp', ('_sparse_exp',), _exp, _times(_copy, 'y'), 'output',
       'Exponential: ``e ** x``.', inplace=True)
_unary('log', ('_sparse_log',), np.log, _over(_copy, 'x'), 'input', 'Natural logarithm.')
_unary('log10', ('_sparse_log10',), np.log10, _over(_den_times(math.log(10.0)), 'x'), 'input',
       'Base-10 logarithm.')
_unary('log2', ('_sparse_log2',), np.log2, _over(_den_times(math.log(2.0)), 'x'), 'input',
       'Base-2 logarithm.')
_unary('log1p', ('_sparse_log1p',), np.log1p, _over(_den_one_plus, 'x'), 'input',
       '``log(1 + x)``, accurate for small x.')
_unary('expm1', ('_sparse_expm1',), np.expm1, _times(_d_ufunc(np.exp), 'x'), 'input',
       '``exp(x) - 1``, accurate for small x.')
_unary('sin', ('_sparse_sin',), np.sin, _times(_d_ufunc(np.cos), 'x'), 'input', 'Sine.')
_unary('cos', ('_sparse_cos',), np.cos, _times(_d_neg_sin, 'x'), 'input', 'Cosine.')
_unary('tan', ('_sparse_tan',), np.tan, _times(_one_plus_square, 'y'), 'output', 'Tangent.',
       inplace=True)
_unary('arcsin', ('_sparse_arcsin',), np.arcsin, _over(_den_sqrt_one_minus_square, 'x'),
       'input', 'Inverse sine.')
_unary('arccos', ('_sparse_arccos',), np.arccos,
       _over(_den_sqrt_one_minus_square, 'x', negate=True), 'input', 'Inverse cosine.')
_unary('arctan', ('_sparse_arctan',), np.arctan, _over(_one_plus_square, 'x'), 'input',
       'Inverse tangent.')
_unary('degrees', ('_sparse_degrees',), _scaled(_DEGREES), _times(_d_constant(_DEGREES), 'x'),
       None, 'Converts radians to degrees.')
_unary('radians', ('_sparse_radians',), _scaled(_RADIANS), _times(_d_constant(_RADIANS), 'x'),
       None, 'Converts degrees to radians.')
_unary('sinh', ('_sparse_sinh',), np.sinh, _times(_d_ufunc(np.cosh), 'x'), 'input',
       'Hyperbolic sine.')
_unary('cosh', ('_sparse_cosh',), np.cosh, _times(_d_ufunc(np.sinh), 'x'), 'input',
       'Hyperbolic cosine.')
_unary('tanh', ('_sparse_tanh',), np.tanh, _times(_one_minus_square, 'y'), 'output',
       'Hyperbolic tangent.', inplace=True)
_unary('arcsinh', ('_sparse_arcsinh',), np.arcsinh, _over(_den_hypot_one, 'x'), 'input',
       'Inverse hyperbolic sine.')
_unary('arccosh', ('_sparse_arccosh',), np.arccosh, _over(_den_sqrt_square_minus_one, 'x'),
       'input', 'Inverse hyperbolic cosine.')
_unary('arctanh', ('_sparse_arctanh',), np.arctanh, _over(_one_minus_square, 'x'), 'input',
       'Inverse hyperbolic tangent.')
_unary('erf', ('_npx_erf',), special.erf, _times(_d_erf, 'x'), 'input', 'Gauss error function.')
_unary('erfinv', ('_npx_erfinv',), special.erfinv, _times(_d_erfinv, 'y'), 'output',
       'Inverse error function.')
_unary('gamma', ('_npx_gamma', '_sparse_gamma'), special.gamma, _times(_d_gamma, 'x'), 'input',
       'Gamma function.')
_unary('gammaln', ('_npx_gammaln', '_sparse_gammaln'), special.gammaln,
       _times(special.digamma, 'x'), 'input',
       'Log of the absolute value of the gamma function.')
_unary('logical_not', (), _logical_not, None, None,
       '1 where x is 0 else 0, in the input dtype; zero gradient.', int_native=True,
       inplace=True, warns=False)


# ---- unary operators with parameters ------------------------------------------------------
def _single(value):
    """A float parameter as MXNet holds it (C float, 'real_t')."""
    return float(np.float32(value))


@register
class HardSigmoid(Operator):
    """Hard sigmoid: ``clip(alpha * x + beta, 0, 1)``.

    Parameters
    ----------
    alpha : float, default 0.2
        Slope.
    beta : float, default 0.5
        Offset.

    Examples
    --------
    >>> mx.nd.hard_sigmoid(mx.nd.array([-3, 0, 1])).asnumpy()
    array([0. , 0.5, 0.7], dtype=float32)
    """
    name = 'hard_sigmoid'
    params = (Param('alpha', parse_float, 0.2, 'Slope of hard sigmoid.'),
              Param('beta', parse_float, 0.5, 'Bias of hard sigmoid.'))
    backward_uses_outputs = False

    def _line(self, x, out=None):
        value = np.multiply(x, _single(self.alpha), out=out)
        value += _single(self.beta)
        return value

    def forward(self, is_train, req, in_data, out_data, aux):
        def compute(x, out=None):
            value = self._line(x, out)
            return np.clip(value, 0, 1, out=value)
        store(out_data[0], req[0], compute, in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        def grad(x, dy, out=None):
            line = self._line(x)
            inside = (line > 0) & (line < 1)
            return np.multiply(dy, inside * np.asarray(_single(self.alpha), dy.dtype), out=out)
        store(in_grad[0], req[0], grad, in_data[0], out_grad[0])


@register
class Clip(Operator):
    """Clips values to ``[a_min, a_max]``; the gradient passes where
    ``a_min <= x <= a_max`` (bounds included) and is 0 outside.

    Parameters
    ----------
    a_min : float
        Minimum value.
    a_max : float
        Maximum value.

    Examples
    --------
    >>> mx.nd.clip(mx.nd.array([0, 1, 5, 9]), 1, 8).asnumpy()
    array([1., 1., 5., 8.], dtype=float32)
    """
    name = 'clip'
    aliases = ('_npi_clip', '_sparse_clip')
    params = (Param('a_min', parse_float, REQUIRED, 'Minimum value.'),
              Param('a_max', parse_float, REQUIRED, 'Maximum value.'))
    backward_uses_outputs = False

    def check_params(self):
        # MXNet keeps the bounds in single precision
        self._lo, self._hi = _single(self.a_min), _single(self.a_max)

    def forward(self, is_train, req, in_data, out_data, aux):
        x, out = in_data[0], out_data[0]
        if req[0] == 'null':
            return
        if is_integer(x.dtype):
            store_cast(out, req[0], np.clip(x.astype(np.float64), self._lo, self._hi))
        else:
            store(out, req[0], np.clip, x, self._lo, self._hi)

    def _grad(self, x, dy, out=None):
        if out is not None and special.fusable(out, x, dy):
            return special.clip_backward(x, dy, self._lo, self._hi, out)
        outside = np.greater(x, self._hi)
        outside |= np.less(x, self._lo)
        value = _copy(dy, out)
        np.copyto(value, 0, where=outside)
        return value

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        store(in_grad[0], req[0], self._grad, in_data[0], out_grad[0])


