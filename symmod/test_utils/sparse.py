"""Random sparse test inputs, made the way MXNet 1.9.1's test_utils makes them: uniform
csr arrays from ``scipy.sparse.rand``, "powerlaw" csr arrays whose rows double their
count of stored values, row_sparse arrays with random (or given) rows."""
import numpy as np
import numpy.random as rnd
import scipy.sparse as spsp

from .compare import default_dtype

__all__ = ['rand_sparse_ndarray', 'create_sparse_array', 'create_sparse_array_zd',
           'shuffle_csr_column_indices']


def _mx():
    import symmod
    return symmod


def _context(ctx):
    from .arrays import default_context
    return ctx if ctx else default_context()


def _validate_csr_generation_inputs(num_rows, num_cols, density, distribution='uniform'):
    total_nnz = int(num_rows * num_cols * density)
    if density < 0 or density > 1:
        raise ValueError('density has to be between 0 and 1')
    if num_rows <= 0 or num_cols <= 0:
        raise ValueError('num_rows or num_cols should be greater than 0')
    if distribution == 'powerlaw' and total_nnz < 2 * num_rows:
        raise ValueError('not supported for this density: %s for this shape (%s, %s) Please '
                         'keep : num_rows * num_cols * density >= 2 * num_rows'
                         % (density, num_rows, num_cols))


def shuffle_csr_column_indices(csr):
    """Shuffle the column indices inside every row of a scipy csr matrix (in place): a
    valid but unsorted CSR layout."""
    for i in range(len(csr.indptr) - 1):
        start, end = csr.indptr[i], csr.indptr[i + 1]
        part = np.array(csr.indices[start:end])
        np.random.shuffle(part)
        csr.indices[start:end] = part


def _uniform_csr(num_rows, num_cols, density, dtype, data_init, shuffle_csr_indices):
    _validate_csr_generation_inputs(num_rows, num_cols, density)
    csr = spsp.rand(num_rows, num_cols, density, dtype=dtype, format='csr')
    if data_init is not None:
        csr.data.fill(data_init)
    if shuffle_csr_indices:
        shuffle_csr_column_indices(csr)
    return _mx().nd.sparse.csr_matrix((csr.data, csr.indices, csr.indptr),
                                      shape=(num_rows, num_cols), dtype=dtype)


def _powerlaw_csr(num_rows, num_cols, density, dtype):
    """Row 0 .. n-1 each start with one value, then row i gets 2**(i+1) values, until
    ``num_rows * num_cols * density`` values are placed (full rows once wide enough)."""
    _validate_csr_generation_inputs(num_rows, num_cols, density, 'powerlaw')
    unused = int(num_rows * num_cols * density)
    out = np.zeros((num_rows, num_cols), dtype=dtype)
    done = lambda: _mx().nd.array(out).tostype('csr')   # noqa: E731
    for row in range(num_rows):
        out[row][0] = 1 + rnd.uniform(0.001, 2)
        unused -= 1
        if unused <= 0:
            return done()
    col_max = 2
    for row in range(num_rows):
        col_limit = min(num_cols, col_max)
        if col_limit == num_cols and unused > col_limit:
            out[row] = 1 + rnd.uniform(0.001, 2)
            unused = unused - col_limit + 1
            if unused <= 0:
                return done()
            continue
        for col in range(1, col_limit):
            out[row][col] = 1 + rnd.uniform(0.001, 2)
            unused -= 1
            if unused <= 0:
                return done()
        col_max *= 2
    if unused > 0:
        raise ValueError('not supported for this density: %s for this shape (%s,%s)'
                         % (density, num_rows, num_cols))
    return done()


def _assign_each(values, fn):
    from .arrays import assign_each
    return assign_each(values, fn)


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse array and its parts.

    Parameters
    ----------
    shape : tuple of int
    stype : {'csr', 'row_sparse'}
    density : float, optional
        Fraction of stored values (rows for row_sparse); random when None.
    distribution : {'uniform', 'powerlaw'}, optional
        'powerlaw' (csr only): rows with exponentially more stored values.
    data_init : float, optional
        Fill the stored values with this value.
    rsp_indices : array-like, optional
        The rows of a row_sparse array (instead of random ones).
    modifier_func : callable, optional
        Applied to each stored value (row_sparse).
    shuffle_csr_indices : bool
        Unsorted column indices inside rows (csr, uniform).

    Returns
    -------
    (array, parts)
        csr: ``(indptr, indices, data)`` NDArrays; row_sparse: ``(values, indices)`` numpy.
    """
    mx = _mx()
    ctx = _context(ctx)
    density = rnd.rand() if density is None else density
    dtype = default_dtype() if dtype is None else dtype
    distribution = 'uniform' if distribution is None else distribution
    if stype == 'row_sparse':
        assert distribution == 'uniform', \
            'Distribution %s not supported for row_sparse' % (distribution,)
        if rsp_indices is not None:
            indices = rsp_indices
            assert len(indices) <= shape[0]
        else:
            indices = np.argwhere(rnd.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            result = mx.nd.zeros(shape, stype='row_sparse', dtype=dtype, ctx=ctx)
            return result, (np.array([], dtype=dtype), np.array([]))
        val = rnd.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = _assign_each(val, modifier_func)
        arr = mx.nd.sparse.row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype == 'csr':
        assert len(shape) == 2
        if distribution == 'uniform':
            csr = _uniform_csr(shape[0], shape[1], density, dtype, data_init,
                               shuffle_csr_indices).as_in_context(ctx)
        elif distribution == 'powerlaw':
            csr = _powerlaw_csr(shape[0], shape[1], density, dtype).as_in_context(ctx)
        else:
            raise AssertionError('Distribution not supported: %s' % (distribution,))
        return csr, (csr.indptr, csr.indices, csr.data)
    raise AssertionError('unknown storage type')


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=.5, shuffle_csr_indices=False):
    """A random sparse array; row_sparse indices are sorted first."""
    if stype == 'row_sparse':
        indices = None
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
            indices.sort()
        array, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                       rsp_indices=indices, dtype=dtype,
                                       modifier_func=modifier_func)
        return array
    if stype == 'csr':
        array, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                       dtype=dtype, modifier_func=modifier_func,
                                       shuffle_csr_indices=shuffle_csr_indices)
        return array
    raise AssertionError('Unknown storage type: ' + stype)


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """A random sparse array whose row_sparse density comes only from ``rsp_indices``."""
    if stype == 'row_sparse':
        density = 0.0
        if rsp_indices is not None:
            assert len(rsp_indices) <= shape[0]
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)
