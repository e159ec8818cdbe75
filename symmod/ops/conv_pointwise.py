"""1x1 convolution (any stride, no padding, one group) as matrix products per sample.

A 1x1 convolution of NCHW data is ``out[n] = w @ x[n]`` with ``x[n]`` read as the
``(C, H * W)`` matrix of its (strided) positions: no column matrix and no layout copy of
the result, which comes out of the batched product already in NCHW order. Strided
inputs are subsampled into a contiguous buffer first.
"""
import numba
import numpy as np

from .common import scratch, store_from

__all__ = ['supports', 'forward', 'backward']


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


def forward(x, w, out, strides, req):
    """``out (req)= conv1x1(x, w)`` (without bias)."""
    n, k = out.shape[:2]
    xs = _positions(x, strides, out.shape[2:])
    w2 = w.reshape(k, -1)
    if req == 'write':
        np.matmul(w2, xs, out=out.reshape(n, k, -1))
    else:
        out.reshape(n, k, -1)[...] += np.matmul(w2, xs)


def backward(x, w, dy, strides, req, dx, dw):
    """The data gradient into ``dx`` and the weight gradient into ``dw``, each following
    its write request in ``req`` ('null' skips it)."""
    n, k = dy.shape[:2]
    c = x.shape[1]
    dy3 = dy.reshape(n, k, -1)
    if req[1] != 'null':
        xs = _positions(x, strides, dy.shape[2:])
        per_sample = np.matmul(dy3, xs.transpose(0, 2, 1))
        store_from(dw.reshape(k, c), req[1], per_sample.sum(axis=0))
    if req[0] == 'null':
        return
    grad = np.matmul(w.reshape(k, c).T, dy3)
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
