"""Pooling's numba loops over planes ``(N * C, D, H, W)``, as MXNet 1.9.1's CPU kernels.

Every window is clipped to the input, so max pooling never looks at padding (a window
holding no input gives ``lowest`` and position -1); the max gradient goes to the first
maximum of each window in row-major order; the average divides by ``div`` (MXNet's
window sizes, computed by the caller).

Each plane is computed alone, so the loops split planes over numba's threads when there
is enough work (:data:`PARALLEL_MIN` values) and give the same result at any thread
count. 2-D max pooling whose windows all lie inside the plane (no padding reached, the
usual 2x2 / 3x3 stride-2 layers) runs a loop without the clipping bounds.
"""
import math

import numba
import numpy as np
from numba import prange

from .special import PARALLEL_MIN

__all__ = ['max_pool', 'scatter_max', 'sum_pool', 'sum_unpool']

_FLAGS = dict(cache=True, nogil=True, error_model='numpy')


@numba.njit(**_FLAGS)
def _bounds(count, stride, pad, kernel, size):
    """Clipped [start, end) of every window along one axis."""
    start = np.empty(count, np.int64)
    end = np.empty(count, np.int64)
    for o in range(count):
        first = o * stride - pad
        start[o] = max(first, 0)
        end[o] = min(first + kernel, size)
    return start, end


@numba.njit(**_FLAGS)
def _windows(in_shape, out_shape, k, s, p):
    """Window bounds (d0, d1, h0, h1, w0, w1) of (planes, D, H, W) input and output shapes."""
    d0, d1 = _bounds(out_shape[1], s[0], p[0], k[0], in_shape[1])
    h0, h1 = _bounds(out_shape[2], s[1], p[1], k[1], in_shape[2])
    w0, w1 = _bounds(out_shape[3], s[2], p[2], k[2], in_shape[3])
    return d0, d1, h0, h1, w0, w1


# ---- max ---------------------------------------------------------------------------------

@numba.njit(**_FLAGS)
def _max_plane(src, dst, pos, win, hh, ww, lowest):
    """One plane's maxima and their flat positions, windows clipped by ``win``."""
    d0, d1, h0, h1, w0, w1 = win
    o = 0
    for od in range(d0.size):
        for oh in range(h0.size):
            for ow in range(w0.size):
                m = lowest
                best = -1
                for d in range(d0[od], d1[od]):
                    for h in range(h0[oh], h1[oh]):
                        row = (d * hh + h) * ww
                        for w in range(w0[ow], w1[ow]):
                            v = src[row + w]
                            better = v > m      # branch-free: ties keep the first
                            best = row + w if better else best
                            m = v if better else m
                dst[o] = m
                pos[o] = best
                o += 1


@numba.njit(**_FLAGS)
def _max_plane_2x2(src, dst, pos, oh, ow, ww, lowest):
    """One 2-D plane's 2x2 stride-2 maxima, windows inside: the taps written out, which
    lets the loop vectorize (twice the speed of the general loop)."""
    for i in range(oh):
        top = 2 * i * ww
        bottom = top + ww
        o = i * ow
        for j in range(ow):
            a = top + 2 * j
            b = bottom + 2 * j
            m = lowest
            best = -1
            for t in (a, a + 1, b, b + 1):
                v = src[t]
                better = v > m
                best = t if better else best
                m = v if better else m
            dst[o + j] = m
            pos[o + j] = best


@numba.njit(**_FLAGS)
def _max_plane_inside(src, dst, pos, kh, kw, sh, sw, oh, ow, ww, lowest):
    """One 2-D plane's maxima when every window lies inside the plane."""
    if kh == 2 and kw == 2 and sh == 2 and sw == 2:
        _max_plane_2x2(src, dst, pos, oh, ow, ww, lowest)
        return
    o = 0
    for i in range(oh):
        for j in range(ow):
            m = lowest
            best = -1
            for a in range(kh):
                row = (i * sh + a) * ww + j * sw
                for b in range(kw):
                    v = src[row + b]
                    better = v > m
                    best = row + b if better else best
                    m = v if better else m
            dst[o] = m
            pos[o] = best
            o += 1


