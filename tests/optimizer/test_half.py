"""float16 storage in CPU kernels: the bit conversions are exact and round like numpy."""
import numpy as np
from numba import njit

from symmod.optimizer.kernels import half


@njit
def _widen(bits, out):
    for i in range(bits.size):
        out[i] = half.half_to_float(bits[i])


@njit
def _narrow(values, out):
    for i in range(values.size):
        out[i] = half.float_to_half(values[i])


def test_every_float16_widens_exactly():
    bits = np.arange(1 << 16, dtype=np.uint16)
    out = np.empty(bits.size, np.float32)
    _widen(bits, out)
    expected = bits.view(np.float16).astype(np.float32)
    nan = np.isnan(expected)
    np.testing.assert_array_equal(out[~nan].view(np.uint32), expected[~nan].view(np.uint32))
    assert np.isnan(out[nan]).all()


def test_narrowing_rounds_like_numpy():
    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float32)
    halves = halves[np.isfinite(halves)]
    rng = np.random.default_rng(0)
    values = np.concatenate([
        halves, (halves[:-1] + halves[1:]) / 2,                  # ties: round half to even
        np.nextafter(halves, np.float32(np.inf)), np.nextafter(halves, -np.float32(np.inf)),
        rng.standard_normal(100_000).astype(np.float32) * 1e-6,  # subnormal range
        np.float32([65504, 65519.99, 65520, 1e9, -1e9, np.inf, -np.inf, -0.0])])
    out = np.empty(values.size, np.uint16)
    _narrow(values, out)
    with np.errstate(over='ignore'):
        expected = values.astype(np.float16).view(np.uint16)
    np.testing.assert_array_equal(out, expected)
    nan = np.empty(1, np.uint16)
    _narrow(np.float32([np.nan]), nan)
    assert np.isnan(nan.view(np.float16)[0])
