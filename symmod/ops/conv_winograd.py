"""Winograd F(2x2, 3x3) convolution (3x3, stride 1, pad 1, one group) on NCHW data.

Each 2x2 block of outputs (a tile) comes from a 4x4 patch of the padded input. With
``V = B^T d B`` (the patch transformed), ``U = G g G^T`` (the filter transformed) and
``Y = A^T (U * V) A``, the 36 multiplications per tile and channel pair of a direct
3x3 convolution become 16, and those 16 are, for all tiles at once, 16 matrix products
``M[e] = U[e] @ V[e]`` (``(K, C) @ (C, tiles)``) that BLAS runs near the core's peak.
Tiles go in blocks (:data:`BLOCK_BYTES` of transformed input): transform a block, multiply,
transform back while the block is still in the L2 cache. Each pass is one parallel numba
call: the blocks are cut into as many contiguous runs as the caller has numba threads,
each run on its own thread with its own planes, its products BLAS calls at one thread
from inside the loop (:mod:`blas_numba`), so that no Python runs between the pieces (it
did: a pool thread per call and a GIL hand-off per product and transform, and at two
threads the layers gained 1.6-1.7x). The weight gradient keeps one partial sum per block
and adds them in block order, split by filters, so its value does not depend on the
thread count; the filter transforms are split by filters too. Where numpy's BLAS cannot
be called from numba, the blocks run on :mod:`thread_split` with numpy's products.
For the 32- and 64-channel stages of a CIFAR ResNet that is 1.3x and 1.9x faster than
:mod:`conv_direct` (see :func:`preferred`); with 16 channels the products are too thin
for BLAS and the transforms' memory traffic dominates.

* forward: transform input and weight, 16 products, transform back;
* data gradient: the forward with the weight flipped and its channel axes swapped (the
  correlation with padding 1 is its own adjoint up to that flip), flipped in the filter
  transform;
* weight gradient: ``dU[e] = dY'[e] @ V[e]^T`` with ``dY' = A dy A^T`` per tile, then
  ``dg = G^T dU G``.
"""
import numba
import numpy as np

from .. import threads
from . import conv_winograd_transforms as transforms
from . import blas_numba, thread_split
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


def _planes(key, rows, cols, dtype, parts=None):
    """A ``(16, rows, cols)`` scratch buffer, or ``parts`` of them ``(parts, 16, rows,
    cols)`` (see ``common.scratch``: reused across calls, so that megabytes are not mapped
    and faulted in on every call) whose 16 planes start 64 bytes apart modulo 4 KiB: the
    transforms read or write all 16 at once, and planes a multiple of 4 KiB apart would
    share one set of the L1 cache."""
    dtype = np.dtype(dtype)
    stride = rows * cols + 64 // dtype.itemsize
    if (stride * dtype.itemsize) % 4096 == 0:
        stride += 64 // dtype.itemsize
    lead = () if parts is None else (parts,)
    flat = scratch('winograd_' + key, lead + (16, stride), dtype)
    # a slice and a reshape (no copy): cheaper per call than numpy's as_strided
    return flat[..., :rows * cols].reshape(lead + (16, rows, cols))


# transformed input (and output) per block of tiles: about half the L2 cache
BLOCK_BYTES = 1 << 19