@numba.njit(**_FLAGS)
def _max_pool_serial(xf, of, pf, win, hh, ww, lowest):
    for q in range(xf.shape[0]):
        _max_plane(xf[q], of[q], pf[q], win, hh, ww, lowest)


@numba.njit(parallel=True, **_FLAGS)
def _max_pool_threads(xf, of, pf, win, hh, ww, lowest):
    for q in prange(xf.shape[0]):
        _max_plane(xf[q], of[q], pf[q], win, hh, ww, lowest)


@numba.njit(**_FLAGS)
def _max_pool_inside_serial(xf, of, pf, kh, kw, sh, sw, oh, ow, ww, lowest):
    for q in range(xf.shape[0]):
        _max_plane_inside(xf[q], of[q], pf[q], kh, kw, sh, sw, oh, ow, ww, lowest)


@numba.njit(parallel=True, **_FLAGS)
def _max_pool_inside_threads(xf, of, pf, kh, kw, sh, sw, oh, ow, ww, lowest):
    for q in prange(xf.shape[0]):
        _max_plane_inside(xf[q], of[q], pf[q], kh, kw, sh, sw, oh, ow, ww, lowest)


def _threaded(x):
    return x.shape[0] > 1 and x.size >= PARALLEL_MIN


def _inside(x, out, k, s, p):
    """Whether every window of 2-D planes lies inside the input (no clipping)."""
    return (x.shape[1] == 1 and out.shape[1] == 1 and k[0] == 1 and p[1] == 0 and p[2] == 0
            and (out.shape[2] - 1) * s[1] + k[1] <= x.shape[2]
            and (out.shape[3] - 1) * s[2] + k[2] <= x.shape[3])


def max_pool(x, out, where, k, s, p, lowest):
    """Max pooling of planes ``x`` into ``out``; ``where`` gets each maximum's flat
    position in its plane (-1 where a window holds no input)."""
    planes = x.shape[0]
    xf, of, pf = x.reshape(planes, -1), out.reshape(planes, -1), where.reshape(planes, -1)
    threaded = _threaded(x)
    if _inside(x, out, k, s, p):
        run = _max_pool_inside_threads if threaded else _max_pool_inside_serial
        run(xf, of, pf, k[1], k[2], s[1], s[2], out.shape[2], out.shape[3], x.shape[3],
            lowest)
    else:
        run = _max_pool_threads if threaded else _max_pool_serial
        run(xf, of, pf, _windows(x.shape, out.shape, k, s, p), x.shape[2], x.shape[3],
            lowest)


@numba.njit(**_FLAGS)
def _scatter_plane(pos, grad, dst, overwrite):
    if overwrite:
        dst[:] = 0
    for o in range(pos.size):
        if pos[o] >= 0:
            dst[pos[o]] += grad[o]


@numba.njit(**_FLAGS)
def _scatter_serial(pf, gf, df, overwrite):
    for q in range(df.shape[0]):
        _scatter_plane(pf[q], gf[q], df[q], overwrite)


@numba.njit(parallel=True, **_FLAGS)
def _scatter_threads(pf, gf, df, overwrite):
    for q in prange(df.shape[0]):
        _scatter_plane(pf[q], gf[q], df[q], overwrite)


def scatter_max(where, dy, dx, overwrite):
    """``dx[plane, where[plane, o]] += dy[plane, o]``, the backward of :func:`max_pool`;
    with ``overwrite`` each plane of ``dx`` is zeroed first."""
    planes = dx.shape[0]
    run = _scatter_threads if _threaded(dx) else _scatter_serial
    run(where.reshape(planes, -1), dy.reshape(planes, -1), dx.reshape(planes, -1),
        overwrite)


# ---- sum, average, Lp --------------------------------------------------------------------

