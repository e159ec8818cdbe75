"""BatchNorm's per-channel passes as numba kernels (float32 and float64 data).

Data are viewed as ``(outer, channels, inner)`` around the channel axis. Each pass
reads the data once or twice and writes once:

* :func:`moments`: batch mean and inverse std in one pass (sums of ``x - x0`` and its
  square, ``x0`` the channel's first value, so that no precision is lost to a large
  mean);
* :func:`affine`: ``out (=|+=) (x - mean) * scale + shift``, or with ``relu`` its
  positive part (a BatchNorm fused with the relu that alone reads it), or the positive
  part of its sum with a residual (fused with a residual addition and its relu);
* :func:`grad_sums`: ``sum(dy)`` and ``sum((x - mean) * dy)``;
* :func:`grad_affine`: ``dx (=|+=) dy * a + (x - mean) * b + c``, the data gradient
  with its per-channel coefficients folded in;
* :func:`relu_grad_sums`, :func:`relu_grad_affine`: the same two passes for the fused
  BatchNorm and relu, ``dy`` being the relu's output gradient where its output is
  positive and zero elsewhere. Where that is comes from the normalized value computed
  again from ``x`` (the same expression as :func:`affine`'s, the same bits), not from
  reading the relu's output: one read of the activations fewer in each pass.

The sums are float64 across rows and chunks of :data:`CHUNK` values, and in the data's
precision within a chunk (vectorized: float64 conversions halved the vector width and
made these passes compute-bound rather than memory-bound). The per-channel arithmetic
around the passes (:func:`update_moving`, :func:`grad_coefficients`) is numba too: as
numpy calls it cost about 40 us of Python per BatchNorm forward and backward.

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

__all__ = ['GROUP', 'CHUNK', 'supports', 'moments', 'affine', 'grad_sums', 'grad_affine',
           'relu_grad_sums', 'relu_grad_affine', 'update_moving', 'grad_coefficients']

# fast math without 'nnan' / 'ninf': the sums may be reordered (vectorized), but NaN
# tests (the fused relu keeps NaN) are not optimized away
_FAST = {'reassoc', 'contract', 'arcp', 'nsz', 'afn'}
_jit = dict(cache=True, nogil=True, error_model='numpy', parallel=True, fastmath=_FAST)
# the affine passes without 'reassoc', which let LLVM regroup (x - m) * a + b + r as
# (x - m) * a + (b + r): fused with a residual addition, the normalized value must be
# rounded first, as the BatchNorm's stored output is
_elementwise_jit = dict(_jit, fastmath=_FAST - {'reassoc'})
# inlined into the kernels (numba's IR): called, the row loops ran up to 4x slower
_row_jit = dict(cache=True, nogil=True, error_model='numpy', fastmath=_FAST, inline='always')

GROUP = 8
"""Samples per partial sum when the samples are split (a constant: the bits of the sums
must not depend on how many threads there are)."""

CHUNK = 1024
"""Values of a row summed in the data's precision (in vector lanes) before a float64 sum
takes them: float32 sums run at the memory's speed, and a chunk this short keeps them
accurate to about float32's precision."""


def supports(*arrays):
    """Whether the kernels handle these arrays (float32/float64, C-contiguous)."""
    return all(a.dtype in (np.float32, np.float64) and a.flags.c_contiguous for a in arrays)


@numba.njit(**_row_jit)
def _normal(v, m, a, b):
    """The normalized value, written once for the forward pass and for the backward pass's
    relu mask: the two must be the same bits."""
    return (v - m) * a + b


@numba.njit(**_row_jit)
def _part_moments(row, x0):
    zero = row.dtype.type(0)
    s1 = zero
    s2 = zero
    for i in range(row.size):
        d = row[i] - x0
        s1 += d
        s2 += d * d
    return np.float64(s1), np.float64(s2)


@numba.njit(**_row_jit)
def _row_moments(row, x0):
    """Sums of ``row - x0`` and of its square (float64; within each :data:`CHUNK` in the
    data's precision)."""
    if row.size <= CHUNK:
        return _part_moments(row, x0)
    s1 = 0.0
    s2 = 0.0
    for lo in range(0, row.size, CHUNK):
        p1, p2 = _part_moments(row[lo:lo + CHUNK], x0)
        s1 += p1
        s2 += p2
    return s1, s2