def _block(channels, filters, itemsize, scale=1):
    """Tiles per block; the weight gradient (``scale`` 2) sums a product per block into
    one small result, and fewer, longer products do better there."""
    return max(16, scale * BLOCK_BYTES // (16 * itemsize * max(channels, filters)))


@numba.njit(parallel=True, **_jit)
def _forward_blocks(x, w, flip, u, v, m, out, th, tw, block, add):
    """The forward (with ``flip``: the data gradient) in one parallel call: the filter
    transform split by filters, then the blocks of tiles cut into ``len(v)`` contiguous
    runs, each on its own thread with its own planes ``v[p]`` and ``m[p]``."""
    parts = v.shape[0]
    rows = u.shape[1]
    if parts == 1:      # (called inside a parallel loop it takes 1.5x as long)
        transforms.weight_transform(w, u, flip, 0, rows)
    else:
        for p in numba.prange(parts):
            transforms.weight_transform(w, u, flip, p * rows // parts,
                                        (p + 1) * rows // parts)
    total = x.shape[0] * th * tw
    blocks = (total + block - 1) // block
    for p in numba.prange(parts):
        vp, mp = v[p], m[p]
        for b in range(p * blocks // parts, (p + 1) * blocks // parts):
            t0 = b * block
            count = min(block, total - t0)
            transforms.input_transform(x, vp, th, tw, t0, count)
            for e in range(16):
                blas_numba.gemm(u[e], vp[e, :, :count], mp[e, :, :count], False, False, 0.0)
            transforms.output_transform(mp, out, th, tw, t0, count, add)


@numba.njit(parallel=True, **_jit)
def _weight_grad_blocks(x, dy, v, g, partial, du, dw, th, tw, block):
    """The weight gradient in one parallel call: the blocks of tiles cut into ``len(v)``
    contiguous runs, each block's 16 products into its own ``partial[b]``; then, split
    by filters, the partial sums added in block order (so that the sum does not depend
    on the thread count) and ``G^T dU G``."""
    parts = v.shape[0]
    total = x.shape[0] * th * tw
    blocks = partial.shape[0]
    for p in numba.prange(parts):
        vp, gp = v[p], g[p]
        for b in range(p * blocks // parts, (p + 1) * blocks // parts):
            t0 = b * block
            count = min(block, total - t0)
            transforms.input_transform(x, vp, th, tw, t0, count)
            transforms.grad_transform(dy, gp, th, tw, t0, count)
            for e in range(16):
                blas_numba.gemm(gp[e, :, :count], vp[e, :, :count], partial[b, e], False,
                                True, 0.0)
    filters = dw.shape[0]
    if parts == 1:
        _sum_blocks(partial, du, 0, filters)
        transforms.weight_grad_transform(du, dw, 0, filters)
        return
    for p in numba.prange(parts):
        k0, k1 = p * filters // parts, (p + 1) * filters // parts
        _sum_blocks(partial, du, k0, k1)
        transforms.weight_grad_transform(du, dw, k0, k1)


@numba.njit(**_jit)
def _sum_blocks(partial, du, k0, k1):
    """``du[:, k0:k1]`` = the blocks' partial sums added in block order."""
    blocks, channels = partial.shape[0], partial.shape[3]
    for e in range(16):
        for k in range(k0, k1):
            row = du[e, k]
            first = partial[0, e, k]
            for c in range(channels):
                row[c] = first[c]
            for b in range(1, blocks):
                part = partial[b, e, k]
                for c in range(channels):
                    row[c] += part[c]


def _parts(work):
    """Threads for ``work`` independent pieces: the calling thread's numba threads."""
    return max(1, min(thread_split.parts(), work))


def forward(x, w, out, add=False):
    """``out = conv3x3(x, w)`` with zero padding 1 (NCHW, stride 1); with ``add``,
    ``out += conv3x3(x, w)``."""
    _forward(x, w, False, out, add)


def backward_data(dy, w, dx, add=False):
    """``dx =`` (with ``add``: ``dx +=``) the gradient of :func:`forward` with respect to
    its input: the forward with the weight flipped and its channel axes swapped."""
    _forward(dy, w, True, dx, add)


def _forward(x, w, flip, out, add):
    n, channels, height, width = x.shape
    filters = w.shape[1] if flip else w.shape[0]
    th, tw = _tiles(height, width)
    total = n * th * tw
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    block = _block(channels, filters, x.itemsize)
    u = _planes('u', filters, channels, x.dtype)
    if not blas_numba.AVAILABLE:
        _forward_numpy(x, w, flip, u, out, add, th, tw, block)
        return
    parts = _parts(-(-total // block))
    v = _planes('v', channels, block, x.dtype, parts)
    m = _planes('m', filters, block, x.dtype, parts)
    with threads.serial_blas():
        _forward_blocks(x, w, flip, u, v, m, out, th, tw, block, add)


def backward_weight(x, dy):
    """The gradient of :func:`forward` with respect to its weight, ``(K, C, 3, 3)``."""
    n, filters, height, width = dy.shape
    channels = x.shape[1]
    th, tw = _tiles(height, width)
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    block = _block(channels, filters, x.itemsize, scale=2)
    du = _planes('du', filters, channels, x.dtype)      # planes apart in the cache sets
    dw = np.empty((filters, channels, 3, 3), x.dtype)
    if not blas_numba.AVAILABLE:
        _weight_grad_numpy(x, dy, du, dw, th, tw, block)
        return dw
    blocks = -(-n * th * tw // block)
    parts = _parts(blocks)
    v = _planes('v', channels, block, x.dtype, parts)
    g = _planes('m', filters, block, x.dtype, parts)
    partial = scratch('winograd_du', (blocks, 16, filters, channels), x.dtype)
    with threads.serial_blas():
        _weight_grad_blocks(x, dy, v, g, partial, du, dw, th, tw, block)
    return dw


# ---- without numba-callable BLAS: blocks split by thread_split, numpy's products ------------
def _runs(total, block):
    """Block starts, cut into contiguous runs, one per part."""
    starts = list(range(0, total, block))
    count = _parts(len(starts))
    return [starts[i * len(starts) // count:(i + 1) * len(starts) // count]
            for i in range(count)]


def _forward_numpy(x, w, flip, u, out, add, th, tw, block):
    channels, filters = u.shape[2], u.shape[1]
    transforms.weight_transform(w, u, flip, 0, filters)
    total = x.shape[0] * th * tw
    runs = _runs(total, block)

    def run(part):
        for t0 in runs[part]:
            count = min(block, total - t0)
            v = _planes('v', channels, count, x.dtype)
            transforms.input_transform(x, v, th, tw, t0, count)
            m = _planes('m', filters, count, x.dtype)
            matmul_into(m, u, v, 'write')
            transforms.output_transform(m, out, th, tw, t0, count, add)
    thread_split.run(run, len(runs))


def _weight_grad_numpy(x, dy, du, dw, th, tw, block):
    filters, channels = du.shape[1], du.shape[2]
    total = x.shape[0] * th * tw
    runs = _runs(total, block)
    partial = scratch('winograd_du', (-(-total // block), 16, filters, channels), x.dtype)

    def run(part):
        for t0 in runs[part]:
            count = min(block, total - t0)
            v = _planes('v', channels, count, x.dtype)
            transforms.input_transform(x, v, th, tw, t0, count)
            g = _planes('m', filters, count, x.dtype)
            transforms.grad_transform(dy, g, th, tw, t0, count)
            matmul_into(partial[t0 // block], g, v.transpose(0, 2, 1), 'write')
    thread_split.run(run, len(runs))
    np.sum(partial, axis=0, out=du)
    transforms.weight_grad_transform(du, dw, 0, filters)
