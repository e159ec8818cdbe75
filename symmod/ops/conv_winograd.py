"""Winograd F(2x2, 3x3) convolution (3x3, stride 1, pad 1, one group) on NCHW data.

Each 2x2 block of outputs (a tile) comes from a 4x4 patch of the padded input. With
``V = B^T d B`` (the patch transformed), ``U = G g G^T`` (the filter transformed) and
``Y = A^T (U * V) A``, the 36 multiplications per tile and channel pair of a direct
3x3 convolution become 16, and those 16 are, for all tiles at once, 16 matrix products
``M[e] = U[e] @ V[e]`` (``(K, C) @ (C, tiles)``) that BLAS runs near the core's peak.
Tiles go in blocks (:data:`BLOCK_BYTES` of transformed input): transform a block, multiply,
transform back while the block is still in the L2 cache. The blocks are split into as
many contiguous runs as the caller has threads (``thread_split``), each run on its own
thread with serial transforms and its products at one BLAS thread; the weight gradient
keeps one partial sum per block and adds them in block order, so its value does not
depend on the thread count. For the 32- and 64-channel
stages of a CIFAR ResNet that is 1.3x and 1.9x faster than :mod:`conv_direct` (see
:func:`preferred`); with 16 channels the products are too thin for BLAS and the
transforms' memory traffic dominates.

* forward: transform input and weight, 16 products, transform back;
* data gradient: the forward with the weight flipped and its channel axes swapped (the
  correlation with padding 1 is its own adjoint up to that flip);
* weight gradient: ``dU[e] = dY'[e] @ V[e]^T`` with ``dY' = A dy A^T`` per tile, then
  ``dg = G^T dU G``.
"""
import numba
import numpy as np

from . import thread_split
from .common import matmul_into, scratch

__all__ = ['preferred', 'forward', 'backward_data', 'backward_weight']

_jit = dict(cache=True, nogil=True, fastmath=True, error_model='numpy')

# channels (input and output) from which the products beat the direct kernels: measured
# at one thread on ResNet-20's shapes (benchmarks/RESULTS.md, issue 15)
MIN_CHANNELS = 32


def preferred(channels, filters, dtype):
    """Whether this module, rather than :mod:`conv_direct`, should run a 3x3 stride-1
    pad-1 convolution of ``channels`` to ``filters`` channels (``conv_direct.supports``
    holds)."""
    return (channels >= MIN_CHANNELS and filters >= MIN_CHANNELS
            and np.dtype(dtype) in (np.float32, np.float64))


def _tiles(height, width):
    return (height + 1) // 2, (width + 1) // 2


