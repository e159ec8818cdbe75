"""Numba kernels for the elementwise operators: special functions numpy lacks (erf,
erfinv, gamma, lgamma, digamma) and fused loops for gradients that numpy would need
several passes and temporaries for (relu, abs, clip, where).

The fused kernels take flat contiguous float32 / float64 arrays (``fusable`` says when
they apply) and keep the arithmetic in the array's precision.
"""
import math

import numba
import numpy as np

__all__ = ['erf', 'erfinv', 'gamma', 'gammaln', 'digamma', 'fusable', 'relu_forward',
           'relu_backward', 'sign_times', 'clip_backward', 'where_forward', 'where_backward']

_JIT = dict(cache=True, error_model='numpy')


# ---- special functions (numpy has none of them; numba runs the scalar code) -------------
@numba.njit(**_JIT)
def _digamma_scalar(x):
    if x <= 0.0 and x == math.floor(x):
        return math.inf      # pole
    result = 0.0
    if x < 0.0:              # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
        result -= math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 10.0:          # recurrence: psi(x) = psi(x + 1) - 1 / x
        result -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (
        1.0 / 240 - inv2 * (1.0 / 132)))))
    return result + math.log(x) - 0.5 / x - series


@numba.njit(**_JIT)
def _erfinv_scalar(y):
    if not -1.0 < y < 1.0:
        if y == 1.0:
            return math.inf
        if y == -1.0:
            return -math.inf
        return math.nan
    if abs(y) < 1e-7:        # erf(x) ~ 2 x / sqrt(pi) near 0
        return y * 0.88622692545275801365
    # Giles' single-precision approximation as the starting point ...
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
            p = c + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
            p = c + p * w
    x = p * y
    # ... then Halley steps on erf(x) = y; near +-1 the residual comes from erfc to keep
    # its relative precision
    ay = abs(y)
    for _ in range(3):
        if ay <= 0.5:
            err = math.erf(x) - y
        else:
            err = (1.0 - ay) - math.erfc(abs(x))
            if y < 0.0:
                err = -err
        slope = 1.1283791670955126 * math.exp(-x * x)
        if slope == 0.0:
            break
        x -= err / (slope * (1.0 + x * err))
    return x


@numba.vectorize(cache=True)
def _erf_kernel(x):
    return math.erf(x)


@numba.vectorize(cache=True)
def _erfinv_kernel(x):
    return _erfinv_scalar(x)


@numba.vectorize(cache=True)
def _gamma_kernel(x):
    return math.gamma(x)


@numba.vectorize(cache=True)
def _gammaln_kernel(x):
    return math.lgamma(x)


@numba.vectorize(cache=True)
def _digamma_kernel(x):
    return _digamma_scalar(x)


def _special(kernel, doc):
    """Wrap a numba ufunc so that it accepts ``out=`` and float16 (through float32)."""
    def apply(x, out=None):
        if x.dtype == np.float16:
            value = kernel(x.astype(np.float32))
            if out is None:
                return value.astype(np.float16)
            np.copyto(out, value, casting='unsafe')
            return out
        return kernel(x) if out is None else kernel(x, out=out)
    apply.__doc__ = doc
    return apply


erf = _special(_erf_kernel, 'The Gauss error function, elementwise.')
erfinv = _special(_erfinv_kernel, 'The inverse error function, elementwise (+-inf at +-1).')
gamma = _special(_gamma_kernel, 'The gamma function, elementwise.')
gammaln = _special(_gammaln_kernel, 'log |gamma(x)|, elementwise.')
digamma = _special(_digamma_kernel, 'The digamma function psi = d/dx log gamma(x).')


# ---- fused loops ------------------------------------------------------------------------
_FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def fusable(out, *arrays):
    """Whether the fused kernels apply: float32/float64 arrays and a contiguous ``out``."""
    return out.size > 0 and out.flags.c_contiguous and out.dtype in _FAST_DTYPES and \
        all(a.dtype == out.dtype for a in arrays)


def _flat(a):
    return a.reshape(-1)


@numba.njit(**_JIT)
def _relu_forward(x, out):
    for i in range(x.size):
        v = x[i]
        if v > 0 or v != v:     # NaN passes through, as in MXNet
            out[i] = v
        else:
            out[i] = 0


@numba.njit(**_JIT)
def _relu_backward(y, dy, out):
    for i in range(y.size):
        v = y[i]
        if v > 0:
            out[i] = dy[i]
        elif v != v:
            out[i] = v
        else:
            out[i] = dy[i] * 0


@numba.njit(**_JIT)
def _sign_times(x, dy, out):
    for i in range(x.size):
        v = x[i]
        if v > 0:
            out[i] = dy[i]
        elif v < 0:
            out[i] = -dy[i]
        else:                   # 0 and NaN: MXNet's sign gives 0
            out[i] = dy[i] * 0


@numba.njit(**_JIT)
def _clip_backward(x, dy, lo, hi, out):
    for i in range(x.size):
        v = x[i]
        out[i] = 0 if (v > hi or v < lo) else dy[i]


@numba.njit(**_JIT)
def _where_forward(cond, x, y, inner, out):
    for i in range(out.size):
        out[i] = x[i] if cond[i // inner] != 0 else y[i]


@numba.njit(**_JIT)
def _where_backward(cond, dy, inner, take, out):
    for i in range(out.size):
        out[i] = dy[i] if (cond[i // inner] != 0) == take else 0


# arrays from this size are cut into blocks over numba's threads (sized by symmod.threads
# to the machine's load); each element is computed alone, so any thread count gives the
# same values
PARALLEL_MIN = 1 << 16
BLOCK = 1 << 14


@numba.njit(parallel=True, **_JIT)
def _relu_blocks(x, out):
    for b in numba.prange(-(-x.size // BLOCK)):
        lo, hi = b * BLOCK, min(x.size, (b + 1) * BLOCK)
        _relu_forward(x[lo:hi], out[lo:hi])


def relu_forward(x, out):
    """``out = max(x, 0)`` (NaN stays NaN)."""
    if x.size >= PARALLEL_MIN:
        _relu_blocks(_flat(x), _flat(out))
    else:
        _relu_forward(_flat(x), _flat(out))
    return out


def relu_backward(y, dy, out):
    """``out = dy * relu'(x)`` from the output ``y``: ``dy`` where ``y > 0``, else 0."""
    _relu_backward(_flat(y), _flat(dy), _flat(out))
    return out


def sign_times(x, dy, out):
    """``out = dy * sign(x)`` with MXNet's sign (0 at 0 and NaN): the gradient of abs."""
    _sign_times(_flat(x), _flat(dy), _flat(out))
    return out


def clip_backward(x, dy, lo, hi, out):
    """``out = dy`` where ``lo <= x <= hi`` (or x is NaN), else 0."""
    _clip_backward(_flat(x), _flat(dy), out.dtype.type(lo), out.dtype.type(hi), _flat(out))
    return out


def where_forward(cond, x, y, out):
    """``out = x`` where ``cond != 0`` else ``y``; ``cond`` may hold one value per row."""
    _where_forward(_flat(cond), _flat(x), _flat(y), out.size // cond.size, _flat(out))
    return out


def where_backward(cond, dy, take, out):
    """``out = dy`` where ``(cond != 0) == take`` else 0 (per row for a vector ``cond``)."""
    _where_backward(_flat(cond), _flat(dy), out.size // cond.size, take, _flat(out))
    return out