@numba.njit(**_row_jit)
def _part_grad_sums(xr, gr, m, masked, a, b):
    zero = xr.dtype.type(0)
    s = zero
    d = zero
    if masked:
        for i in range(xr.size):
            g = gr[i] if _normal(xr[i], m, a, b) > 0 else zero
            s += g
            d += (xr[i] - m) * g
    else:
        for i in range(xr.size):
            s += gr[i]
            d += (xr[i] - m) * gr[i]
    return np.float64(s), np.float64(d)


@numba.njit(**_row_jit)
def _row_grad_sums(xr, gr, m, masked, a, b):
    """Sums of ``dy`` and of ``(x - m) * dy`` (float64; within each :data:`CHUNK` in the
    data's precision); with ``masked`` ``dy`` counts only where ``_normal(x, m, a, b)`` is
    positive."""
    if xr.size <= CHUNK:
        return _part_grad_sums(xr, gr, m, masked, a, b)
    s = 0.0
    d = 0.0
    for lo in range(0, xr.size, CHUNK):
        ps, pd = _part_grad_sums(xr[lo:lo + CHUNK], gr[lo:lo + CHUNK], m, masked, a, b)
        s += ps
        d += pd
    return s, d


@numba.njit(**_row_jit)
def _row_affine(src, res, dst, m, a, b, add, relu, residual):
    zero = src.dtype.type(0)
    if residual:
        for i in range(src.size):
            v = _normal(src[i], m, a, b) + res[i]
            dst[i] = v if v > 0 or v != v else zero
    elif relu:
        for i in range(src.size):
            v = _normal(src[i], m, a, b)
            dst[i] = v if v > 0 or v != v else zero     # NaN stays, as relu's
    elif add:
        for i in range(src.size):
            dst[i] += _normal(src[i], m, a, b)
    else:
        for i in range(src.size):
            dst[i] = _normal(src[i], m, a, b)


@numba.njit(**_row_jit)
def _row_grad_affine(xr, gr, dst, m, masked, fa, fb, ca, cb, cc, add):
    zero = xr.dtype.type(0)
    if masked and add:
        for i in range(xr.size):
            g = gr[i] if _normal(xr[i], m, fa, fb) > 0 else zero
            dst[i] += g * ca + (xr[i] - m) * cb + cc
    elif masked:
        for i in range(xr.size):
            g = gr[i] if _normal(xr[i], m, fa, fb) > 0 else zero
            dst[i] = g * ca + (xr[i] - m) * cb + cc
    elif add:
        for i in range(xr.size):
            dst[i] += gr[i] * ca + (xr[i] - m) * cb + cc
    else:
        for i in range(xr.size):
            dst[i] = gr[i] * ca + (xr[i] - m) * cb + cc


# ---- per-channel arithmetic: exact IEEE (no fast math), as numpy's ---------------------------
@numba.njit(cache=True, nogil=True, error_model='numpy')
def _store_stats(c, mean, var, eps, mean_out, invstd_out):
    """Channel ``c``'s mean and inverse std ``1 / sqrt(var + eps)`` (0 where both are 0,
    as MXNet's), rounded once to the outputs' type."""
    mean_out[c] = mean
    invstd_out[c] = 0.0 if var + eps == 0 else 1.0 / np.sqrt(var + eps)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def update_moving(mean, invstd, eps, momentum, moving_mean, moving_var):
    """``moving = moving * momentum + batch * (1 - momentum)`` for the mean and for the
    biased variance ``1 / invstd^2 - eps``, each product rounded to the moving
    statistics' type as numpy's arithmetic on them rounds it."""
    cast = moving_mean.dtype.type
    rest = 1 - momentum
    for c in range(mean.size):
        s = np.float64(invstd[c])
        var = 1.0 / (s * s) - eps
        moving_mean[c] = moving_mean[c] * cast(momentum) + cast(mean[c]) * cast(rest)
        moving_var[c] = np.float64(moving_var[c] * cast(momentum)) + var * rest


