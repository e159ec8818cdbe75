"""BatchNorm's per-channel passes as numba kernels (float32 and float64 data).

Data are viewed as ``(outer, channels, inner)`` around the channel axis. Each pass
reads the data once or twice and writes once:

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

How the threads share the work follows the shape, never the thread count, so the bits
are the same at any width. With at least :data:`GROUP` * 2 samples (``outer``) the passes
split the *samples*: the convolutions before and after a BatchNorm split their batch the
same way, so each thread mostly reads what its own core wrote (on this project's 2-core
machines a channel split read half of every channel from the other core's cache, and
BatchNorm got slower at two threads than at one). The sums then add up per row, per
group of :data:`GROUP` samples, and the groups in order. Smaller batches split the
channels, each channel's sums on one thread.
"""
import numba
import numpy as np
from numba import prange

__all__ = ['GROUP', 'supports', 'moments', 'affine', 'grad_sums', 'grad_affine',
           'relu_grad_sums', 'relu_grad_affine']

# fast math without 'nnan' / 'ninf': the sums may be reordered (vectorized), but NaN
# tests (the fused relu keeps NaN) are not optimized away
_FAST = {'reassoc', 'contract', 'arcp', 'nsz', 'afn'}
_jit = dict(cache=True, nogil=True, error_model='numpy', parallel=True, fastmath=_FAST)

GROUP = 8
"""Samples per partial sum when the samples are split (a constant: the bits of the sums
must not depend on how many threads there are)."""


def supports(*arrays):
    """Whether the kernels handle these arrays (float32/float64, C-contiguous)."""
    return all(a.dtype in (np.float32, np.float64) and a.flags.c_contiguous for a in arrays)


@numba.njit(**_jit)
def _moments_by_channel(x, mean, var):
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
def _affine_by_channel(x, mean, scale, shift, out, add, relu=False):
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
def _grad_sums_by_channel(x, dy, mean, sum_dy, dot):
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
def _grad_affine_by_channel(x, dy, mean, a, b, c0, dx, add):
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
def _relu_grad_sums_by_channel(x, dz, z, mean, sum_dy, dot):
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
def _relu_grad_affine_by_channel(x, dz, z, mean, a, b, c0, dx, add):
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


