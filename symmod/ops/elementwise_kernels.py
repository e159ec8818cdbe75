"""Same-shape addition of large float arrays as a numba loop over the thread budget.

numpy runs every ufunc on one thread; a ResNet's residual additions are millions of
values per call. This loop splits contiguous arrays into blocks over numba's threads
(:mod:`symmod.threads` sizes them to the machine's load: one on a busy machine). Each
output element is computed alone, so the result is numpy's at any thread count. (relu,
the other large elementwise pass of such networks, is :func:`special.relu_forward`.)
"""
import numba
import numpy as np

from .special import BLOCK, PARALLEL_MIN

__all__ = ['add']


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _add_range(a, b, out, lo, hi):
    a, b, out = a[lo:hi], b[lo:hi], out[lo:hi]
    for i in range(a.size):
        out[i] = a[i] + b[i]


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _add_blocks(a, b, out):
    for k in numba.prange(-(-a.size // BLOCK)):
        _add_range(a, b, out, k * BLOCK, min(a.size, (k + 1) * BLOCK))


def add(a, b, out=None):
    """``numpy.add(a, b, out=out)``, in numba's threads for large same-shape float32 /
    float64 arrays (contiguous, one dtype)."""
    if (out is None or out.size < PARALLEL_MIN or out.dtype not in (np.float32, np.float64)
            or not out.flags.c_contiguous
            or any(x.dtype != out.dtype or x.shape != out.shape or not x.flags.c_contiguous
                   for x in (a, b))):
        return np.add(a, b, out=out)
    _add_blocks(a.reshape(-1), b.reshape(-1), out.reshape(-1))
    return out
