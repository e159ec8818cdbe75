"""BLAS's matrix product callable from numba-compiled code: numpy's own OpenBLAS.

A kernel that splits its work over numba's threads (one ``prange`` region) can then run
its matrix products inside that region, instead of returning to Python between its
loops and its products (one thread hand-off and a GIL round trip per product). The
functions are numpy's OpenBLAS (the 64-bit integer ``cblas_?gemm`` it exports), found
through numpy's extension module, which links it; llvmlite is told their addresses under
names of this module's own, so compiled code cached on disk links to them in every
process. Where numpy brings no such library (another BLAS), :data:`AVAILABLE` is False
and callers keep their numpy products.

The products run on the calling thread only when BLAS is at one thread
(:func:`symmod.threads.serial_blas`): callers set that first.
"""
import ctypes

import numba
from numba import types
from numba.extending import overload

__all__ = ['AVAILABLE', 'gemm']

# the names numpy's wheels give the 64-bit integer CBLAS gemm: numpy 2 (scipy-openblas64),
# numpy 1.22-1.26 (openblas64_)
_NAMES = {'s': ('scipy_cblas_sgemm64_', 'cblas_sgemm64_'),
          'd': ('scipy_cblas_dgemm64_', 'cblas_dgemm64_')}
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def _find():
    """Addresses of numpy's sgemm and dgemm, or None."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:             # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    try:
        lib = ctypes.CDLL(umath.__file__)   # dlsym also searches the libraries it links
    except OSError:
        return None
    found = {}
    for kind, names in _NAMES.items():
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                found[kind] = ctypes.cast(fn, ctypes.c_void_p).value
                break
        else:
            return None
    return found


def _register(found):
    import llvmlite.binding as llvm
    signatures = {}
    for kind, address in found.items():
        name = 'symmod_cblas_%sgemm' % kind
        llvm.add_symbol(name, address)
        real = types.float32 if kind == 's' else types.float64
        i32, i64, ptr = types.int32, types.int64, types.intp
        # order, trans a, trans b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc (pointers
        # passed as integers: the same registers on the 64-bit ABIs numpy's wheels target)
        signatures[real] = types.ExternalFunction(
            name, types.void(i32, i32, i32, i64, i64, i64, real, ptr, i64, ptr, i64, real,
                             ptr, i64))
    return signatures


_FOUND = _find()
AVAILABLE = _FOUND is not None
_GEMM = _register(_FOUND) if AVAILABLE else {}


def gemm(a, b, c, trans_b, beta):
    """``c = a @ b + beta * c`` (``b`` transposed with ``trans_b``), for numba code.

    ``a`` (m, k), ``b`` (k, n) or with ``trans_b`` (n, k), ``c`` (m, n): two-dimensional
    float32 or float64 arrays whose rows are contiguous (any row stride: views of the
    columns of a larger array are fine). Called from Python it is numpy's product; in
    numba-compiled code (where :data:`AVAILABLE`), a call of BLAS on the calling thread.
    """
    c *= beta
    c += a @ (b.T if trans_b else b)


@overload(gemm, jit_options={'cache': True})
def _gemm_impl(a, b, c, trans_b, beta):
    if not AVAILABLE or a.dtype not in _GEMM:
        return None
    call = _GEMM[a.dtype]

    def impl(a, b, c, trans_b, beta):
        real = a.dtype.type
        call(_ROW_MAJOR, _NO_TRANS, _TRANS if trans_b else _NO_TRANS,
             c.shape[0], c.shape[1], a.shape[1], real(1), a.ctypes.data, _leading(a),
             b.ctypes.data, _leading(b), real(beta), c.ctypes.data, _leading(c))
    return impl


@numba.njit(cache=True, nogil=True)
def _leading(x):
    """BLAS's leading dimension of a matrix with contiguous rows (numpy gives a one-row
    array any row stride)."""
    return x.strides[0] // x.itemsize if x.shape[0] > 1 else max(1, x.shape[1])
