"""Same-shape addition and copy of large float arrays as numba loops over the thread budget.

numpy runs every ufunc on one thread; a ResNet's residual additions (and the copy of
the output gradient its backward pass hands one of the two inputs) are millions of
values per call. These loops split contiguous arrays into blocks over numba's threads
(:mod:`symmod.threads` sizes them to the machine's load: one on a busy machine). Each
output element is computed alone, so the result is numpy's at any thread count. (relu,
the other large elementwise pass of such networks, is :func:`special.relu_forward`.)
:func:`add_relu` and :func:`relu_grad_pair` are a residual addition fused with the relu
that alone reads it (``executor/fusion.py``).
"""
import numba
import numpy as np

from .special import BLOCK, PARALLEL_MIN

__all__ = ['add', 'copy', 'add_relu', 'relu_grad_pair']


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


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _add_relu_range(a, b, out, lo, hi):
    a, b, out = a[lo:hi], b[lo:hi], out[lo:hi]
    zero = out.dtype.type(0)
    for i in range(a.size):
        v = a[i] + b[i]
        out[i] = v if v > 0 or v != v else zero     # NaN stays, as relu's


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _add_relu_blocks(a, b, out):
    for k in numba.prange(-(-a.size // BLOCK)):
        _add_relu_range(a, b, out, k * BLOCK, min(a.size, (k + 1) * BLOCK))


def add_relu(a, b, out):
    """``out = max(a + b, 0)``, NaN kept (``out`` may be ``a``'s or ``b``'s memory)."""
    if _blockwise(out, a, b):
        _add_relu_blocks(a.reshape(-1), b.reshape(-1), out.reshape(-1))
        return out
    np.add(a, b, out=out)
    return np.maximum(out, 0, out=out)      # numpy's maximum keeps NaN too


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _relu_grad_pair_range(dz, z, da, db, mode_a, mode_b, lo, hi):
    dz, z, da, db = dz[lo:hi], z[lo:hi], da[lo:hi], db[lo:hi]
    zero = dz.dtype.type(0)
    # mode: 0 null, 1 write, 2 add; one loop per case, each without branches on the
    # mode, so that it vectorizes (da, db are distinct memory here)
    if mode_a == 1 and mode_b == 1:
        for i in range(dz.size):
            g = dz[i] if z[i] > 0 else zero
            da[i] = g
            db[i] = g
    elif mode_a == 1 and mode_b == 2:
        for i in range(dz.size):
            g = dz[i] if z[i] > 0 else zero
            da[i] = g
            db[i] += g
    elif mode_a == 2 and mode_b == 1:
        for i in range(dz.size):
            g = dz[i] if z[i] > 0 else zero
            da[i] += g
            db[i] = g
    elif mode_a == 2 and mode_b == 2:
        for i in range(dz.size):
            g = dz[i] if z[i] > 0 else zero
            da[i] += g
            db[i] += g
    elif mode_a + mode_b > 0:
        one = da if mode_a else db
        if mode_a + mode_b == 1:
            for i in range(dz.size):
                one[i] = dz[i] if z[i] > 0 else zero
        else:
            for i in range(dz.size):
                one[i] += dz[i] if z[i] > 0 else zero


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _relu_grad_shared_range(dz, z, d, mode_a, mode_b, lo, hi):
    """Both gradients into one array ``d`` (an input added to itself), in order."""
    zero = dz.dtype.type(0)
    for i in range(lo, hi):
        g = dz[i] if z[i] > 0 else zero
        if mode_a == 1:
            d[i] = g
        elif mode_a == 2:
            d[i] += g
        if mode_b == 1:
            d[i] = g
        elif mode_b == 2:
            d[i] += g


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _relu_grad_pair_blocks(dz, z, da, db, mode_a, mode_b, shared):
    for k in numba.prange(-(-dz.size // BLOCK)):
        lo, hi = k * BLOCK, min(dz.size, (k + 1) * BLOCK)
        if shared:
            _relu_grad_shared_range(dz, z, da, mode_a, mode_b, lo, hi)
        else:
            _relu_grad_pair_range(dz, z, da, db, mode_a, mode_b, lo, hi)


_MODES = {'null': 0, 'write': 1, 'add': 2}


def relu_grad_pair(dz, z, da, db, req_a, req_b):
    """Both input gradients of ``relu(a + b)``: ``da (req_a)= dz * (z > 0)`` and the same
    into ``db`` (``req``: 'null', 'write' or 'add'; ``da`` and ``db`` may be one array)."""
    # a 'null' gradient's array (the plan's sink) is not touched: dz stands in for it
    da, db = (da if req_a != 'null' else dz), (db if req_b != 'null' else dz)
    if _blockwise(dz, z, da, db):
        shared = req_a != 'null' and req_b != 'null' and np.shares_memory(da, db)
        _relu_grad_pair_blocks(dz.reshape(-1), z.reshape(-1), da.reshape(-1), db.reshape(-1),
                               _MODES[req_a], _MODES[req_b], shared)
        return
    g = np.where(z > 0, dz, np.zeros((), dz.dtype))
    for dst, req in ((da, req_a), (db, req_b)):
        if req == 'write':
            np.copyto(dst, g)
        elif req == 'add':
            dst += g
