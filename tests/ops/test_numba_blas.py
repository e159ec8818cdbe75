"""numpy's BLAS product called from numba-compiled code (symmod/ops/numba_blas.py)."""
import numba
import numpy as np
import pytest

from symmod.ops import numba_blas


@numba.njit(cache=True)
def _compiled_gemm(a, b, c, trans_b, beta):
    numba_blas.gemm(a, b, c, trans_b, beta)


def _operands(rng, dtype, m, n, k, trans_b):
    # views of wider arrays (rows with a stride larger than their length), as the
    # Winograd kernels pass the columns of a block
    a = rng.standard_normal((m, k + 3)).astype(dtype)[:, 1:k + 1]
    b_shape = (n, k) if trans_b else (k, n)
    b = rng.standard_normal((b_shape[0], b_shape[1] + 5)).astype(dtype)[:, 2:b_shape[1] + 2]
    c = rng.standard_normal((m, n + 4)).astype(dtype)[:, :n]
    return a, b, c


@pytest.mark.skipif(not numba_blas.AVAILABLE, reason="numpy's BLAS is not callable here")
@pytest.mark.parametrize('dtype, tol', [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize('trans_b', [False, True])
@pytest.mark.parametrize('beta', [0.0, 1.0, 0.5])
@pytest.mark.parametrize('m, n, k', [(5, 11, 7), (1, 9, 4), (6, 1, 3), (33, 70, 64)])
def test_compiled_gemm_matches_numpy(dtype, tol, trans_b, beta, m, n, k):
    rng = np.random.default_rng(m * 100 + n + k)
    a, b, c = _operands(rng, dtype, m, n, k, trans_b)
    expected = a.astype(np.float64) @ (b.T if trans_b else b).astype(np.float64) + beta * c
    before = c.base.copy()
    _compiled_gemm(a, b, c, trans_b, beta)
    np.testing.assert_allclose(c, expected, rtol=tol, atol=tol)
    # nothing past the view's columns was written
    np.testing.assert_array_equal(c.base[:, n:], before[:, n:])


@pytest.mark.parametrize('trans_b', [False, True])
def test_python_gemm_is_the_same_product(trans_b):
    rng = np.random.default_rng(4)
    a, b, c = _operands(rng, np.float64, 4, 6, 5, trans_b)
    expected = a @ (b.T if trans_b else b) + 0.5 * c
    numba_blas.gemm(a, b, c, trans_b, 0.5)
    np.testing.assert_allclose(c, expected, rtol=1e-12)


def test_numpy_wheels_bring_a_callable_blas():
    # numpy's wheels link OpenBLAS with 64-bit integers: where that is the BLAS, it is found
    threadpoolctl = pytest.importorskip('threadpoolctl')
    libs = [lib for lib in threadpoolctl.threadpool_info()
            if lib['internal_api'] == 'openblas' and 'numpy' in lib['filepath']]
    if not libs:
        pytest.skip('numpy without its own OpenBLAS')
    assert numba_blas.AVAILABLE
