"""numpy's own BLAS ``sgemm`` (and ``dgemm``), callable from numba functions.

numba's ``np.dot`` calls scipy's BLAS. Where numpy's OpenBLAS is newer, as in the
``scipy-openblas`` wheels, its ``sgemm`` is ~20% faster at the small products of a
recurrent layer's time step (32x200 by 200x800: 113 vs 143 us), so loops that multiply
once per step either ran in Python around ``np.matmul`` (paying ~5 us of calls and
slicing per step) or lost that 20% in numba. This module binds numpy's ``cblas_sgemm``
and ``cblas_dgemm`` (64-bit integer interface) under fixed symbol names, so that numba
functions compiled with ``cache=True`` call them directly, with any row strides,
transposes and ``beta``. Kernels that split their work over numba's threads call them
from inside their parallel loops (the Winograd convolutions), with BLAS at one thread
(:func:`symmod.threads.serial_blas`).

:data:`AVAILABLE` is False when numpy's BLAS exports no such function (an MKL or
32-bit-integer BLAS); callers then keep their numpy path. :func:`gemm` must only be
called when it is True.
"""
import ctypes
import os

import numba
import numpy as np
from numba import types

__all__ = ['AVAILABLE', 'SMALL', 'gemm', 'gemm_blocked', 'gemm_into', 'transpose_into']

# 64-bit-integer CBLAS names: the scipy-openblas wheels' prefixed/suffixed one first
_NAMES = ('scipy_cblas_%sgemm64_', 'cblas_%sgemm64_', 'cblas_%sgemm_64')
_SYMBOL = 'symmod_numpy_sgemm'
_SYMBOL_D = 'symmod_numpy_dgemm'
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def _numpy_blas_paths():
    """The BLAS libraries loaded in this process, numpy's own first."""
    from threadpoolctl import ThreadpoolController
    numpy_dir = os.path.dirname(os.path.dirname(os.path.abspath(np.__file__)))
    paths = [c.filepath for c in ThreadpoolController().lib_controllers
             if c.user_api == 'blas' and c.filepath]
    # numpy's wheel keeps its BLAS in site-packages/numpy.libs; scipy has its own
    paths.sort(key=lambda p: not os.path.abspath(p).startswith(
        os.path.join(numpy_dir, 'numpy.libs')))
    return paths


# OpenBLAS's AVX-512 cores multiply products of at most 100^3 multiply-adds with its
# small-matrix kernels, straight from the operands: a larger one first copies both
# operands into packed panels, which for a recurrent step's product (32x200 by 200x800)
# costs ~20% of it (113 vs 90 us when split in six column blocks). Other cores have no
# such kernels, and splitting only adds calls (Haswell's: 105 vs 109 us).
_SMALL_KERNEL_CORES = ('skylakex', 'cooperlake', 'sapphirerapids')
_SMALL_MNK = 100 ** 3


# OpenBLAS's out-of-place transpose-copy (64-bit-integer CBLAS names)
_OMATCOPY_NAMES = ('scipy_cblas_somatcopy64_', 'cblas_somatcopy64_', 'cblas_somatcopy_64')
_OMATCOPY = []


def _bind_omatcopy(lib):
    for name in _OMATCOPY_NAMES:
        func = getattr(lib, name, None)
        if func is not None:
            i64 = ctypes.c_int64
            func.restype = None
            func.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, ctypes.c_float,
                             ctypes.c_void_p, i64, ctypes.c_void_p, i64]
            _OMATCOPY.append(func)
            return


def _bind():
    """Register numpy's ``cblas_sgemm`` and ``cblas_dgemm`` with LLVM under
    :data:`_SYMBOL` and :data:`_SYMBOL_D`. Returns (found, the largest product its
    small-matrix kernels take, or 0)."""
    try:
        from threadpoolctl import ThreadpoolController
        np.matmul(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))   # loads BLAS
        controllers = {c.filepath: c for c in ThreadpoolController().lib_controllers}
        for path in _numpy_blas_paths():
            lib = ctypes.CDLL(path)
            for name in _NAMES:
                func = getattr(lib, name % 's', None)
                double = getattr(lib, name % 'd', None)
                if func is not None and double is not None:
                    import llvmlite.binding as llvm
                    llvm.add_symbol(_SYMBOL, ctypes.cast(func, ctypes.c_void_p).value)
                    llvm.add_symbol(_SYMBOL_D, ctypes.cast(double, ctypes.c_void_p).value)
                    _bind_omatcopy(lib)
                    core = str(getattr(controllers.get(path), 'architecture', '')).lower()
                    return True, _SMALL_MNK if core in _SMALL_KERNEL_CORES else 0
    except (OSError, ImportError, AttributeError):
        pass
    return False, 0


AVAILABLE, SMALL = _bind()
"""Whether :func:`gemm` may be called; the largest product (M*N*K) that
:func:`gemm_blocked` should pass to BLAS at once (0: any)."""