@numba.njit(**_FLAGS)
def _sum_plane(src, dst, win, hh, ww, divf, average, power, zero):
    d0, d1, h0, h1, w0, w1 = win
    o = 0
    for od in range(d0.size):
        for oh in range(h0.size):
            for ow in range(w0.size):
                size = divf[o]
                acc = zero
                for d in range(d0[od], d1[od]):
                    for h in range(h0[oh], h1[oh]):
                        row = (d * hh + h) * ww
                        for w in range(w0[ow], w1[ow]):
                            v = src[row + w]
                            if power == 2:
                                v = v * v
                            elif power == 3:
                                v = v * v * v
                            if average:
                                v = v / size
                            acc += v
                if power == 2:
                    dst[o] = math.sqrt(acc)
                elif power == 3:
                    dst[o] = math.copysign(abs(acc) ** (1.0 / 3.0), acc)
                else:
                    dst[o] = acc
                o += 1


@numba.njit(**_FLAGS)
def _sum_pool_serial(xf, of, win, hh, ww, divf, average, power, zero):
    for q in range(xf.shape[0]):
        _sum_plane(xf[q], of[q], win, hh, ww, divf, average, power, zero)


@numba.njit(parallel=True, **_FLAGS)
def _sum_pool_threads(xf, of, win, hh, ww, divf, average, power, zero):
    for q in prange(xf.shape[0]):
        _sum_plane(xf[q], of[q], win, hh, ww, divf, average, power, zero)


def sum_pool(x, out, k, s, p, div, average, power, zero):
    """Sum, average (each term divided by ``div``, as MXNet) or Lp pooling (power 2, 3)."""
    planes = x.shape[0]
    run = _sum_pool_threads if _threaded(x) else _sum_pool_serial
    run(x.reshape(planes, -1), out.reshape(planes, -1), _windows(x.shape, out.shape, k, s, p),
        x.shape[2], x.shape[3], div.reshape(-1), average, power, zero)


@numba.njit(**_FLAGS)
def _unpool_plane(src, res, grad, dst, win, hh, ww, divf, average, power, zero):
    d0, d1, h0, h1, w0, w1 = win
    o = 0
    for od in range(d0.size):
        for oh in range(h0.size):
            for ow in range(w0.size):
                g = grad[o]
                if average:
                    g = g / divf[o]
                for d in range(d0[od], d1[od]):
                    for h in range(h0[oh], h1[oh]):
                        row = (d * hh + h) * ww
                        for w in range(w0[ow], w1[ow]):
                            if power == 1:
                                dst[row + w] += g
                            elif res[o] != zero:    # MXNet gives 0 where out is 0
                                ratio = src[row + w] / res[o]
                                if power == 3:
                                    ratio = ratio * ratio
                                dst[row + w] += g * ratio
                o += 1


@numba.njit(**_FLAGS)
def _sum_unpool_serial(xf, yf, gf, df, win, hh, ww, divf, average, power, zero):
    for q in range(df.shape[0]):
        _unpool_plane(xf[q], yf[q], gf[q], df[q], win, hh, ww, divf, average, power, zero)


@numba.njit(parallel=True, **_FLAGS)
def _sum_unpool_threads(xf, yf, gf, df, win, hh, ww, divf, average, power, zero):
    for q in prange(df.shape[0]):
        _unpool_plane(xf[q], yf[q], gf[q], df[q], win, hh, ww, divf, average, power, zero)


def sum_unpool(x, y, dy, dx, k, s, p, div, average, power, zero):
    """Adds the gradient of :func:`sum_pool` (output ``y`` of input ``x``; both read by Lp
    pooling only) for output gradient ``dy`` into ``dx``."""
    planes = dx.shape[0]
    run = _sum_unpool_threads if _threaded(dx) else _sum_unpool_serial
    run(x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1), dy.reshape(planes, -1),
        dx.reshape(planes, -1), _windows(dx.shape, dy.shape, k, s, p), dx.shape[2],
        dx.shape[3], div.reshape(-1), average, power, zero)