@numba.njit(**_jit)
def _input_transform(x, v, th, tw, t0):
    """``v[e, c, t] = (B^T d B)[e]`` for every tile ``t`` (sample-major) of channel ``c``
    of ``x`` zero-padded by 1 (and past odd sizes)."""
    n, channels, height, width = x.shape
    per = th * tw
    count = v.shape[2]
    s0, s1 = t0 // per, (t0 + count - 1) // per + 1
    for c in range(channels):
        # one sample's plane zero-padded, so that the tiles need no bounds checks
        d = np.zeros((2 * th + 2, 2 * tw + 2), x.dtype)
        for s in range(s0, s1):
            plane = x[s, c]
            for i in range(height):
                for j in range(width):
                    d[i + 1, j + 1] = plane[i, j]
            for ty in range(th):
                y = 2 * ty
                for tx in range(tw):
                    t = (s * th + ty) * tw + tx - t0
                    if t < 0 or t >= count:
                        continue
                    j = 2 * tx
                    r0, r1, r2, r3 = d[y], d[y + 1], d[y + 2], d[y + 3]
                    # B^T d: rows (r0 - r2, r1 + r2, r2 - r1, r1 - r3), column by column
                    a0, a1, a2, a3 = r0[j] - r2[j], r0[j + 1] - r2[j + 1], \
                        r0[j + 2] - r2[j + 2], r0[j + 3] - r2[j + 3]
                    b0, b1, b2, b3 = r1[j] + r2[j], r1[j + 1] + r2[j + 1], \
                        r1[j + 2] + r2[j + 2], r1[j + 3] + r2[j + 3]
                    c0, c1, c2, c3 = r2[j] - r1[j], r2[j + 1] - r1[j + 1], \
                        r2[j + 2] - r1[j + 2], r2[j + 3] - r1[j + 3]
                    e0, e1, e2, e3 = r1[j] - r3[j], r1[j + 1] - r3[j + 1], \
                        r1[j + 2] - r3[j + 2], r1[j + 3] - r3[j + 3]
                    # (B^T d) B: the same combination along each row
                    v[0, c, t], v[1, c, t], v[2, c, t], v[3, c, t] = \
                        a0 - a2, a1 + a2, a2 - a1, a1 - a3
                    v[4, c, t], v[5, c, t], v[6, c, t], v[7, c, t] = \
                        b0 - b2, b1 + b2, b2 - b1, b1 - b3
                    v[8, c, t], v[9, c, t], v[10, c, t], v[11, c, t] = \
                        c0 - c2, c1 + c2, c2 - c1, c1 - c3
                    v[12, c, t], v[13, c, t], v[14, c, t], v[15, c, t] = \
                        e0 - e2, e1 + e2, e2 - e1, e1 - e3


@numba.njit(**_jit)
def _output_transform(m, out, th, tw, t0, add):
    """``out`` (N, K, H, W) from the 2x2 tiles ``A^T m A`` (with ``add``: added to it)."""
    n, filters, height, width = out.shape
    per = th * tw
    count = m.shape[2]
    s0, s1 = t0 // per, (t0 + count - 1) // per + 1
    for k in range(filters):
        for s in range(s0, s1):
            plane = out[s, k]
            for ty in range(th):
                for tx in range(tw):
                    t = (s * th + ty) * tw + tx - t0
                    if t < 0 or t >= count:
                        continue
                    # A^T m: rows 0 and 1 of the 2x4 intermediate
                    r00 = m[0, k, t] + m[4, k, t] + m[8, k, t]
                    r01 = m[1, k, t] + m[5, k, t] + m[9, k, t]
                    r02 = m[2, k, t] + m[6, k, t] + m[10, k, t]
                    r03 = m[3, k, t] + m[7, k, t] + m[11, k, t]
                    r10 = m[4, k, t] - m[8, k, t] - m[12, k, t]
                    r11 = m[5, k, t] - m[9, k, t] - m[13, k, t]
                    r12 = m[6, k, t] - m[10, k, t] - m[14, k, t]
                    r13 = m[7, k, t] - m[11, k, t] - m[15, k, t]
                    y, x = 2 * ty, 2 * tx
                    if add:
                        plane[y, x] += r00 + r01 + r02
                        if x + 1 < width:
                            plane[y, x + 1] += r01 - r02 - r03
                        if y + 1 < height:
                            plane[y + 1, x] += r10 + r11 + r12
                            if x + 1 < width:
                                plane[y + 1, x + 1] += r11 - r12 - r13
                        continue
                    plane[y, x] = r00 + r01 + r02
                    if x + 1 < width:
                        plane[y, x + 1] = r01 - r02 - r03
                    if y + 1 < height:
                        plane[y + 1, x] = r10 + r11 + r12
                        if x + 1 < width:
                            plane[y + 1, x + 1] = r11 - r12 - r13