_i32, _i64, _f32, _f64, _ptr = types.int32, types.int64, types.float32, types.float64, types.intp
_sgemm = types.ExternalFunction(_SYMBOL, types.void(
    _i32, _i32, _i32, _i64, _i64, _i64, _f32, _ptr, _i64, _ptr, _i64, _f32, _ptr, _i64))
_dgemm = types.ExternalFunction(_SYMBOL_D, types.void(
    _i32, _i32, _i32, _i64, _i64, _i64, _f64, _ptr, _i64, _ptr, _i64, _f64, _ptr, _i64))

_jit = dict(cache=True, nogil=True)


@numba.njit(**_jit)
def _leading(x):
    """BLAS's leading dimension of a matrix with contiguous rows (numpy may give a
    one-row array any row stride)."""
    return x.strides[0] // x.itemsize if x.shape[0] > 1 else max(1, x.shape[1])


@numba.njit(**_jit)
def gemm(a, b, c, trans_a, trans_b, beta):
    """``c = op(a) @ op(b) + beta * c`` for float32 (or float64: all three of one dtype)
    2-D arrays whose rows may be strided but whose elements within a row are
    contiguous; ``op`` transposes when ``trans_a`` / ``trans_b`` is true. Shapes are the
    caller's to check."""
    m, n = c.shape
    k = a.shape[0] if trans_a else a.shape[1]
    ta, tb = _TRANS if trans_a else _NO_TRANS, _TRANS if trans_b else _NO_TRANS
    if c.itemsize == 4:
        _sgemm(_ROW_MAJOR, ta, tb, m, n, k, np.float32(1), a.ctypes.data, _leading(a),
               b.ctypes.data, _leading(b), np.float32(beta), c.ctypes.data, _leading(c))
    else:
        _dgemm(_ROW_MAJOR, ta, tb, m, n, k, 1.0, a.ctypes.data, _leading(a),
               b.ctypes.data, _leading(b), np.float64(beta), c.ctypes.data, _leading(c))


@numba.njit(**_jit)
def gemm_blocked(a, b, c, beta, small):
    """``c = a @ b + beta * c`` (operands as :func:`gemm`, no transposes) in blocks of
    at most ``small`` multiply-adds each (:data:`SMALL`; 0, or more rows than 64: one
    call): column blocks of ``c``, a multiple of 16 wide, and where even 16 columns
    would be too many, blocks of the inner dimension too, added up through ``beta``."""
    m, n = c.shape
    k = a.shape[1]
    if small <= 0 or m > 64 or m * n * k <= small:
        gemm(a, b, c, False, False, beta)
        return
    nb = min(n, 128)
    kb = max(1, small // (m * nb))
    if kb >= k:
        kb = k
        nb = min(n, max(16, small // (m * k) // 16 * 16))
    else:
        parts = (k + kb - 1) // kb
        kb = (k + parts - 1) // parts
    for j in range(0, n, nb):
        cj = c[:, j:j + nb]
        for p in range(0, k, kb):
            gemm(a[:, p:p + kb], b[p:p + kb, j:j + nb], cj, False, False,
                 beta if p == 0 else 1.0)


def gemm_into(a, b, c, trans_a=False, trans_b=False, beta=0.0):
    """:func:`gemm` from Python, checking what BLAS needs: float32 (or float64, all
    three alike), shapes that agree, unit element strides."""
    m, n = c.shape
    am, ak = a.shape[::-1] if trans_a else a.shape
    bk, bn = b.shape[::-1] if trans_b else b.shape
    if (am, bn) != (m, n) or ak != bk:
        raise ValueError('gemm: shapes %s, %s -> %s do not agree' % (a.shape, b.shape, c.shape))
    dtype = c.dtype if c.dtype in (np.float32, np.float64) else np.dtype(np.float32)
    size = dtype.itemsize
    for arr in (a, b, c):
        if arr.dtype != dtype or arr.ndim != 2 or arr.strides[1] != size \
                or (arr.shape[0] > 1 and arr.strides[0] < size * max(arr.shape[1], 1)):
            raise ValueError('gemm: needs float32 (or float64) 2-D rows of one dtype with '
                             'contiguous elements, found %s %s strides %s'
                             % (arr.dtype, arr.shape, arr.strides))
    gemm(a, b, c, trans_a, trans_b, beta)


def transpose_into(a, out):
    """``out[...] = a.T`` for a float32 C-contiguous ``a`` (m, n) and ``out`` (n, m):
    OpenBLAS's ``somatcopy`` where numpy's BLAS has it (800x200: 26 us in cache,
    105 us from memory, against numpy's strided copy's 99 and 180 us), else numpy."""
    m, n = a.shape
    if _OMATCOPY and a.dtype == out.dtype == np.float32 and out.shape == (n, m) \
            and a.flags.c_contiguous and out.flags.c_contiguous and a.size:
        _OMATCOPY[0](_ROW_MAJOR, _TRANS, m, n, 1.0, a.ctypes.data, n, out.ctypes.data, m)
    else:
        np.copyto(out, a.T)
