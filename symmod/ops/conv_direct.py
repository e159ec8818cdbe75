"""Direct 3x3 convolution (stride 1, no dilation, one group) on NCHW data.

The im2col path (``conv.py``) copies every input value nine times into a column matrix
and multiplies it by the weight; for the small channel counts of CIFAR-style networks
that matrix product is short and wide, and the copies cost as much as the arithmetic.
These kernels instead slide the 3x3 window over a zero-padded copy of one sample's
planes, kept flat with the padded row width ``Wp``: output position ``(h, w)`` sits at
``p = h * Wp + w`` and its nine taps at ``p + i * Wp + j``, so one long vectorizable loop
over ``p`` covers the whole plane (the ``Wp - OW`` positions past each row's end are
computed and dropped). Loops run to a multiple of :data:`LANES` over zero tails, so no
scalar remainder loop is left.

* forward: ``out[n, k] = sum_c xpad[n, c] (*) w[k, c]``;
* data gradient: the same kernel on the output gradient padded by ``2 - pad`` with the
  weight flipped and its two channel axes swapped;
* weight gradient: nine dot products per (k, c) between the flat output gradient (zero in
  the dropped positions) and the shifted flat input.

Samples are split into at most :data:`CHUNKS` chunks run in a ``prange`` loop (numba's
threads, sized by :mod:`symmod.threads`); the weight gradient sums per-chunk partials in
chunk order, so its value does not depend on how many threads ran. :func:`backward`
computes both gradients in one such loop, packing each chunk's output gradient once.
"""
import numba
import numpy as np
from numba import prange

__all__ = ['supports', 'forward', 'backward', 'backward_data', 'backward_weight']

LANES = 16
CHUNKS = 8

_jit = dict(cache=True, nogil=True, fastmath=True, error_model='numpy')


def supports(kernel, strides, dilates, pads, groups, dtype):
    """Whether the direct kernels handle this convolution."""
    return (tuple(kernel) == (3, 3) and tuple(strides) == (1, 1)
            and tuple(dilates) == (1, 1) and tuple(pads) == (1, 1) and groups == 1
            and np.dtype(dtype) in (np.float32, np.float64))


