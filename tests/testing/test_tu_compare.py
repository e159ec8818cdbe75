"""mx.test_utils comparison helpers and MXNet's per-dtype tolerances."""
import numpy as np
import pytest

import symmod as mx
from symmod import test_utils as tu


def test_default_tolerances_are_mxnets():
    assert tu.default_rtols()[np.dtype(np.float32)] == 1e-4
    assert tu.default_atols()[np.dtype(np.float64)] == 1e-20
    assert tu.default_rtols()[np.dtype(np.int32)] == 0
    assert tu.default_numeric_eps()[np.dtype(np.float32)] == 2.0 ** -9


def test_tolerance_follows_the_looser_dtype():
    base = np.ones(4, dtype=np.float32)
    off = base + np.float32(0.05)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(base, off)
    tu.assert_almost_equal(base.astype(np.float16), off)   # float16's atol 0.1
    assert tu.get_tols(base.astype(np.float16), off, None, None) == (1e-2, 1e-1)


def test_tolerance_dicts_and_numbers():
    a = np.zeros(3, dtype=np.float64)
    b = a + 1e-3
    tu.assert_almost_equal(a, b, rtol=0, atol={np.dtype(np.float64): 2e-3})
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(a, b, rtol=0, atol=1e-4)


def test_failure_message_names_the_worst_element():
    a = np.array([[0., 1.], [2., 3.]])
    b = a.copy()
    b[1, 0] = 7
    with pytest.raises(AssertionError) as err:
        tu.assert_almost_equal(a, b, names=('GOT', 'WANT'))
    assert '(1, 0)' in str(err.value) and 'GOT=2' in str(err.value)


def test_ndarrays_broadcasting_bool_and_nan():
    tu.assert_almost_equal(mx.nd.ones((2, 3)), np.ones((1, 3)))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.ones((2, 3)), np.ones((2, 3)), use_broadcast=False) or \
            tu.assert_almost_equal(np.ones((2, 3)), np.ones((1, 3)), use_broadcast=False)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([True, False]), np.array([True, True]))
    nan = np.array([np.nan, 1.0])
    tu.assert_almost_equal(nan, nan, equal_nan=True)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(nan, nan)
    tu.assert_allclose(nan, nan)                  # equal_nan=True by default
    tu.assert_almost_equal_ignore_nan(np.array([np.nan, 2.0]), np.array([5.0, 2.0]))


def test_with_err_allows_a_fraction_of_mismatches():
    a = np.zeros(10)
    b = a.copy()
    b[0] = 1
    tu.assert_almost_equal_with_err(a, b, etol=0.2)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(a, b, etol=0.05)


def test_almost_equal_and_same():
    assert tu.almost_equal(np.ones(3), np.ones(3) + 1e-9)
    assert not tu.almost_equal(np.ones(3), np.ones(3) + 1)
    assert tu.same(mx.nd.array([1, 2]), np.array([1, 2], dtype=np.float32))
    assert not tu.same(np.array([1, 2]), np.array([1, 3]))


def test_np_reduce_and_collapse_sum_like():
    x = np.arange(24.).reshape(2, 3, 4)
    np.testing.assert_array_equal(tu.np_reduce(x, (0, 2), True, np.sum),
                                  x.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_array_equal(tu.np_reduce(x, None, False, np.max), x.max())
    np.testing.assert_array_equal(tu.collapse_sum_like(x, (3, 1)),
                                  x.sum(axis=(0, 2)).reshape(3, 1))


def test_same_array_detects_shared_memory():
    a = mx.nd.zeros((4, 2))
    assert tu.same_array(a, a)
    assert not tu.same_array(a, a.copy())


def test_same_symbol_structure():
    x = mx.sym.var('x')
    assert tu.same_symbol_structure(mx.sym.relu(x), mx.sym.relu(mx.sym.var('y')))
    assert not tu.same_symbol_structure(mx.sym.relu(x), mx.sym.sigmoid(x))


def test_star_import_exposes_what_mxnet_test_files_use():
    namespace = {}
    exec('from symmod.test_utils import *', namespace)
    for name in ('np', 'os', 'mx', 'environment', 'assert_almost_equal', 'rand_ndarray',
                 'default_context', 'check_numeric_gradient', 'use_np', 'retry'):
        assert name in namespace, name
    assert namespace['mx'] is mx


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_large_arrays_compare_in_one_pass_as_np_allclose(dtype):
    """Same-shape float arrays take a one-pass kernel (no array-sized temporaries, in the
    arrays' precision): its verdict is np.allclose's, boundary, inf and NaN cases too."""
    from symmod.test_utils import compare
    rng = np.random.default_rng(7)
    disagreements, close = 0, 0
    for trial in range(200):
        b = (rng.standard_normal(5000) * 10.0 ** rng.integers(-3, 3)).astype(dtype)
        rtol, atol = 10.0 ** -float(rng.integers(1, 7)), 10.0 ** -float(rng.integers(1, 9))
        tol = atol + rtol * np.abs(b.astype(np.float64))
        step = rng.choice([0.999999, 1.0, 1.000001, -1.0, 0.5], b.size)
        a = (b + tol * step * (rng.random(b.size) < 0.001)).astype(dtype)
        if trial % 7 == 0:
            a[3] = np.nan
        if trial % 11 == 0:
            a[5] = b[5] = np.inf
        if trial % 13 == 0:
            a[6] = -np.inf
        if trial % 17 == 0:
            a[3] = b[3] = np.nan
        for equal_nan in (False, True):
            expected = np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
            disagreements += compare._allclose(a, b, rtol, atol, equal_nan) != expected
            close += expected
    assert disagreements == 0
    assert 0 < close < 400
    x = rng.random((64, 1024)).astype(dtype)
    y = x.copy()
    y[-1, -1] += 1
    tu.assert_almost_equal(x, x.copy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(AssertionError, match='Location of maximum error: \\(63, 1023\\)'):
        tu.assert_almost_equal(x, y, rtol=1e-5, atol=1e-6)
    assert tu.almost_equal(x, x.copy()) and not tu.almost_equal(x, y)
