"""Direct 3x3 convolution with stride 2 and padding 1 (no dilation, one group), NCHW.

The im2col path gathers every input value into a column matrix with a scalar strided
loop and scatters the column gradient back the same way; for ResNet's down-sampling
layers those copies cost as much as the products. Here the zero-padded input is split
into its four row/column phases ``P[a, b][u, v] = xpad[2u + a, 2v + b]`` (a, b in
{0, 1}), each a plane of ``(OH + 1, OW + 1)`` kept flat with row width ``Wp = OW + 1``
like the stride-1 kernels of ``conv_direct.py``: output ``p = oh * Wp + ow`` reads tap
``(i, j)`` at ``P[i % 2, j % 2][p + (i // 2) * Wp + j // 2]``, so all nine taps are
unit-stride loads and one vectorizable loop covers a chunk of samples.

* forward: ``out[n, k] = sum_c sum_taps w[k, c, i, j] * P_c[i % 2, j % 2][p + offset]``;
* data gradient: the adjoint, gathered per phase from the flat output gradient (padded
  in front by ``Wp + 1`` and zero in the dropped positions), then re-interleaved;
* weight gradient: nine dot products per (k, c) between the flat output gradient and
  the shifted phases.

Samples are split into the same fixed chunks as ``conv_direct.py`` (``prange``); the
weight gradient sums per-chunk partials in chunk order, so its value does not depend on
how many threads ran.
"""
import numba
import numpy as np
from numba import prange

from .conv_direct import _add9, _jit, _layout, _pack, _round_up

__all__ = ['supports', 'forward', 'backward_data', 'backward_weight']


def supports(kernel, strides, dilates, pads, groups, dtype):
    """Whether these kernels handle this convolution."""
    return (tuple(kernel) == (3, 3) and tuple(strides) == (2, 2)
            and tuple(dilates) == (1, 1) and tuple(pads) == (1, 1) and groups == 1
            and np.dtype(dtype) in (np.float32, np.float64))


def output_size(size):
    """Output length of one axis (kernel 3, stride 2, padding 1)."""
    return (size - 1) // 2 + 1


