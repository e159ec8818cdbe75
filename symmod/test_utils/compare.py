"""Tolerant comparison of arrays with MXNet's per-dtype default tolerances."""
import numbers

import numba
import numpy as np

from ..ndarray.ndarray import NDArray

__all__ = ['default_dtype', 'default_rtols', 'default_atols', 'default_numeric_eps',
           'effective_dtype', 'get_tolerance', 'get_tols', 'get_atol', 'get_rtol', 'get_etol',
           'same', 'checkShapes', 'almost_equal', 'locationError', 'assert_almost_equal',
           'assert_allclose', 'assert_almost_equal_with_err', 'assert_almost_equal_ignore_nan',
           'np_reduce', 'collapse_sum_like', 'compare_ndarray_tuple', 'same_array',
           'same_symbol_structure']

_EXACT = ('bool', 'int8', 'uint8', 'int32', 'uint32', 'int64', 'uint64')


def default_dtype():
    """The default dtype of test arrays: float32."""
    return np.float32


def default_rtols():
    """Relative tolerance per dtype (0 for integer and boolean dtypes)."""
    table = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4,
             np.dtype(np.float64): 1e-5}
    table.update({np.dtype(name): 0 for name in _EXACT})
    return table


def default_atols():
    """Absolute tolerance per dtype (0 for integer and boolean dtypes)."""
    table = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
             np.dtype(np.float64): 1e-20}
    table.update({np.dtype(name): 0 for name in _EXACT})
    return table


def default_numeric_eps():
    """Finite-difference step per dtype (powers of two: no bits lost in ``x + eps``)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The dtype whose precision governs comparisons of ``dat``.

    MXNet lowers float32 to float16 on GPUs whose matrix units round to TF32; symmod's
    kernels compute in the array's own precision, so this is ``dat``'s dtype.
    """
    return np.dtype(dat.dtype)


def get_tolerance(dat, tol, default_tol):
    """``tol`` if it is a number; else its entry (or ``default_tol``'s) for ``dat``'s dtype."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    return tol.get(dtype, default_tol.get(dtype, default_tol[np.dtype(np.float32)]))


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing ``x`` and ``y``: the looser default of the two dtypes."""
    if not hasattr(x, 'dtype'):         # numbers, lists
        x = np.asarray(x)
    if not hasattr(y, 'dtype'):
        y = np.asarray(y)
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol``, or the default absolute tolerance of ``dtype``."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol``, or the default relative tolerance of ``dtype``."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol=None):
    """``etol`` (allowed fraction of mismatching elements), default 0."""
    return 0 if etol is None else etol


def _host(a):
    if isinstance(a, NDArray):
        return a.asnumpy()
    return a if isinstance(a, np.ndarray) else np.asarray(a)


def same(a, b):
    """Whether two arrays are exactly equal (shape and values)."""
    return np.array_equal(_host(a), _host(b))


def checkShapes(a, b):
    """Raise AssertionError when ``a`` and ``b`` differ in shape."""
    if a.shape != b.shape:
        raise AssertionError('a.shape = %s and b.shape = %s are not equal'
                             % (str(a.shape), str(b.shape)))


@numba.njit(cache=True, nogil=True)
def _all_close_flat(a, b, rtol, atol, equal_nan):
    """np.allclose of two flat arrays of one float dtype in one pass, in their precision
    (``rtol``/``atol`` come in that dtype)."""
    for i in range(a.size):
        x, y = a[i], b[i]
        if x == y:                              # equal infinities too
            continue
        if np.isnan(x) or np.isnan(y):
            if equal_nan and np.isnan(x) and np.isnan(y):
                continue
            return False
        if np.isinf(x) or np.isinf(y) or abs(x - y) > atol + rtol * abs(y):
            return False
    return True


def _allclose(a, b, rtol, atol, equal_nan):
    """np.allclose; float32/float64 arrays of one shape and dtype are checked in one pass
    without temporaries (np.isclose makes several array-sized ones: MXNet's tests compare
    512 MB gradients)."""
    if a.shape == b.shape and a.dtype == b.dtype and a.dtype in (np.float32, np.float64) \
            and a.size >= 4096:
        scalar = a.dtype.type
        return bool(_all_close_flat(a.reshape(-1), b.reshape(-1), scalar(rtol), scalar(atol),
                                    bool(equal_nan)))
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """Whether ``|a - b| <= atol + rtol * |b|`` holds everywhere (numpy broadcasting)."""
    a, b = _host(a), _host(b)
    if not use_broadcast:
        checkShapes(a, b)
    return _allclose(a, b, get_rtol(rtol), get_atol(atol), equal_nan)