@numba.njit(**_jit)
def _grad_transform(dy, g, th, tw, t0):
    """``g[e, k, t] = (A dy_tile A^T)[e]``: the output gradient's 2x2 tiles (zero past
    odd sizes) carried to the 4x4 transformed domain (the adjoint of the output
    transform)."""
    n, filters, height, width = dy.shape
    zero = dy.dtype.type(0)
    per = th * tw
    count = g.shape[2]
    s0, s1 = t0 // per, (t0 + count - 1) // per + 1
    for k in range(filters):
        for s in range(s0, s1):
            plane = dy[s, k]
            for ty in range(th):
                for tx in range(tw):
                    t = (s * th + ty) * tw + tx - t0
                    if t < 0 or t >= count:
                        continue
                    y, x = 2 * ty, 2 * tx
                    a = plane[y, x]
                    b = plane[y, x + 1] if x + 1 < width else zero
                    c = plane[y + 1, x] if y + 1 < height else zero
                    d = plane[y + 1, x + 1] if (x + 1 < width and y + 1 < height) else zero
                    # columns of A dy: (a, c) -> (a, a + c, a - c, -c), same for (b, d)
                    col0 = (a, a + c, a - c, -c)
                    col1 = (b, b + d, b - d, -d)
                    for i in range(4):
                        p, q = col0[i], col1[i]
                        g[4 * i, k, t] = p
                        g[4 * i + 1, k, t] = p + q
                        g[4 * i + 2, k, t] = p - q
                        g[4 * i + 3, k, t] = -q


def _planes(key, rows, cols, dtype):
    """A ``(16, rows, cols)`` scratch buffer (see ``common.scratch``: reused across calls,
    so that megabytes are not mapped and faulted in on every call) whose 16 planes start
    64 bytes apart modulo 4 KiB: the transforms read or write all 16 at once, and planes
    a multiple of 4 KiB apart would share one set of the L1 cache."""
    dtype = np.dtype(dtype)
    stride = rows * cols + 64 // dtype.itemsize
    if (stride * dtype.itemsize) % 4096 == 0:
        stride += 64 // dtype.itemsize
    flat = scratch('winograd_' + key, (16, stride), dtype)
    # a slice and a reshape (no copy): cheaper per call than numpy's as_strided
    return flat[:, :rows * cols].reshape(16, rows, cols)


@numba.njit(**_jit)
def _combine(a, b, d, half):
    """Row (a, b, d) times G^T: (a, (a + b + d) / 2, (a - b + d) / 2, d)."""
    return a, (a + b + d) * half, (a - b + d) * half, d


@numba.njit(**_jit)
def _weight_transform_into(w, u):
    """``u[4 i + j, k, c] = (G w[k, c] G^T)[i, j]`` with G's rows (1, 0, 0), (.5, .5, .5),
    (.5, -.5, .5), (0, 0, 1): each filter's 3x3 taps to its 4x4 transformed taps (scalars
    only, ``c`` innermost so that each of the 16 planes is written in order)."""
    filters, channels = w.shape[0], w.shape[1]
    half = w.dtype.type(0.5)
    for k in range(filters):
        for c in range(channels):
            g = w[k, c]
            for j in range(3):          # the columns of G g, kept in the rows of u
                a, b, d, e = _combine(g[0, j], g[1, j], g[2, j], half)
                u[j, k, c], u[4 + j, k, c], u[8 + j, k, c], u[12 + j, k, c] = a, b, d, e
            for i in range(4):          # (G g) G^T along each row
                r0, r1, r2, r3 = _combine(u[4 * i, k, c], u[4 * i + 1, k, c],
                                          u[4 * i + 2, k, c], half)
                u[4 * i, k, c], u[4 * i + 1, k, c] = r0, r1
                u[4 * i + 2, k, c], u[4 * i + 3, k, c] = r2, r3