@numba.njit(**_jit)
def _round_up(n):
    return -(-n // LANES) * LANES


@numba.njit(**_jit)
def _pack(x, first, per_chunk, dst, wp, ps):
    """Copy up to ``per_chunk`` samples of ``x`` (N, C, H, W) from ``first`` on into the
    packed zero-padded planes ``dst`` (C, length), whose padding stays zero; returns how
    many."""
    channels, height, width = x.shape[1], x.shape[2], x.shape[3]
    samples = min(x.shape[0] - first, per_chunk)
    for s in range(samples):
        for c in range(channels):
            src, flat = x[first + s, c], dst[c]
            for h in range(height):
                start = wp + 1 + s * ps + h * wp
                row = flat[start:start + width]
                line = src[h]
                for e in range(width):
                    row[e] = line[e]
    return samples


@numba.njit(**_jit)
def _unpack(acc, block, out, k0, first, samples, wp, ps, add):
    """The valid positions of the first ``block`` packed accumulator rows ``acc`` stored
    into (with ``add``: added to) ``out[first:first + samples, k0:k0 + block]``."""
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


@numba.njit(**_jit)
def _taps(o, r, wp, span, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    """``o[p] += sum of the nine taps of flat plane r at p`` for p < span."""
    r0 = r[0:span + 2]
    r1 = r[wp:wp + span + 2]
    r2 = r[2 * wp:2 * wp + span + 2]
    for p in range(span):
        o[p] += (a0 * r0[p] + a1 * r0[p + 1] + a2 * r0[p + 2]
                 + a3 * r1[p] + a4 * r1[p + 1] + a5 * r1[p + 2]
                 + a6 * r2[p] + a7 * r2[p + 1] + a8 * r2[p + 2])


@numba.njit(**_jit)
def _taps4(o0, o1, o2, o3, r, wp, span, t0, t1, t2, t3):
    """:func:`_taps` for four filters at once (``t*``: their (3, 3) weights for this
    channel), sharing the loads of the input."""
    r0 = r[0:span + 2]
    r1 = r[wp:wp + span + 2]
    r2 = r[2 * wp:2 * wp + span + 2]
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = (t0[0, 0], t0[0, 1], t0[0, 2], t0[1, 0], t0[1, 1],
                                          t0[1, 2], t0[2, 0], t0[2, 1], t0[2, 2])
    b0, b1, b2, b3, b4, b5, b6, b7, b8 = (t1[0, 0], t1[0, 1], t1[0, 2], t1[1, 0], t1[1, 1],
                                          t1[1, 2], t1[2, 0], t1[2, 1], t1[2, 2])
    c0, c1, c2, c3, c4, c5, c6, c7, c8 = (t2[0, 0], t2[0, 1], t2[0, 2], t2[1, 0], t2[1, 1],
                                          t2[1, 2], t2[2, 0], t2[2, 1], t2[2, 2])
    d0, d1, d2, d3, d4, d5, d6, d7, d8 = (t3[0, 0], t3[0, 1], t3[0, 2], t3[1, 0], t3[1, 1],
                                          t3[1, 2], t3[2, 0], t3[2, 1], t3[2, 2])
    for p in range(span):
        x0, x1, x2 = r0[p], r0[p + 1], r0[p + 2]
        x3, x4, x5 = r1[p], r1[p + 1], r1[p + 2]
        x6, x7, x8 = r2[p], r2[p + 1], r2[p + 2]
        o0[p] += (a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3 + a4 * x4 + a5 * x5 + a6 * x6
                  + a7 * x7 + a8 * x8)
        o1[p] += (b0 * x0 + b1 * x1 + b2 * x2 + b3 * x3 + b4 * x4 + b5 * x5 + b6 * x6
                  + b7 * x7 + b8 * x8)
        o2[p] += (c0 * x0 + c1 * x1 + c2 * x2 + c3 * x3 + c4 * x4 + c5 * x5 + c6 * x6
                  + c7 * x7 + c8 * x8)
        o3[p] += (d0 * x0 + d1 * x1 + d2 * x2 + d3 * x3 + d4 * x4 + d5 * x5 + d6 * x6
                  + d7 * x7 + d8 * x8)


@numba.njit(**_jit)
def _conv_samples(x, w, out, first, per_chunk, xp, acc, wp, ps, add):
    samples = _pack(x, first, per_chunk, xp, wp, ps)
    _conv_packed(xp, w, out, first, samples, acc, wp, ps, add)
    return samples


@numba.njit(**_jit)
def _conv_packed(xp, w, out, first, samples, acc, wp, ps, add):
    """``out[first:first + samples]`` (with ``add``: ``+=``) the convolution of the
    packed planes ``xp`` with ``w``; ``acc`` (4, length) is work space."""
    span = _round_up(samples * ps)
    filters, channels = w.shape[0], w.shape[1]
    for k0 in range(0, filters, 4):
        block = min(4, filters - k0)
        # whole rows of the C-contiguous buffers, so that numba knows they are contiguous
        # (slices of slices are not, and then nothing vectorizes)
        for b in range(block):
            acc[b][:span] = 0
        if block == 4:
            for c in range(channels):
                _taps4(acc[0], acc[1], acc[2], acc[3], xp[c], wp, span, w[k0, c],
                       w[k0 + 1, c], w[k0 + 2, c], w[k0 + 3, c])
        else:
            for b in range(block):
                for c in range(channels):
                    t = w[k0 + b, c]
                    _taps(acc[b], xp[c], wp, span, t[0, 0], t[0, 1], t[0, 2], t[1, 0],
                          t[1, 1], t[1, 2], t[2, 0], t[2, 1], t[2, 2])
        _unpack(acc, block, out, k0, first, samples, wp, ps, add)


def _layout(batch, height, width):
    """Packed row width, per-sample stride, samples per chunk, chunks, and the length of
    a chunk's packed plane (with the zero tail the loops read past the last sample)."""
    wp = width + 1
    ps = (height + 1) * wp
    chunks = min(batch, CHUNKS)
    per_chunk = -(-batch // chunks)
    chunks = -(-batch // per_chunk)
    length = 2 * wp + 2 + _round_up(per_chunk * ps)
    return wp, ps, per_chunk, chunks, length


@numba.njit(parallel=True, **_jit)
def _conv_chunks(x, w, out, add, wp, ps, per_chunk, chunks, length):
    channels = x.shape[1]
    for chunk in prange(chunks):
        xp = np.zeros((channels, length), x.dtype)
        acc = np.empty((4, length), x.dtype)
        _conv_samples(x, w, out, chunk * per_chunk, per_chunk, xp, acc, wp, ps, add)


def forward(x, w, out, add=False):
    """``out = conv3x3(x, w)`` with zero padding 1 (NCHW, stride 1); with ``add``,
    ``out += conv3x3(x, w)``."""
    n, _, height, width = x.shape
    _conv_chunks(np.ascontiguousarray(x), np.ascontiguousarray(w), out, add,
                 *_layout(n, height, width))


@numba.njit(**_jit)
def _weight_taps(xp, g, offset, dw, wp, span):
    """``dw[k, c, i, j] += sum_p g[k, offset + p] * xp[c, p + i * wp + j]``, two filters
    at a time (sharing the loads of the input)."""
    filters, channels = dw.shape[0], dw.shape[1]
    for k in range(0, filters - 1, 2):
        _weight_taps2(xp, g[k][offset:offset + span], g[k + 1][offset:offset + span],
                      dw[k], dw[k + 1], wp, span, channels)
    if filters % 2:
        k = filters - 1
        _weight_taps2(xp, g[k][offset:offset + span], g[k][offset:offset + span],
                      dw[k], dw[k], wp, span, channels)


@numba.njit(**_jit)
def _weight_taps2(xp, g0, g1, dw0, dw1, wp, span, channels):
    """Both filters' nine sums for every channel; with ``dw1 is dw0`` (an odd last filter)
    only the first filter's are stored."""
    same = dw1 is dw0
    for c in range(channels):
        r = xp[c]
        r0 = r[0:span + 2]
        r1 = r[wp:wp + span + 2]
        r2 = r[2 * wp:2 * wp + span + 2]
        zero = xp.dtype.type(0)
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = zero
        b0 = b1 = b2 = b3 = b4 = b5 = b6 = b7 = b8 = zero
        for p in range(span):
            u = g0[p]
            v = g1[p]
            x0, x1, x2 = r0[p], r0[p + 1], r0[p + 2]
            x3, x4, x5 = r1[p], r1[p + 1], r1[p + 2]
            x6, x7, x8 = r2[p], r2[p + 1], r2[p + 2]
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
def _add9(t, a0, a1, a2, a3, a4, a5, a6, a7, a8):
    t[0, 0] += a0
    t[0, 1] += a1
    t[0, 2] += a2
    t[1, 0] += a3
    t[1, 1] += a4
    t[1, 2] += a5
    t[2, 0] += a6
    t[2, 1] += a7
    t[2, 2] += a8


@numba.njit(parallel=True, **_jit)
def _backward_chunks(x, dy, flipped, dx, partial, add, weight, data, wp, ps, per_chunk,
                     chunks, length):
    channels, filters = x.shape[1], dy.shape[1]
    for chunk in prange(chunks):
        first = chunk * per_chunk
        # the output gradient packed once for both gradients: like the input (padded by
        # one, which the data gradient's correlation needs) and zero where the output is
        # dropped (which the weight gradient's sums need)
        g = np.zeros((filters, length), dy.dtype)
        samples = _pack(dy, first, per_chunk, g, wp, ps)
        if weight:
            xp = np.zeros((channels, length), x.dtype)
            _pack(x, first, per_chunk, xp, wp, ps)
            part = partial[chunk]
            part[:] = 0
            # g was packed with the input's offset (wp + 1); the output sits at offset 0
            _weight_taps(xp, g, wp + 1, part, wp, _round_up(samples * ps))
        if data:
            acc = np.empty((4, length), dy.dtype)
            _conv_packed(g, flipped, dx, first, samples, acc, wp, ps, add)


def backward(x, w, dy, dx=None, add=False, weight=True):
    """The gradients of :func:`forward` in one pass over the samples: ``dx = `` (with
    ``add``: ``dx +=``) the data gradient when ``dx`` is given, and the weight gradient
    ``(K, C, 3, 3)`` returned when ``weight`` (else None).

    The data gradient is the same correlation as the forward pass, on the output gradient
    with the weight flipped and its channel axes swapped. The weight gradient sums
    per-chunk partials in chunk order."""
    n, _, height, width = dy.shape
    layout = _layout(n, height, width)
    data = dx is not None
    if data:
        flipped = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    else:
        flipped, dx = np.empty((0, 0, 3, 3), dy.dtype), np.empty((0, 0, 0, 0), dy.dtype)
    partial = np.empty((layout[3] if weight else 0, dy.shape[1], x.shape[1], 3, 3), x.dtype)
    _backward_chunks(np.ascontiguousarray(x), np.ascontiguousarray(dy), flipped, dx,
                     partial, add, weight, data, *layout)
    return partial.sum(axis=0) if weight else None


def backward_data(dy, w, dx, add=False):
    """``dx = `` (with ``add``: ``dx +=``) the gradient of :func:`forward` with respect
    to its input (:func:`backward` without the weight gradient)."""
    backward(dx, w, dy, dx, add, weight=False)


def backward_weight(x, dy):
    """The gradient of :func:`forward` with respect to its weight, ``(K, C, 3, 3)``."""
    return backward(x, None, dy)