def locationError(a, b, index, names, maxError=False):
    """A line naming the element ``index`` of ``a`` and ``b``."""
    return 'Location of %serror: %s, %s=%.8f, %s=%.8f' % (
        'maximum ' if maxError else '', str(index), names[0], a[index], names[1], b[index])


def _violations(a, b, rtol, atol, equal_nan):
    """Per-element |a-b| / tolerance (0 where equal, inf where one side is NaN)."""
    a64, b64 = np.broadcast_arrays(np.asarray(a, dtype=np.float64),
                                   np.asarray(b, dtype=np.float64))
    with np.errstate(invalid='ignore'):
        diff = np.where(a64 == b64, 0.0, np.abs(a64 - b64))
    both_nan = np.isnan(a64) & np.isnan(b64)
    diff = np.where(np.isnan(diff), np.inf, diff)
    if equal_nan:
        diff = np.where(both_nan, 0.0, diff)
    return a64, b64, diff / (atol + rtol * np.abs(np.where(np.isnan(b64), 0, b64)) + 1e-20)


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Assert ``|a - b| <= atol + rtol * |b|`` elementwise.

    Parameters
    ----------
    a, b : NDArray or numpy.ndarray or number
    rtol, atol : float or dict of dtype to float, optional
        Tolerances; by default the looser of the two dtypes' defaults.
    names : tuple of str
        Names used in the failure message.
    equal_nan : bool
        Treat NaNs in the same place as equal.
    use_broadcast : bool
        Compare with numpy broadcasting (False: shapes must be equal).
    mismatches : tuple of int
        (how many mismatching elements to list, how many to count at most).
    """
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _host(a), _host(b)
    if not use_broadcast:
        checkShapes(a, b)
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise AssertionError('shape mismatch: %s %s vs %s %s'
                             % (names[0], a.shape, names[1], b.shape)) from None
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if _allclose(a, b, rtol, atol, equal_nan):
        return
    a64, b64, violation = _violations(a, b, rtol, atol, equal_nan)
    failing = violation > 1
    order = np.argsort(-violation, axis=None)[:max(mismatches[0], 1)]
    lines = ['Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %f%%).'
             % (violation.max(), rtol, atol, 100.0 * failing.sum() / max(failing.size, 1))]
    for rank, flat in enumerate(order):
        if not failing.flat[flat]:
            break
        index = tuple(int(i) for i in np.unravel_index(flat, violation.shape))
        lines.append('%3d: Error %f  %s' % (rank + 1, violation[index],
                                            locationError(a64, b64, index, names,
                                                          maxError=rank == 0)))
    with np.printoptions(threshold=20, suppress=True):
        lines += [' %s: %s' % (names[0], a), ' %s: %s' % (names[1], b)]
    raise AssertionError('\n'.join(lines))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """numpy.testing.assert_allclose's defaults on :func:`assert_almost_equal`."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=('a', 'b'),
                                 equal_nan=False, mismatches=(10, 10)):
    """Like :func:`assert_almost_equal`, but a fraction ``etol`` of elements may differ."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan,
                            mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _host(a), _host(b)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    error_rate = 1 - np.count_nonzero(close) / close.size
    if error_rate > etol:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan,
                            mismatches=mismatches)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=('a', 'b')):
    """:func:`assert_almost_equal` ignoring elements that are NaN in either array."""
    a, b = np.copy(_host(a)), np.copy(_host(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` over ``axis`` (int, list or None) one axis at a time.

    Parameters
    ----------
    dat : numpy.ndarray
    axis : None or int or list of int
    keepdims : bool
    numpy_reduce_func : callable
        A numpy reduction such as ``np.sum`` taking ``axis=``.
    """
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        kept = list(dat.shape)
        for i in axis:
            kept[i] = 1
        ret = ret.reshape(tuple(kept))
    return ret


def collapse_sum_like(a, shape):
    """Sum ``a`` over the axes along which ``shape`` was broadcast to ``a.shape``."""
    assert len(a.shape) >= len(shape)
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    lead = len(a.shape) - len(shape)
    axes = list(range(lead))
    for i, s in enumerate(shape):
        if s != a.shape[i + lead]:
            assert s == 1
            axes.append(i + lead)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """Compare (nested tuples of) arrays elementwise; None on either side matches anything."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def same_array(array1, array2):
    """Whether two NDArrays share memory (a write to one shows in the other)."""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def same_symbol_structure(sym1, sym2):
    """Whether the two symbols' graphs have the same operator at every node position."""
    import json
    nodes1 = json.loads(sym1.tojson())['nodes']
    nodes2 = json.loads(sym2.tojson())['nodes']
    return all(n1['op'] == n2['op'] for n1, n2 in zip(nodes1, nodes2))
