"""BatchNorm's per-channel passes as numba kernels (float32 and float64 data).

Data are viewed as ``(outer, channels, inner)`` around the channel axis. Each kernel is
one ``prange`` loop over channels that reads the data once or twice and writes once:

* :func:`moments`: batch mean and biased variance in one pass (sums of ``x - x0`` and
  its square in float64, ``x0`` the channel's first value, so that no precision is lost
  to a large mean);
* :func:`affine`: ``out (=|+=) (x - mean) * scale + shift``, or with ``relu`` its
  positive part (a BatchNorm fused with the relu that alone reads it);
* :func:`grad_sums`: ``sum(dy)`` and ``sum((x - mean) * dy)`` in float64;
* :func:`grad_affine`: ``dx (=|+=) dy * a + (x - mean) * b + c``, the data gradient
  with its per-channel coefficients folded in;
* :func:`relu_grad_sums`, :func:`relu_grad_affine`: the same two passes for the fused
  BatchNorm and relu, ``dy`` being the relu's output gradient where its output ``z`` is
  positive and zero elsewhere (read, never stored).

Subtracting the mean before scaling (as MXNet's kernels do) keeps float32 results exact
to their precision when the mean is large against the spread.
"""
import numba
import numpy as np
from numba import prange

__all__ = ['supports', 'moments', 'affine', 'grad_sums', 'grad_affine', 'relu_grad_sums',
           'relu_grad_affine']

# fast math without 'nnan' / 'ninf': the sums may be reordered (vectorized), but NaN
# tests (the fused relu keeps NaN) are not optimized away
_FAST = {'reassoc', 'contract', 'arcp', 'nsz', 'afn'}
_jit = dict(cache=True, nogil=True, error_model='numpy', parallel=True, fastmath=_FAST)


def supports(*arrays):
    """Whether the kernels handle these arrays (float32/float64, C-contiguous)."""
    return all(a.dtype in (np.float32, np.float64) and a.flags.c_contiguous for a in arrays)


@numba.njit(**_jit)
def moments(x, mean, var):
    outer, channels, inner = x.shape
    count = outer * inner
    for c in prange(channels):
        shift = np.float64(x[0, c, 0])
        s1 = 0.0
        s2 = 0.0
        for o in range(outer):
            row = x[o, c]
            for i in range(inner):
                d = np.float64(row[i]) - shift
                s1 += d
                s2 += d * d
        m = s1 / count
        mean[c] = shift + m
        var[c] = max(s2 / count - m * m, 0.0)


@numba.njit(**_jit)
def affine(x, mean, scale, shift, out, add, relu=False):
    outer, channels, inner = x.shape
    zero = x.dtype.type(0)
    for c in prange(channels):
        m = x.dtype.type(mean[c])
        a = x.dtype.type(scale[c])
        b = x.dtype.type(shift[c])
        for o in range(outer):
            src = x[o, c]
            dst = out[o, c]
            if relu:
                for i in range(inner):
                    v = (src[i] - m) * a + b
                    dst[i] = v if v > 0 or v != v else zero     # NaN stays, as relu's
            elif add:
                for i in range(inner):
                    dst[i] += (src[i] - m) * a + b
            else:
                for i in range(inner):
                    dst[i] = (src[i] - m) * a + b


@numba.njit(**_jit)
def grad_sums(x, dy, mean, sum_dy, dot):
    outer, channels, inner = x.shape
    for c in prange(channels):
        m = np.float64(mean[c])
        s = 0.0
        d = 0.0
        for o in range(outer):
            xr = x[o, c]
            gr = dy[o, c]
            for i in range(inner):
                g = np.float64(gr[i])
                s += g
                d += (np.float64(xr[i]) - m) * g
        sum_dy[c] = s
        dot[c] = d


@numba.njit(**_jit)
def grad_affine(x, dy, mean, a, b, c0, dx, add):
    outer, channels, inner = x.shape
    for c in prange(channels):
        m = x.dtype.type(mean[c])
        ca = x.dtype.type(a[c])
        cb = x.dtype.type(b[c])
        cc = x.dtype.type(c0[c])
        for o in range(outer):
            xr = x[o, c]
            gr = dy[o, c]
            dst = dx[o, c]
            if add:
                for i in range(inner):
                    dst[i] += gr[i] * ca + (xr[i] - m) * cb + cc
            else:
                for i in range(inner):
                    dst[i] = gr[i] * ca + (xr[i] - m) * cb + cc


@numba.njit(**_jit)
def relu_grad_sums(x, dz, z, mean, sum_dy, dot):
    """:func:`grad_sums` of ``dy = dz * (z > 0)``."""
    outer, channels, inner = x.shape
    for c in prange(channels):
        m = np.float64(mean[c])
        s = 0.0
        d = 0.0
        for o in range(outer):
            xr = x[o, c]
            gr = dz[o, c]
            zr = z[o, c]
            for i in range(inner):
                g = np.float64(gr[i]) if zr[i] > 0 else 0.0
                s += g
                d += (np.float64(xr[i]) - m) * g
        sum_dy[c] = s
        dot[c] = d


@numba.njit(**_jit)
def relu_grad_affine(x, dz, z, mean, a, b, c0, dx, add):
    """:func:`grad_affine` of ``dy = dz * (z > 0)``."""
    outer, channels, inner = x.shape
    zero = x.dtype.type(0)
    for c in prange(channels):
        m = x.dtype.type(mean[c])
        ca = x.dtype.type(a[c])
        cb = x.dtype.type(b[c])
        cc = x.dtype.type(c0[c])
        for o in range(outer):
            xr = x[o, c]
            gr = dz[o, c]
            zr = z[o, c]
            dst = dx[o, c]
            if add:
                for i in range(inner):
                    g = gr[i] if zr[i] > 0 else zero
                    dst[i] += g * ca + (xr[i] - m) * cb + cc
            else:
                for i in range(inner):
                    g = gr[i] if zr[i] > 0 else zero
                    dst[i] = g * ca + (xr[i] - m) * cb + cc