@numba.njit(**_jit)
def _weight_grad_transform(du, dg):
    """``dg[k, c] = G^T dU[k, c] G`` (the adjoint of :func:`_weight_transform_into`), with
    ``dU[k, c][i, j] = du[4 i + j, k, c]``."""
    filters, channels = dg.shape[0], dg.shape[1]
    half = du.dtype.type(0.5)
    s = np.empty((3, 4), du.dtype)
    for k in range(filters):
        for c in range(channels):
            for j in range(4):          # G^T dU: rows d0 + (d1+d2)/2, (d1-d2)/2, (d1+d2)/2 + d3
                d0, d1, d2, d3 = du[j, k, c], du[4 + j, k, c], du[8 + j, k, c], du[12 + j, k, c]
                s[0, j] = d0 + (d1 + d2) * half
                s[1, j] = (d1 - d2) * half
                s[2, j] = (d1 + d2) * half + d3
            for r in range(3):          # (G^T dU) G, the same combination along each row
                a, b, e, f = s[r, 0], s[r, 1], s[r, 2], s[r, 3]
                dg[k, c, r, 0] = a + (b + e) * half
                dg[k, c, r, 1] = (b - e) * half
                dg[k, c, r, 2] = (b + e) * half + f


def _weight_transform(w):
    """``U[e] = (G g G^T)[e]`` as ``(16, K, C)`` planes (a scratch buffer: see
    :func:`_planes`). A numba loop; two tensordots took 145 us for 64 x 64 filters, the
    most of a Winograd layer's time at batch 1."""
    u = _planes('u', w.shape[0], w.shape[1], w.dtype)
    _weight_transform_into(np.ascontiguousarray(w), u)
    return u


# transformed input (and output) per block of tiles: about half the L2 cache
BLOCK_BYTES = 1 << 19


def _block(channels, filters, itemsize, scale=1):
    """Tiles per block; the weight gradient (``scale`` 2) sums a product per block into
    one small result, and fewer, longer products do better there."""
    return max(16, scale * BLOCK_BYTES // (16 * itemsize * max(channels, filters)))


def _runs(total, block):
    """Block starts, cut into contiguous runs, one per part."""
    starts = list(range(0, total, block))
    count = min(thread_split.parts(), len(starts))
    return [starts[i * len(starts) // count:(i + 1) * len(starts) // count]
            for i in range(count)]


def forward(x, w, out, add=False):
    """``out = conv3x3(x, w)`` with zero padding 1 (NCHW, stride 1); with ``add``,
    ``out += conv3x3(x, w)``."""
    n, channels, height, width = x.shape
    th, tw = _tiles(height, width)
    total = n * th * tw
    u = _weight_transform(w)
    x = np.ascontiguousarray(x)
    block = _block(channels, w.shape[0], x.itemsize)
    runs = _runs(total, block)

    def run(part):
        for t0 in runs[part]:
            count = min(block, total - t0)
            v = _planes('v', channels, count, x.dtype)
            _input_transform(x, v, th, tw, t0)
            m = _planes('m', w.shape[0], count, x.dtype)
            matmul_into(m, u, v, 'write')
            _output_transform(m, out, th, tw, t0, add)
    thread_split.run(run, len(runs))


def backward_data(dy, w, dx, add=False):
    """``dx =`` (with ``add``: ``dx +=``) the gradient of :func:`forward` with respect to
    its input."""
    forward(dy, np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)), dx, add)


def backward_weight(x, dy):
    """The gradient of :func:`forward` with respect to its weight, ``(K, C, 3, 3)``."""
    n, filters, height, width = dy.shape
    channels = x.shape[1]
    th, tw = _tiles(height, width)
    total = n * th * tw
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    block = _block(channels, filters, x.itemsize, scale=2)
    runs = _runs(total, block)
    partial = scratch('winograd_du', (-(-total // block), 16, filters, channels), x.dtype)

    def run(part):
        for t0 in runs[part]:
            count = min(block, total - t0)
            v = _planes('v', channels, count, x.dtype)
            _input_transform(x, v, th, tw, t0)
            g = _planes('m', filters, count, x.dtype)
            _grad_transform(dy, g, th, tw, t0)
            matmul_into(partial[t0 // block], g, v.transpose(0, 2, 1), 'write')
    thread_split.run(run, len(runs))
    du = _planes('du', filters, channels, x.dtype)      # planes apart in the cache sets
    np.sum(partial, axis=0, out=du)
    dg = np.empty((filters, channels, 3, 3), x.dtype)
    _weight_grad_transform(du, dg)
    return dg