# ---- the sample split (see the module's docstring) ----------------------------------------
@numba.njit(**_jit)
def _moments_by_sample(x, mean, var):
    outer, channels, inner = x.shape
    groups = -(-outer // GROUP)
    shift = np.empty(channels)
    for c in range(channels):
        shift[c] = x[0, c, 0]
    part = np.zeros((groups, 2, channels))
    for g in prange(groups):
        for o in range(g * GROUP, min(outer, (g + 1) * GROUP)):
            for c in range(channels):
                row = x[o, c]
                x0 = shift[c]
                s1 = 0.0
                s2 = 0.0
                for i in range(inner):
                    d = np.float64(row[i]) - x0
                    s1 += d
                    s2 += d * d
                part[g, 0, c] += s1
                part[g, 1, c] += s2
    count = outer * inner
    for c in range(channels):
        s1 = 0.0
        s2 = 0.0
        for g in range(groups):
            s1 += part[g, 0, c]
            s2 += part[g, 1, c]
        m = s1 / count
        mean[c] = shift[c] + m
        var[c] = max(s2 / count - m * m, 0.0)


@numba.njit(**_jit)
def _affine_by_sample(x, mean, scale, shift, out, add, relu):
    outer, channels, inner = x.shape
    zero = x.dtype.type(0)
    for o in prange(outer):
        for c in range(channels):
            m = x.dtype.type(mean[c])
            a = x.dtype.type(scale[c])
            b = x.dtype.type(shift[c])
            src = x[o, c]
            dst = out[o, c]
            if relu:
                for i in range(inner):
                    dst[i] = max((src[i] - m) * a + b, zero)
            elif add:
                for i in range(inner):
                    dst[i] += (src[i] - m) * a + b
            else:
                for i in range(inner):
                    dst[i] = (src[i] - m) * a + b


@numba.njit(**_jit)
def _grad_sums_by_sample(x, dy, z, masked, mean, sum_dy, dot):
    """With ``masked``, ``dy`` counts only where ``z > 0``."""
    outer, channels, inner = x.shape
    groups = -(-outer // GROUP)
    part = np.zeros((groups, 2, channels))
    for g in prange(groups):
        for o in range(g * GROUP, min(outer, (g + 1) * GROUP)):
            for c in range(channels):
                m = np.float64(mean[c])
                xr = x[o, c]
                gr = dy[o, c]
                zr = z[o, c]
                s = 0.0
                d = 0.0
                if masked:
                    for i in range(inner):
                        v = np.float64(gr[i]) if zr[i] > 0 else 0.0
                        s += v
                        d += (np.float64(xr[i]) - m) * v
                else:
                    for i in range(inner):
                        v = np.float64(gr[i])
                        s += v
                        d += (np.float64(xr[i]) - m) * v
                part[g, 0, c] += s
                part[g, 1, c] += d
    for c in range(channels):
        s = 0.0
        d = 0.0
        for g in range(groups):
            s += part[g, 0, c]
            d += part[g, 1, c]
        sum_dy[c] = s
        dot[c] = d


@numba.njit(**_jit)
def _grad_affine_by_sample(x, dy, z, masked, mean, a, b, c0, dx, add):
    """With ``masked``, ``dy`` counts only where ``z > 0``."""
    outer, channels, inner = x.shape
    zero = x.dtype.type(0)
    for o in prange(outer):
        for c in range(channels):
            m = x.dtype.type(mean[c])
            ca = x.dtype.type(a[c])
            cb = x.dtype.type(b[c])
            cc = x.dtype.type(c0[c])
            xr = x[o, c]
            gr = dy[o, c]
            zr = z[o, c]
            dst = dx[o, c]
            if masked and add:
                for i in range(inner):
                    g = gr[i] if zr[i] > 0 else zero
                    dst[i] += g * ca + (xr[i] - m) * cb + cc
            elif masked:
                for i in range(inner):
                    g = gr[i] if zr[i] > 0 else zero
                    dst[i] = g * ca + (xr[i] - m) * cb + cc
            elif add:
                for i in range(inner):
                    dst[i] += gr[i] * ca + (xr[i] - m) * cb + cc
            else:
                for i in range(inner):
                    dst[i] = gr[i] * ca + (xr[i] - m) * cb + cc


# ---- the passes: the sample split from 2 * GROUP samples, else the channel split ----------
def _by_samples(x):
    return x.shape[0] >= 2 * GROUP


def moments(x, mean, var):
    """Write each channel's batch mean and biased variance (float64) of ``x``."""
    (_moments_by_sample if _by_samples(x) else _moments_by_channel)(x, mean, var)


def affine(x, mean, scale, shift, out, add, relu=False):
    """``out (=|+=) (x - mean) * scale + shift`` per channel; with ``relu``
    ``out = max(that, 0)``."""
    if _by_samples(x):
        _affine_by_sample(x, mean, scale, shift, out, add, relu)
    else:
        _affine_by_channel(x, mean, scale, shift, out, add, relu)


def grad_sums(x, dy, mean, sum_dy, dot):
    """Write each channel's ``sum(dy)`` and ``sum((x - mean) * dy)`` (float64)."""
    if _by_samples(x):
        _grad_sums_by_sample(x, dy, dy, False, mean, sum_dy, dot)
    else:
        _grad_sums_by_channel(x, dy, mean, sum_dy, dot)


def grad_affine(x, dy, mean, a, b, c0, dx, add):
    """``dx (=|+=) dy * a + (x - mean) * b + c0`` per channel."""
    if _by_samples(x):
        _grad_affine_by_sample(x, dy, dy, False, mean, a, b, c0, dx, add)
    else:
        _grad_affine_by_channel(x, dy, mean, a, b, c0, dx, add)


def relu_grad_sums(x, dz, z, mean, sum_dy, dot):
    """:func:`grad_sums` of ``dy = dz * (z > 0)``."""
    if _by_samples(x):
        _grad_sums_by_sample(x, dz, z, True, mean, sum_dy, dot)
    else:
        _relu_grad_sums_by_channel(x, dz, z, mean, sum_dy, dot)


def relu_grad_affine(x, dz, z, mean, a, b, c0, dx, add):
    """:func:`grad_affine` of ``dy = dz * (z > 0)``."""
    if _by_samples(x):
        _grad_affine_by_sample(x, dz, z, True, mean, a, b, c0, dx, add)
    else:
        _relu_grad_affine_by_channel(x, dz, z, mean, a, b, c0, dx, add)
