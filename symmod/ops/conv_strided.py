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
  in front by ``Wp + 1`` and zero in the dropped positions), two channels and four
  filters a pass, then re-interleaved;
* weight gradient: nine dot products per (k, c) between the flat output gradient and
  the shifted phases.

Samples are split into at most :data:`CHUNKS` fixed chunks run in a ``prange`` loop; the
weight gradient sums per-chunk partials in chunk order, so its value does not depend on
how many threads ran. :func:`backward` computes both gradients in one such loop, packing
each chunk's output gradient once.
"""
import numba
import numpy as np
from numba import prange

from .conv_direct import _add9, _jit, _pack, _round_up, _unpack

__all__ = ['supports', 'forward', 'backward', 'backward_data', 'backward_weight']


# samples are cut into at most this many chunks: fewer than conv_direct's, since the
# phase planes of one sample are a quarter of its planes (longer loops run faster)
CHUNKS = 4


def _layout(batch, oh, ow):
    """Phase-plane row width, per-sample stride, samples per chunk, chunks, and the
    length of a chunk's flat planes (with the zero tail the loops read past the last
    sample), for an ``oh`` x ``ow`` output."""
    wp = ow + 1
    ps = (oh + 1) * wp
    per_chunk = -(-batch // min(batch, CHUNKS))
    chunks = -(-batch // per_chunk)
    return wp, ps, per_chunk, chunks, 2 * wp + 2 + _round_up(per_chunk * ps)


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
    if width % 2:
        _pack_phase_rows(x, first, samples, dst, wp, ps)
        return samples
    # an even width: a plane's columns split in one long loop (row by row, the loops are
    # too short to run fast), then copied row by row
    half = width // 2
    cols = np.empty((2, height * half), x.dtype)
    odd, even = cols[0], cols[1]
    for s in range(samples):
        for c in range(channels):
            plane = x[first + s, c].reshape(height * width)
            for q in range(height * half):
                odd[q] = plane[2 * q]
                even[q] = plane[2 * q + 1]
            for h in range(height):
                a = (h + 1) % 2
                base = s * ps + ((h + 1) // 2) * wp
                # b = 0 holds input columns 1, 3, 5, ... from v = 1; b = 1 columns 0, 2, ...
                to_even = dst[4 * c + 2 * a][base + 1:base + 1 + half]
                to_odd = dst[4 * c + 2 * a + 1][base:base + half]
                from_even = even[h * half:(h + 1) * half]
                from_odd = odd[h * half:(h + 1) * half]
                for v in range(half):
                    to_even[v] = from_even[v]
                    to_odd[v] = from_odd[v]
    return samples


@numba.njit(**_jit)
def _pack_phase_rows(x, first, samples, dst, wp, ps):
    """:func:`_pack_phases` row by row (any width)."""
    channels, height, width = x.shape[1], x.shape[2], x.shape[3]
    for s in range(samples):
        for c in range(channels):
            src = x[first + s, c]
            for h in range(height):
                a = (h + 1) % 2
                base = s * ps + ((h + 1) // 2) * wp
                line = src[h]
                even = dst[4 * c + 2 * a][base + 1:base + 1 + width // 2]
                odd = dst[4 * c + 2 * a + 1][base:base + (width + 1) // 2]
                for v in range(width // 2):
                    odd[v] = line[2 * v]
                    even[v] = line[2 * v + 1]
                if width % 2:
                    odd[width // 2] = line[width - 1]


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
def _phase_grads(d, r, g, k, wp, span, w, c):
    """Add filter ``k``'s share (weight ``w[k, c]``) of its output-gradient row ``g[k]``
    (padded in front by ``wp + 1``) to channel ``c``'s four phase gradients, rows
    ``r`` to ``r + 3`` of ``d``."""
    t = w[k, c]
    a0, a1, a2 = t[0, 0], t[0, 1], t[0, 2]
    a3, a4, a5 = t[1, 0], t[1, 1], t[1, 2]
    a6, a7, a8 = t[2, 0], t[2, 1], t[2, 2]
    d00, d01, d10, d11 = d[r], d[r + 1], d[r + 2], d[r + 3]
    h0, h1, h2, h3 = _shifts(g[k], wp, span)
    for p in range(span):
        y0, y1, y2, y3 = h0[p], h1[p], h2[p], h3[p]
        d00[p] += a0 * y3 + a2 * y2 + a6 * y1 + a8 * y0
        d01[p] += a1 * y3 + a7 * y1
        d10[p] += a3 * y3 + a5 * y2
        d11[p] += a4 * y3


@numba.njit(**_jit)
def _shifts(row, wp, span):
    """``row`` at the four shifts the taps read (slices, so that loops index by p alone
    and vectorize: an index like ``p + wp`` goes through numba's negative-index check)."""
    return row[0:span], row[1:span + 1], row[wp:wp + span], row[wp + 1:wp + 1 + span]


@numba.njit(**_jit)
def _phase_grads_pair(d, g, k, wp, span, w, c):
    """:func:`_phase_grads` for filters ``k`` to ``k + 3`` and channels ``c`` (rows 0-3)
    and ``c + 1`` (rows 4-7), one pass per phase: two output streams a loop, which
    share the loads of the output gradient."""
    t, u, r, z = w[k, c], w[k + 1, c], w[k + 2, c], w[k + 3, c]
    T, U, R, Z = w[k, c + 1], w[k + 1, c + 1], w[k + 2, c + 1], w[k + 3, c + 1]
    ga0, ga1, ga2, ga3 = _shifts(g[k], wp, span)
    gb0, gb1, gb2, gb3 = _shifts(g[k + 1], wp, span)
    gc0, gc1, gc2, gc3 = _shifts(g[k + 2], wp, span)
    gd0, gd1, gd2, gd3 = _shifts(g[k + 3], wp, span)
    o, O = d[0], d[4]
    for p in range(span):
        y0, y1, y2, y3 = ga0[p], ga1[p], ga2[p], ga3[p]
        v0, v1, v2, v3 = gb0[p], gb1[p], gb2[p], gb3[p]
        x0, x1, x2, x3 = gc0[p], gc1[p], gc2[p], gc3[p]
        z0, z1, z2, z3 = gd0[p], gd1[p], gd2[p], gd3[p]
        o[p] += (t[0, 0] * y3 + t[0, 2] * y2 + t[2, 0] * y1 + t[2, 2] * y0
                 + u[0, 0] * v3 + u[0, 2] * v2 + u[2, 0] * v1 + u[2, 2] * v0
                 + r[0, 0] * x3 + r[0, 2] * x2 + r[2, 0] * x1 + r[2, 2] * x0
                 + z[0, 0] * z3 + z[0, 2] * z2 + z[2, 0] * z1 + z[2, 2] * z0)
        O[p] += (T[0, 0] * y3 + T[0, 2] * y2 + T[2, 0] * y1 + T[2, 2] * y0
                 + U[0, 0] * v3 + U[0, 2] * v2 + U[2, 0] * v1 + U[2, 2] * v0
                 + R[0, 0] * x3 + R[0, 2] * x2 + R[2, 0] * x1 + R[2, 2] * x0
                 + Z[0, 0] * z3 + Z[0, 2] * z2 + Z[2, 0] * z1 + Z[2, 2] * z0)
    o, O = d[1], d[5]
    for p in range(span):
        y1, y3, v1, v3 = ga1[p], ga3[p], gb1[p], gb3[p]
        x1, x3, z1, z3 = gc1[p], gc3[p], gd1[p], gd3[p]
        o[p] += (t[0, 1] * y3 + t[2, 1] * y1 + u[0, 1] * v3 + u[2, 1] * v1
                 + r[0, 1] * x3 + r[2, 1] * x1 + z[0, 1] * z3 + z[2, 1] * z1)
        O[p] += (T[0, 1] * y3 + T[2, 1] * y1 + U[0, 1] * v3 + U[2, 1] * v1
                 + R[0, 1] * x3 + R[2, 1] * x1 + Z[0, 1] * z3 + Z[2, 1] * z1)
    o, O = d[2], d[6]
    for p in range(span):
        y2, y3, v2, v3 = ga2[p], ga3[p], gb2[p], gb3[p]
        x2, x3, z2, z3 = gc2[p], gc3[p], gd2[p], gd3[p]
        o[p] += (t[1, 0] * y3 + t[1, 2] * y2 + u[1, 0] * v3 + u[1, 2] * v2
                 + r[1, 0] * x3 + r[1, 2] * x2 + z[1, 0] * z3 + z[1, 2] * z2)
        O[p] += (T[1, 0] * y3 + T[1, 2] * y2 + U[1, 0] * v3 + U[1, 2] * v2
                 + R[1, 0] * x3 + R[1, 2] * x2 + Z[1, 0] * z3 + Z[1, 2] * z2)
    o, O = d[3], d[7]
    for p in range(span):
        y3, v3, x3, z3 = ga3[p], gb3[p], gc3[p], gd3[p]
        o[p] += t[1, 1] * y3 + u[1, 1] * v3 + r[1, 1] * x3 + z[1, 1] * z3
        O[p] += T[1, 1] * y3 + U[1, 1] * v3 + R[1, 1] * x3 + Z[1, 1] * z3


@numba.njit(**_jit)
def _unpack_phases(d, r, dx, c, first, s, wp, ps, add):
    """Re-interleave the phase gradients in rows ``r`` to ``r + 3`` of ``d`` for sample
    ``s`` of the chunk into ``dx[first + s, c]`` (with ``add``: added to it)."""
    height, width = dx.shape[2], dx.shape[3]
    dst = dx[first + s, c]
    for h in range(height):
        a = (h + 1) % 2
        base = s * ps + ((h + 1) // 2) * wp
        line = dst[h]
        even = d[r + 2 * a][base + 1:base + 1 + width // 2]
        odd = d[r + 2 * a + 1][base:base + (width + 1) // 2]
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


@numba.njit(**_jit)
def _data_grad_packed(g, w, dx, first, samples, d, wp, ps, add):
    """``dx[first:first + samples]`` (with ``add``: ``+=``) the data gradient from the
    packed output gradient ``g``; ``d`` (8, length) is work space."""
    filters, channels = w.shape[0], w.shape[1]
    quads = filters - filters % 4
    span = _round_up(samples * ps)
    for c in range(0, channels, 2):
        pair = c + 1 < channels
        d[:, :span] = 0
        for k in range(0, quads if pair else 0, 4):
            _phase_grads_pair(d, g, k, wp, span, w, c)
        for k in range(quads if pair else 0, filters):
            _phase_grads(d, 0, g, k, wp, span, w, c)
            if pair:
                _phase_grads(d, 4, g, k, wp, span, w, c + 1)
        for s in range(samples):
            _unpack_phases(d, 0, dx, c, first, s, wp, ps, add)
            if pair:
                _unpack_phases(d, 4, dx, c + 1, first, s, wp, ps, add)


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


@numba.njit(**_jit)
def _weight_grad_packed(xp, g, part, wp, span):
    """``part = `` the weight gradient from the packed phases ``xp`` and output gradient
    ``g`` (packed from offset wp + 1, zero where the output is dropped)."""
    channels, filters = part.shape[1], part.shape[0]
    part[:] = 0
    off = wp + 1
    for k in range(0, filters - 1, 2):
        _weight_taps2(xp, g[k][off:off + span], g[k + 1][off:off + span], part[k],
                      part[k + 1], wp, span, channels)
    if filters % 2:
        k = filters - 1
        _weight_taps2(xp, g[k][off:off + span], g[k][off:off + span], part[k],
                      part[k], wp, span, channels)


@numba.njit(parallel=True, **_jit)
def _backward_chunks(x, dy, w, dx, partial, add, weight, data, wp, ps, per_chunk, chunks,
                     length):
    channels, filters = x.shape[1], dy.shape[1]
    for chunk in prange(chunks):
        first = chunk * per_chunk
        # the output gradient packed once for both gradients
        g = np.zeros((filters, length), dy.dtype)
        samples = _pack(dy, first, per_chunk, g, wp, ps)
        if weight:
            xp = np.zeros((4 * channels, length), x.dtype)
            _pack_phases(x, first, per_chunk, xp, wp, ps)
            _weight_grad_packed(xp, g, partial[chunk], wp, _round_up(samples * ps))
        if data:
            d = np.empty((8, length), dy.dtype)
            _data_grad_packed(g, w, dx, first, samples, d, wp, ps, add)


def backward(x, w, dy, dx=None, add=False, weight=True):
    """The gradients of :func:`forward` in one pass over the samples: ``dx = `` (with
    ``add``: ``dx +=``) the data gradient when ``dx`` is given, and the weight gradient
    ``(K, C, 3, 3)`` returned when ``weight`` (else None; per-chunk partials summed in
    chunk order)."""
    n, _, oh, ow = dy.shape
    layout = _layout(n, oh, ow)
    data = dx is not None
    if data:
        w = np.ascontiguousarray(w)
    else:
        w, dx = np.empty((0, 0, 3, 3), dy.dtype), np.empty((0, 0, 0, 0), dy.dtype)
    partial = np.empty((layout[3] if weight else 0, dy.shape[1], x.shape[1], 3, 3), x.dtype)
    _backward_chunks(np.ascontiguousarray(x), np.ascontiguousarray(dy), w, dx, partial, add,
                     weight, data, *layout)
    return partial.sum(axis=0) if weight else None


def backward_data(dy, w, dx, add=False):
    """``dx = `` (with ``add``: ``dx +=``) the gradient of :func:`forward` with respect
    to its input (:func:`backward` without the weight gradient)."""
    backward(dx, w, dy, dx, add, weight=False)


def backward_weight(x, dy):
    """The gradient of :func:`forward` with respect to its weight, ``(K, C, 3, 3)``."""
    return backward(x, None, dy)
