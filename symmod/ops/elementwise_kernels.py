"""Same-shape addition and copy of large float arrays as numba loops over the thread budget.

numpy runs every ufunc on one thread; a ResNet's residual additions (and the copy of
the output gradient its backward pass hands one of the two inputs) are millions of
values per call. These loops split contiguous arrays into blocks over numba's threads
(:mod:`symmod.threads` sizes them to the machine's load: one on a busy machine). Each
output element is computed alone, so the result is numpy's at any thread count. (relu,
the other large elementwise pass of such networks, is :func:`special.relu_forward`.)
"""
import numba
import numpy as np

from .special import BLOCK, PARALLEL_MIN

__all__ = ['add', 'copy']


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _add_range(a, b, out, lo, hi):
    a, b, out = a[lo:hi], b[lo:hi], out[lo:hi]
    for i in range(a.size):
        out[i] = a[i] + b[i]


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _add_blocks(a, b, out):
    for k in numba.prange(-(-a.size // BLOCK)):
        _add_range(a, b, out, k * BLOCK, min(a.size, (k + 1) * BLOCK))


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _copy_blocks(src, out):
    for k in numba.prange(-(-src.size // BLOCK)):
        lo, hi = k * BLOCK, min(src.size, (k + 1) * BLOCK)
        out[lo:hi] = src[lo:hi]


def _blockwise(out, *arrays):
    """Whether the block loops apply: ``out`` and ``arrays`` large, contiguous, one shape
    and one float dtype."""
    return (out is not None and out.size >= PARALLEL_MIN
            and out.dtype in (np.float32, np.float64) and out.flags.c_contiguous
            and all(x.dtype == out.dtype and x.shape == out.shape and x.flags.c_contiguous
                    for x in arrays))


def add(a, b, out=None):
    """``numpy.add(a, b, out=out)``, in numba's threads for large same-shape float32 /
    float64 arrays (contiguous, one dtype)."""
    if not _blockwise(out, a, b):
        return np.add(a, b, out=out)
    _add_blocks(a.reshape(-1), b.reshape(-1), out.reshape(-1))
    return out


def copy(src, out):
    """``numpy.copyto(out, src)``, in numba's threads for large same-shape float32 /
    float64 arrays (contiguous, one dtype); returns ``out``."""
    if _blockwise(out, src):
        _copy_blocks(src.reshape(-1), out.reshape(-1))
    else:
        np.copyto(out, src)
    return out