@numba.njit(cache=True, nogil=True, error_model='numpy')
def grad_coefficients(sum_dy, dot, invstd, weight, count, batch_stats, unit_weight, a, b, c0,
                      gamma_grad, gamma_mode, beta_grad, beta_mode):
    """The data gradient's per-channel coefficients for :func:`grad_affine`
    (``a = invstd * weight``, ``weight`` 1 with ``unit_weight``; with batch statistics
    ``b = -dot * invstd^2 / count * a``,
    ``c0 = -sum_dy / count * a``, else 0) and the parameter gradients ``dot * invstd``
    (or 0: ``gamma_mode`` -1) and ``sum_dy`` (mode 0 null, 1 write, 2 add)."""
    for c in range(sum_dy.size):
        s = np.float64(invstd[c])
        iw = s if unit_weight else s * np.float64(weight[c])
        a[c] = iw
        if batch_stats:
            b[c] = -dot[c] * s * s / count * iw
            c0[c] = -sum_dy[c] / count * iw
        else:
            b[c] = 0.0
            c0[c] = 0.0
        if gamma_mode == -1:
            gamma_grad[c] = 0
        elif gamma_mode == 1:
            gamma_grad[c] = dot[c] * s
        elif gamma_mode == 2:
            gamma_grad[c] += gamma_grad.dtype.type(dot[c] * s)
        if beta_mode == 1:
            beta_grad[c] = sum_dy[c]
        elif beta_mode == 2:
            beta_grad[c] += beta_grad.dtype.type(sum_dy[c])


# ---- the channel split (small batches) ------------------------------------------------------
@numba.njit(**_jit)
def _moments_by_channel(x, eps, mean, invstd):
    outer, channels, inner = x.shape
    count = outer * inner
    for c in prange(channels):
        x0 = x[0, c, 0]
        s1 = 0.0
        s2 = 0.0
        for o in range(outer):
            r1, r2 = _row_moments(x[o, c], x0)
            s1 += r1
            s2 += r2
        m = s1 / count
        _store_stats(c, x0 + m, max(s2 / count - m * m, 0.0), eps, mean, invstd)


@numba.njit(**_elementwise_jit)
def _affine_by_channel(x, res, mean, scale, shift, out, add, relu, residual):
    outer, channels, inner = x.shape
    cast = x.dtype.type
    for c in prange(channels):
        for o in range(outer):
            _row_affine(x[o, c], res[o, c], out[o, c], cast(mean[c]), cast(scale[c]),
                        cast(shift[c]), add, relu, residual)


@numba.njit(**_jit)
def _grad_sums_by_channel(x, dy, masked, mean, fa, fb, sum_dy, dot):
    outer, channels, inner = x.shape
    cast = x.dtype.type
    for c in prange(channels):
        s = 0.0
        d = 0.0
        for o in range(outer):
            rs, rd = _row_grad_sums(x[o, c], dy[o, c], cast(mean[c]), masked, cast(fa[c]),
                                    cast(fb[c]))
            s += rs
            d += rd
        sum_dy[c] = s
        dot[c] = d


@numba.njit(**_jit)
def _grad_affine_by_channel(x, dy, masked, mean, fa, fb, a, b, c0, dx, add):
    outer, channels, inner = x.shape
    cast = x.dtype.type
    for c in prange(channels):
        for o in range(outer):
            _row_grad_affine(x[o, c], dy[o, c], dx[o, c], cast(mean[c]), masked, cast(fa[c]),
                             cast(fb[c]), cast(a[c]), cast(b[c]), cast(c0[c]), add)


