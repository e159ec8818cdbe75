"""numpy's sgemm and dgemm called from numba (symmod.ops.blas_numba) against numpy's
matmul."""
import numpy as np
import pytest

from symmod.ops import blas_numba

pytestmark = pytest.mark.skipif(not blas_numba.AVAILABLE,
                                reason="numpy's BLAS exports no 64-bit-integer cblas_sgemm and dgemm")


def _strided(rng, shape, pad, dtype=np.float32):
    """A matrix whose rows are ``pad`` elements apart beyond its width."""
    base = rng.standard_normal((shape[0], shape[1] + pad)).astype(dtype)
    return base[:, pad // 2:pad // 2 + shape[1]]


@pytest.mark.parametrize('dtype, tol', [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize('trans_a', [False, True])
@pytest.mark.parametrize('trans_b', [False, True])
@pytest.mark.parametrize('beta', [0.0, 1.0, 0.5])
@pytest.mark.parametrize('m, n, k', [(5, 7, 6), (1, 9, 4), (6, 1, 3)])
def test_gemm_transposes_strides_and_beta(dtype, tol, trans_a, trans_b, beta, m, n, k):
    # (one-row and one-column operands: numpy may give a one-row view any row stride)
    rng = np.random.default_rng(0)
    a = _strided(rng, (k, m) if trans_a else (m, k), 3, dtype)
    b = _strided(rng, (n, k) if trans_b else (k, n), 4, dtype)
    c = _strided(rng, (m, n), 2, dtype)
    start = c.copy()
    around = c.base.copy()
    want = (a.T if trans_a else a).astype(np.float64) @ (b.T if trans_b else b) + beta * start
    blas_numba.gemm_into(a, b, c, trans_a, trans_b, beta)
    np.testing.assert_allclose(c, want, rtol=tol, atol=tol)
    # nothing beyond the view's columns was written
    np.testing.assert_array_equal(c.base[:, n + 1:], around[:, n + 1:])
    np.testing.assert_array_equal(c.base[:, :1], around[:, :1])


@pytest.mark.parametrize('m,n,k,small', [
    (6, 400, 7, 10000),     # column blocks (224 and 176 wide), whole inner dimension
    (6, 300, 50, 5000),     # column blocks and blocks of the inner dimension
    (6, 40, 50, 1000),      # one column block, 13 blocks of the inner dimension
    (32, 800, 200, 100 ** 3),   # a recurrent step's product at OpenBLAS's limit
    (32, 200, 800, 100 ** 3),   # and its backward product
    (6, 40, 50, 0),         # no limit: one call
    (70, 40, 50, 1000)])    # more than 64 rows: one call
@pytest.mark.parametrize('beta', [0.0, 1.0])
def test_gemm_blocked_matches_one_product(m, n, k, small, beta):
    rng = np.random.default_rng(1)
    a = _strided(rng, (m, k), 2)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    want = a.astype(np.float64) @ b + beta * c
    blas_numba.gemm_blocked(a, b, c, beta, small)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


def test_gemm_into_checks_its_operands():
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ValueError, match='do not agree'):
        blas_numba.gemm_into(a, np.ones((5, 2), np.float32), np.empty((3, 2), np.float32))
    with pytest.raises(ValueError, match='float32'):
        blas_numba.gemm_into(a, np.ones((4, 2)), np.empty((3, 2), np.float32))
    with pytest.raises(ValueError, match='one dtype'):      # float64 too, but not mixed
        blas_numba.gemm_into(a, np.ones((4, 2)), np.empty((3, 2)))
    with pytest.raises(ValueError, match='contiguous elements'):
        blas_numba.gemm_into(a, np.ones((2, 4), np.float32).T, np.empty((3, 2), np.float32))


@pytest.mark.parametrize('shape', [(800, 200), (3, 5), (1, 4)])
def test_transpose_into(shape):
    rng = np.random.default_rng(2)
    a = rng.standard_normal(shape).astype(np.float32)
    out = np.full(shape[::-1], np.nan, np.float32)
    blas_numba.transpose_into(a, out)
    np.testing.assert_array_equal(out, a.T)


def test_transpose_into_other_layouts_and_dtypes():
    rng = np.random.default_rng(3)
    for a in (rng.standard_normal((4, 6)), rng.standard_normal((4, 12)).astype(np.float32)[:, ::2]):
        out = np.empty(a.shape[::-1], a.dtype)
        blas_numba.transpose_into(a, out)
        np.testing.assert_array_equal(out, a.T)
