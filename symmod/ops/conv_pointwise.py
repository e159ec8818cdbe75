"""1x1 convolution (any stride, no padding, one group) as matrix products per sample.

A 1x1 convolution of NCHW data is ``out[n] = w @ x[n]`` with ``x[n]`` read as the
``(C, H * W)`` matrix of its (strided) positions: no column matrix and no layout copy of
the result, which comes out of the batched product already in NCHW order. Strided
inputs are subsampled into a contiguous buffer first.

The convolutions run their products with BLAS at one thread (``threads.serial_blas``), so
the samples are cut into contiguous ranges run on the calling thread's parts
(:mod:`thread_split`); each sample's product is the same BLAS call however the samples
are cut, so the results do not depend on the number of threads.
"""
import numba
import numpy as np

from . import thread_split
from .common import scratch, store_from

__all__ = ['supports', 'forward', 'backward']

# samples are cut into parts of at least this many multiply-adds
SPLIT_MIN_WORK = 1 << 20


def supports(kernel, dilates, pads, groups, ndim):
    """Whether these 1x1 products compute the convolution."""
    return (ndim == 4 and tuple(kernel) == (1, 1) and tuple(dilates) == (1, 1)
            and tuple(pads) == (0, 0) and groups == 1)


@numba.njit(cache=True, nogil=True, parallel=True)
def _subsample(x, rows, sh, sw):
    """``rows[n, c] = x[n, c, ::sh, ::sw]`` cut to ``rows``' size, samples over numba's
    threads (the copy is bound by memory: one thread does not saturate it)."""
    oh, ow = rows.shape[2], rows.shape[3]
    for n in numba.prange(x.shape[0]):
        for c in range(x.shape[1]):
            src, dst = x[n, c], rows[n, c]
            for h in range(oh):
                line, out = src[h * sh], dst[h]
                for v in range(ow):
                    out[v] = line[v * sw]


@numba.njit(cache=True, nogil=True, parallel=True)
def _scatter_add(grad, dx, sh, sw):
    """``dx[n, c, ::sh, ::sw] += grad[n, c]`` (the adjoint of :func:`_subsample`)."""
    oh, ow = grad.shape[2], grad.shape[3]
    for n in numba.prange(dx.shape[0]):
        for c in range(dx.shape[1]):
            src, dst = grad[n, c], dx[n, c]
            for h in range(oh):
                line, out = src[h], dst[h * sh]
                for v in range(ow):
                    out[v * sw] += line[v]


def _positions(x, strides, out_hw):
    """``x`` at the strided positions, as ``(N, C, positions)`` (a view when stride 1)."""
    n, c = x.shape[:2]
    if tuple(strides) == (1, 1):
        return x.reshape(n, c, -1)
    rows = scratch('pointwise_x', (n, c) + tuple(out_hw), x.dtype)
    if x.dtype in (np.float32, np.float64):
        _subsample(x, rows, strides[0], strides[1])
    else:
        np.copyto(rows, x[:, :, ::strides[0], ::strides[1]][:, :, :out_hw[0], :out_hw[1]])
    return rows.reshape(n, c, -1)


def _by_samples(fn, n, work):
    """``fn(lo, hi)`` over contiguous sample ranges covering ``range(n)``, one per part
    of the calling thread (a single range when ``work`` multiply-adds are few)."""
    parts = max(1, min(thread_split.parts(), n, work // SPLIT_MIN_WORK))
    bounds = [n * i // parts for i in range(parts + 1)]
    thread_split.run(lambda i: fn(bounds[i], bounds[i + 1]), parts)


def forward(x, w, out, strides, req):
    """``out (req)= conv1x1(x, w)`` (without bias)."""
    n, k = out.shape[:2]
    xs = _positions(x, strides, out.shape[2:])
    w2 = w.reshape(k, -1)
    out3 = out.reshape(n, k, -1)

    def part(lo, hi):
        if req == 'write':
            np.matmul(w2, xs[lo:hi], out=out3[lo:hi])
        else:
            out3[lo:hi] += np.matmul(w2, xs[lo:hi])
    _by_samples(part, n, out3.size * w2.shape[1])


def backward(x, w, dy, strides, req, dx, dw):
    """The data gradient into ``dx`` and the weight gradient into ``dw``, each following
    its write request in ``req`` ('null' skips it)."""
    n, k = dy.shape[:2]
    c = x.shape[1]
    dy3 = dy.reshape(n, k, -1)
    work = dy3.size * c
    if req[1] != 'null':
        xs = _positions(x, strides, dy.shape[2:])
        per_sample = scratch('pointwise_dw', (n, k, c), np.result_type(dy, xs))

        def weight_part(lo, hi):
            np.matmul(dy3[lo:hi], xs[lo:hi].transpose(0, 2, 1), out=per_sample[lo:hi])
        _by_samples(weight_part, n, work)
        store_from(dw.reshape(k, c), req[1], per_sample.sum(axis=0))
    if req[0] == 'null':
        return
    wt = w.reshape(k, c).T
    grad = scratch('pointwise_dx', (n, c, dy3.shape[2]), np.result_type(w, dy))

    def data_part(lo, hi):
        np.matmul(wt, dy3[lo:hi], out=grad[lo:hi])
    _by_samples(data_part, n, work)
    if tuple(strides) == (1, 1):
        store_from(dx.reshape(n, c, -1), req[0], grad)
        return
    if req[0] == 'write':
        dx.fill(0)
    oh, ow = dy.shape[2:]
    grad = grad.reshape(n, c, oh, ow)
    if dx.dtype == grad.dtype and dx.dtype in (np.float32, np.float64):
        _scatter_add(grad, dx, strides[0], strides[1])
    else:
        dx[:, :, ::strides[0], ::strides[1]][:, :, :oh, :ow] += grad