@numba.njit(**_jit)
def _pack_phases(x, first, per_chunk, dst, wp, ps):
    """The four phases of up to ``per_chunk`` zero-padded samples of ``x`` from ``first``
    on into ``dst`` (4 * C, length), row ``4 * c + 2 * a + b`` for phase (a, b) of
    channel c; positions outside the input stay as they were (zero). Returns how many
    samples."""
    channels, height, width = x.shape[1], x.shape[2], x.shape[3]
    samples = min(x.shape[0] - first, per_chunk)
    for s in range(samples):
        for c in range(channels):
            src = x[first + s, c]
            for h in range(height):
                a = (h + 1) % 2
                base = s * ps + ((h + 1) // 2) * wp
                line = src[h]
                # b = 0 holds input columns 1, 3, 5, ... from v = 1; b = 1 columns 0, 2, ...
                even = dst[4 * c + 2 * a][base + 1:base + 1 + width // 2]
                odd = dst[4 * c + 2 * a + 1][base:base + (width + 1) // 2]
                for v in range(width // 2):
                    odd[v] = line[2 * v]
                    even[v] = line[2 * v + 1]
                if width % 2:
                    odd[width // 2] = line[width - 1]
    return samples


@numba.njit(**_jit)
def _taps4(acc, xp, c, wp, span, t0, t1, t2, t3):
    """``acc[b][p] += `` the nine taps of weight ``tb`` (3, 3) over channel ``c``'s phases
    in ``xp`` at ``p``, for four filters b = 0-3 sharing the loads."""
    o0, o1, o2, o3 = acc[0], acc[1], acc[2], acc[3]
    p00, p01, p10, p11 = xp[4 * c], xp[4 * c + 1], xp[4 * c + 2], xp[4 * c + 3]
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = (t0[0, 0], t0[0, 1], t0[0, 2], t0[1, 0], t0[1, 1],
                                          t0[1, 2], t0[2, 0], t0[2, 1], t0[2, 2])
    b0, b1, b2, b3, b4, b5, b6, b7, b8 = (t1[0, 0], t1[0, 1], t1[0, 2], t1[1, 0], t1[1, 1],
                                          t1[1, 2], t1[2, 0], t1[2, 1], t1[2, 2])
    c0, c1, c2, c3, c4, c5, c6, c7, c8 = (t2[0, 0], t2[0, 1], t2[0, 2], t2[1, 0], t2[1, 1],
                                          t2[1, 2], t2[2, 0], t2[2, 1], t2[2, 2])
    d0, d1, d2, d3, d4, d5, d6, d7, d8 = (t3[0, 0], t3[0, 1], t3[0, 2], t3[1, 0], t3[1, 1],
                                          t3[1, 2], t3[2, 0], t3[2, 1], t3[2, 2])
    e0 = p00[0:span]
    e1 = p00[1:span + 1]
    e2 = p00[wp:wp + span]
    e3 = p00[wp + 1:wp + 1 + span]
    f0 = p01[0:span]
    f1 = p01[wp:wp + span]
    g0 = p10[0:span]
    g1 = p10[1:span + 1]
    q = p11[0:span]
    for p in range(span):
        x0, x1, x2 = e0[p], f0[p], e1[p]
        x3, x4, x5 = g0[p], q[p], g1[p]
        x6, x7, x8 = e2[p], f1[p], e3[p]
        o0[p] += (a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3 + a4 * x4 + a5 * x5 + a6 * x6
                  + a7 * x7 + a8 * x8)
        o1[p] += (b0 * x0 + b1 * x1 + b2 * x2 + b3 * x3 + b4 * x4 + b5 * x5 + b6 * x6
                  + b7 * x7 + b8 * x8)
        o2[p] += (c0 * x0 + c1 * x1 + c2 * x2 + c3 * x3 + c4 * x4 + c5 * x5 + c6 * x6
                  + c7 * x7 + c8 * x8)
        o3[p] += (d0 * x0 + d1 * x1 + d2 * x2 + d3 * x3 + d4 * x4 + d5 * x5 + d6 * x6
                  + d7 * x7 + d8 * x8)


@numba.njit(**_jit)
def _unpack(acc, block, out, k0, first, samples, wp, ps, add):
    """The valid positions of the first ``block`` accumulator rows stored into (with
    ``add``: added to) ``out[first:first + samples, k0:k0 + block]``."""
    height, width = out.shape[2], out.shape[3]
    for b in range(block):
        for s in range(samples):
            dst = out[first + s, k0 + b]
            for h in range(height):
                row = acc[b][s * ps + h * wp:s * ps + h * wp + width]
                line = dst[h]
                if add:
                    for e in range(width):
                        line[e] += row[e]
                else:
                    for e in range(width):
                        line[e] = row[e]


@numba.njit(parallel=True, **_jit)
def _forward_chunks(x, w, out, add, wp, ps, per_chunk, chunks, length):
    channels, filters = x.shape[1], w.shape[0]
    for chunk in prange(chunks):
        xp = np.zeros((4 * channels, length), x.dtype)
        acc = np.empty((4, length), x.dtype)
        first = chunk * per_chunk
        samples = _pack_phases(x, first, per_chunk, xp, wp, ps)
        span = _round_up(samples * ps)
        for k0 in range(0, filters, 4):
            block = min(4, filters - k0)
            for b in range(4):
                acc[b][:span] = 0
            # a last block of fewer than four filters repeats its last one (rows dropped)
            k1, k2, k3 = (k0 + min(1, block - 1), k0 + min(2, block - 1),
                          k0 + min(3, block - 1))
            for c in range(channels):
                _taps4(acc, xp, c, wp, span, w[k0, c], w[k1, c], w[k2, c], w[k3, c])
            _unpack(acc, block, out, k0, first, samples, wp, ps, add)


def forward(x, w, out, add=False):
    """``out = conv3x3(x, w)``, stride 2, zero padding 1 (NCHW); with ``add``,
    ``out += conv3x3(x, w)``."""
    n, _, oh, ow = out.shape
    _forward_chunks(np.ascontiguousarray(x), np.ascontiguousarray(w), out, add,
                    *_layout(n, oh, ow))


@numba.njit(**_jit)
def _phase_grads(d, g, k, wp, span, w, c):
    """Add filter ``k``'s share (weight ``w[k, c]``) of its output-gradient row ``g[k]``
    (padded in front by ``wp + 1``) to channel ``c``'s four phase gradients ``d``."""
    t = w[k, c]
    a0, a1, a2 = t[0, 0], t[0, 1], t[0, 2]
    a3, a4, a5 = t[1, 0], t[1, 1], t[1, 2]
    a6, a7, a8 = t[2, 0], t[2, 1], t[2, 2]
    d00, d01, d10, d11 = d[0], d[1], d[2], d[3]
    h0 = g[k][0:span]
    h1 = g[k][1:span + 1]
    h2 = g[k][wp:wp + span]
    h3 = g[k][wp + 1:wp + 1 + span]
    for p in range(span):
        y0, y1, y2, y3 = h0[p], h1[p], h2[p], h3[p]
        d00[p] += a0 * y3 + a2 * y2 + a6 * y1 + a8 * y0
        d01[p] += a1 * y3 + a7 * y1
        d10[p] += a3 * y3 + a5 * y2
        d11[p] += a4 * y3


@numba.njit(**_jit)
def _phase_grads4(d, g, k, wp, span, w, c):
    """:func:`_phase_grads` for filters ``k`` to ``k + 3`` in one pass over ``d``."""
    t, u, r, z = w[k, c], w[k + 1, c], w[k + 2, c], w[k + 3, c]
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = (t[0, 0], t[0, 1], t[0, 2], t[1, 0], t[1, 1],
                                          t[1, 2], t[2, 0], t[2, 1], t[2, 2])
    b0, b1, b2, b3, b4, b5, b6, b7, b8 = (u[0, 0], u[0, 1], u[0, 2], u[1, 0], u[1, 1],
                                          u[1, 2], u[2, 0], u[2, 1], u[2, 2])
    c0, c1, c2, c3, c4, c5, c6, c7, c8 = (r[0, 0], r[0, 1], r[0, 2], r[1, 0], r[1, 1],
                                          r[1, 2], r[2, 0], r[2, 1], r[2, 2])
    e0, e1, e2, e3, e4, e5, e6, e7, e8 = (z[0, 0], z[0, 1], z[0, 2], z[1, 0], z[1, 1],
                                          z[1, 2], z[2, 0], z[2, 1], z[2, 2])
    # each row at the four shifts the taps read (slices, so that the loops index by p
    # alone and vectorize)
    ga0, ga1, ga2, ga3 = (g[k][0:span], g[k][1:span + 1], g[k][wp:wp + span],
                          g[k][wp + 1:wp + 1 + span])
    gb0, gb1, gb2, gb3 = (g[k + 1][0:span], g[k + 1][1:span + 1], g[k + 1][wp:wp + span],
                          g[k + 1][wp + 1:wp + 1 + span])
    gc0, gc1, gc2, gc3 = (g[k + 2][0:span], g[k + 2][1:span + 1], g[k + 2][wp:wp + span],
                          g[k + 2][wp + 1:wp + 1 + span])
    gd0, gd1, gd2, gd3 = (g[k + 3][0:span], g[k + 3][1:span + 1], g[k + 3][wp:wp + span],
                          g[k + 3][wp + 1:wp + 1 + span])
    d00, d01, d10, d11 = d[0], d[1], d[2], d[3]
    for p in range(span):
        d00[p] += (a0 * ga3[p] + a2 * ga2[p] + a6 * ga1[p] + a8 * ga0[p]
                   + b0 * gb3[p] + b2 * gb2[p] + b6 * gb1[p] + b8 * gb0[p]
                   + c0 * gc3[p] + c2 * gc2[p] + c6 * gc1[p] + c8 * gc0[p]
                   + e0 * gd3[p] + e2 * gd2[p] + e6 * gd1[p] + e8 * gd0[p])
        d01[p] += (a1 * ga3[p] + a7 * ga1[p] + b1 * gb3[p] + b7 * gb1[p]
                   + c1 * gc3[p] + c7 * gc1[p] + e1 * gd3[p] + e7 * gd1[p])
        d10[p] += (a3 * ga3[p] + a5 * ga2[p] + b3 * gb3[p] + b5 * gb2[p]
                   + c3 * gc3[p] + c5 * gc2[p] + e3 * gd3[p] + e5 * gd2[p])
        d11[p] += a4 * ga3[p] + b4 * gb3[p] + c4 * gc3[p] + e4 * gd3[p]


@numba.njit(**_jit)
def _unpack_phases(d, dx, c, first, s, wp, ps, add):
    """Re-interleave the phase gradients ``d`` (rows 0-3) of sample ``s`` of the chunk
    into ``dx[first + s, c]`` (with ``add``: added to it)."""
    height, width = dx.shape[2], dx.shape[3]
    dst = dx[first + s, c]
    for h in range(height):
        a = (h + 1) % 2
        base = s * ps + ((h + 1) // 2) * wp
        line = dst[h]
        even = d[2 * a][base + 1:base + 1 + width // 2]
        odd = d[2 * a + 1][base:base + (width + 1) // 2]
        if add:
            for v in range(width // 2):
                line[2 * v] += odd[v]
                line[2 * v + 1] += even[v]
            if width % 2:
                line[width - 1] += odd[width // 2]
        else:
            for v in range(width // 2):
                line[2 * v] = odd[v]
                line[2 * v + 1] = even[v]
            if width % 2:
                line[width - 1] = odd[width // 2]


@numba.njit(parallel=True, **_jit)
def _data_grad_chunks(dy, w, dx, add, wp, ps, per_chunk, chunks, length):
    filters, channels = w.shape[0], w.shape[1]
    for chunk in prange(chunks):
        g = np.zeros((filters, length), dy.dtype)
        d = np.empty((4, length), dy.dtype)
        first = chunk * per_chunk
        samples = _pack(dy, first, per_chunk, g, wp, ps)
        span = _round_up(samples * ps)
        for c in range(channels):
            d[:, :span] = 0
            for k in range(0, filters - 3, 4):
                _phase_grads4(d, g, k, wp, span, w, c)
            for k in range(filters - filters % 4, filters):
                _phase_grads(d, g, k, wp, span, w, c)
            for s in range(samples):
                _unpack_phases(d, dx, c, first, s, wp, ps, add)


def backward_data(dy, w, dx, add=False):
    """``dx = `` (with ``add``: ``dx +=``) the gradient of :func:`forward` with respect
    to its input."""
    n, _, oh, ow = dy.shape
    _data_grad_chunks(np.ascontiguousarray(dy), np.ascontiguousarray(w), dx, add,
                      *_layout(n, oh, ow))


@numba.njit(**_jit)
def _weight_taps2(xp, g0, g1, dw0, dw1, wp, span, channels):
    """``dw[k, c, i, j] += sum_p g[k, p] * P_c[i % 2, j % 2][p + offset]`` for two
    filters; with ``dw1 is dw0`` (an odd last filter) only the first is stored."""
    same = dw1 is dw0
    for c in range(channels):
        e0 = xp[4 * c][0:span]
        e1 = xp[4 * c][1:span + 1]
        e2 = xp[4 * c][wp:wp + span]
        e3 = xp[4 * c][wp + 1:wp + 1 + span]
        f0 = xp[4 * c + 1][0:span]
        f1 = xp[4 * c + 1][wp:wp + span]
        h0 = xp[4 * c + 2][0:span]
        h1 = xp[4 * c + 2][1:span + 1]
        q = xp[4 * c + 3][0:span]
        zero = xp.dtype.type(0)
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = zero
        b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = b8 = zero
        for p in range(span):
            u = g0[p]
            v = g1[p]
            x0, x1, x2 = e0[p], f0[p], e1[p]
            x3, x4, x5 = h0[p], q[p], h1[p]
            x6, x7, x8 = e2[p], f1[p], e3[p]
            a0 += u * x0
            a1 += u * x1
            a2 += u * x2
            a3 += u * x3
            a4 += u * x4
            a5 += u * x5
            a6 += u * x6
            a7 += u * x7
            a8 += u * x8
            b0 += v * x0
            b1 += v * x1
            b2 += v * x2
            b3 += v * x3
            b4 += v * x4
            b5 += v * x5
            b6 += v * x6
            b7 += v * x7
            b8 += v * x8
        _add9(dw0[c], a0, a1, a2, a3, a4, a5, a6, a7, a8)
        if not same:
            _add9(dw1[c], b0, b1, b2, b3, b4, b5, b6, b7, b8)


@numba.njit(parallel=True, **_jit)
def _weight_grad_chunks(x, dy, partial, wp, ps, per_chunk, chunks, length):
    channels, filters = x.shape[1], dy.shape[1]
    for chunk in prange(chunks):
        xp = np.zeros((4 * channels, length), x.dtype)
        g = np.zeros((filters, length), x.dtype)
        first = chunk * per_chunk
        samples = _pack_phases(x, first, per_chunk, xp, wp, ps)
        # packed like the output (zero where it is dropped), from offset wp + 1
        _pack(dy, first, per_chunk, g, wp, ps)
        span = _round_up(samples * ps)
        part = partial[chunk]
        part[:] = 0
        off = wp + 1
        for k in range(0, filters - 1, 2):
            _weight_taps2(xp, g[k][off:off + span], g[k + 1][off:off + span], part[k],
                          part[k + 1], wp, span, channels)
        if filters % 2:
            k = filters - 1
            _weight_taps2(xp, g[k][off:off + span], g[k][off:off + span], part[k],
                          part[k], wp, span, channels)


def backward_weight(x, dy):
    """The gradient of :func:`forward` with respect to its weight, ``(K, C, 3, 3)``."""
    n, _, oh, ow = dy.shape
    layout = _layout(n, oh, ow)
    partial = np.empty((layout[3], dy.shape[1], x.shape[1], 3, 3), x.dtype)
    _weight_grad_chunks(np.ascontiguousarray(x), np.ascontiguousarray(dy), partial,
                        *layout)
    return partial.sum(axis=0)
