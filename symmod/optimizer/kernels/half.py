"""float16 storage for CPU kernels, and typed element load/store.

numba has no float16 arithmetic on the CPU, so float16 arrays reach the kernels as
``uint16`` views of the same memory. :func:`load` widens an element to float32 and
:func:`store` rounds a value back to float16 (round half to even, as numpy does);
for float32 and float64 arrays both are plain element accesses. Kernels written with
``load``/``store`` therefore serve every storage type with one source.
"""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

# 2**(e - 25) for a biased float16 exponent e: (1024 + mantissa) * this is the value.
_SCALE = np.array([2.0 ** (e - 25) for e in range(32)], dtype=np.float32)
_SUBNORMAL = np.float32(2.0 ** -24)
_TWO24 = np.float32(2.0 ** 24)
_TWO11 = np.float32(2048.0)
_MIN_NORMAL = np.float32(2.0 ** -14)
_OVERFLOW = np.float32(65520.0)   # halfway between float16 max (65504) and 2**16


@njit(cache=True, error_model='numpy')
def half_to_float(h):
    """The float32 value of float16 bits ``h`` (exact)."""
    bits = np.int32(h)
    exponent = (bits >> 10) & 31
    mantissa = bits & 1023
    if exponent == 0:
        value = np.float32(mantissa) * _SUBNORMAL
    elif exponent == 31:
        value = np.float32(np.inf) if mantissa == 0 else np.float32(np.nan)
    else:
        value = np.float32(1024 + mantissa) * _SCALE[exponent]
    return -value if bits & 0x8000 else value


@njit(cache=True, error_model='numpy')
def float_to_half(x):
    """float16 bits of float32 ``x``, rounded half to even."""
    if x != x:
        return np.uint16(0x7e00)
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    a = abs(np.float32(x))
    if a >= _OVERFLOW:
        return np.uint16(sign | 0x7c00)
    if a < _MIN_NORMAL:   # subnormal (or zero); 1024 lands on the smallest normal
        return np.uint16(sign | np.int32(np.rint(a * _TWO24)))
    frac, exp2 = math.frexp(a)             # a = frac * 2**exp2, frac in [0.5, 1)
    q = np.int32(np.rint(np.float32(frac) * _TWO11))   # 11 significant bits
    biased = exp2 + 14
    if q == 2048:
        q = 1024
        biased += 1
    if biased >= 31:
        return np.uint16(sign | 0x7c00)
    return np.uint16(sign | (biased << 10) | (q - 1024))


def load(a, i):
    """Element ``i`` of ``a`` in its compute type (float16-as-uint16 widens to float32)."""
    if a.dtype == np.uint16:
        return np.float32(a.view(np.float16)[i])
    return a[i]


def store(a, i, value):
    """Write ``value`` into element ``i`` of ``a`` (rounding to float16 for uint16 views)."""
    if a.dtype == np.uint16:
        a.view(np.float16)[i] = value
    else:
        a[i] = value


@overload(load, inline='always')
def _load_impl(a, i):
    if isinstance(a, types.Array) and a.dtype == types.uint16:
        return lambda a, i: half_to_float(a[i])
    return lambda a, i: a[i]


@overload(store, inline='always')
def _store_impl(a, i, value):
    if isinstance(a, types.Array) and a.dtype == types.uint16:
        def store_half(a, i, value):
            a[i] = float_to_half(np.float32(value))
        return store_half

    def store_plain(a, i, value):
        a[i] = value
    return store_plain