# ---- the sample split (see the module's docstring) ----------------------------------------
@numba.njit(**_jit)
def _moments_by_sample(x, eps, mean, invstd):
    outer, channels, inner = x.shape
    groups = -(-outer // GROUP)
    shift = np.empty(channels, x.dtype)
    for c in range(channels):
        shift[c] = x[0, c, 0]
    part = np.zeros((groups, 2, channels))
    for g in prange(groups):
        for o in range(g * GROUP, min(outer, (g + 1) * GROUP)):
            for c in range(channels):
                r1, r2 = _row_moments(x[o, c], shift[c])
                part[g, 0, c] += r1
                part[g, 1, c] += r2
    count = outer * inner
    for c in range(channels):
        s1 = 0.0
        s2 = 0.0
        for g in range(groups):
            s1 += part[g, 0, c]
            s2 += part[g, 1, c]
        m = s1 / count
        _store_stats(c, shift[c] + m, max(s2 / count - m * m, 0.0), eps, mean, invstd)


@numba.njit(**_elementwise_jit)
def _affine_by_sample(x, res, mean, scale, shift, out, add, relu, residual):
    outer, channels, inner = x.shape
    cast = x.dtype.type
    for o in prange(outer):
        for c in range(channels):
            _row_affine(x[o, c], res[o, c], out[o, c], cast(mean[c]), cast(scale[c]),
                        cast(shift[c]), add, relu, residual)


@numba.njit(**_jit)
def _grad_sums_by_sample(x, dy, masked, mean, fa, fb, sum_dy, dot):
    outer, channels, inner = x.shape
    cast = x.dtype.type
    groups = -(-outer // GROUP)
    part = np.zeros((groups, 2, channels))
    for g in prange(groups):
        for o in range(g * GROUP, min(outer, (g + 1) * GROUP)):
            for c in range(channels):
                rs, rd = _row_grad_sums(x[o, c], dy[o, c], cast(mean[c]), masked,
                                        cast(fa[c]), cast(fb[c]))
                part[g, 0, c] += rs
                part[g, 1, c] += rd
    for c in range(channels):
        s = 0.0
        d = 0.0
        for g in range(groups):
            s += part[g, 0, c]
            d += part[g, 1, c]
        sum_dy[c] = s
        dot[c] = d


@numba.njit(**_jit)
def _grad_affine_by_sample(x, dy, masked, mean, fa, fb, a, b, c0, dx, add):
    outer, channels, inner = x.shape
    cast = x.dtype.type
    for o in prange(outer):
        for c in range(channels):
            _row_grad_affine(x[o, c], dy[o, c], dx[o, c], cast(mean[c]), masked, cast(fa[c]),
                             cast(fb[c]), cast(a[c]), cast(b[c]), cast(c0[c]), add)


# ---- the passes: the sample split from 2 * GROUP samples, else the channel split ----------
def _split(x, by_sample, by_channel):
    return by_sample if x.shape[0] >= 2 * GROUP else by_channel


def moments(x, eps, mean, invstd):
    """Write each channel's batch mean and inverse std ``1 / sqrt(var + eps)`` (biased
    variance; 0 where it and ``eps`` are 0) of ``x``."""
    _split(x, _moments_by_sample, _moments_by_channel)(x, eps, mean, invstd)


def affine(x, mean, scale, shift, out, add, relu=False, residual=None):
    """``out (=|+=) (x - mean) * scale + shift`` per channel; with ``relu``
    ``out = max(that, 0)``, with ``residual`` (an array of ``x``'s shape)
    ``out = max(that + residual, 0)`` (a BatchNorm, the residual addition that alone reads
    it and that addition's relu). ``out`` may be ``x``'s or ``residual``'s memory."""
    res = x if residual is None else residual
    _split(x, _affine_by_sample, _affine_by_channel)(x, res, mean, scale, shift, out, add,
                                                     relu, residual is not None)


def grad_sums(x, dy, mean, sum_dy, dot):
    """Write each channel's ``sum(dy)`` and ``sum((x - mean) * dy)`` (float64)."""
    _split(x, _grad_sums_by_sample, _grad_sums_by_channel)(x, dy, False, mean, mean, mean,
                                                           sum_dy, dot)


def grad_affine(x, dy, mean, a, b, c0, dx, add):
    """``dx (=|+=) dy * a + (x - mean) * b + c0`` per channel."""
    _split(x, _grad_affine_by_sample, _grad_affine_by_channel)(
        x, dy, False, mean, mean, mean, a, b, c0, dx, add)


def relu_grad_sums(x, dz, mean, scale, shift, sum_dy, dot):
    """:func:`grad_sums` of ``dy = dz`` where the forward pass's normalized value
    (:func:`affine` of ``x, mean, scale, shift``) is positive, else 0."""
    _split(x, _grad_sums_by_sample, _grad_sums_by_channel)(x, dz, True, mean, scale, shift,
                                                           sum_dy, dot)


def relu_grad_affine(x, dz, mean, scale, shift, a, b, c0, dx, add):
    """:func:`grad_affine` of the masked ``dy`` of :func:`relu_grad_sums`."""
    _split(x, _grad_affine_by_sample, _grad_affine_by_channel)(
        x, dz, True, mean, scale, shift, a, b, c0, dx, add)
