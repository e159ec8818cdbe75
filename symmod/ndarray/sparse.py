"""``mx.nd.sparse``: CSRNDArray and RowSparseNDArray, their constructors, and the
operators MXNet exposes for sparse arrays (``dot``, ``retain``, ``add_n``,
``elemwise_add`` ... : every operator registered under a ``_sparse_`` name).

Examples
--------
>>> a = mx.nd.sparse.csr_matrix(([1., 2.], [0, 2], [0, 1, 2]), shape=(2, 3))
>>> a.asnumpy()
array([[1., 0., 0.],
       [0., 0., 2.]], dtype=float32)
>>> mx.nd.sparse.dot(a, mx.nd.ones((3, 1))).asnumpy()
array([[1.],
       [2.]], dtype=float32)
"""
import numpy as np
import scipy.sparse as spsp

from ..base import NotSupportedForSparseNDArray, integer_types, mx_real_t  # noqa: F401
from ..context import Context, current_context
from .ndarray import NDArray, array as _dense_array, zeros as _dense_zeros, _op
from .ndarray import _STORAGE_TYPE_STR_TO_ID  # noqa: F401
from .sparse_array import (BaseSparseNDArray, CSRNDArray, RowSparseNDArray,  # noqa: F401
                           STORAGE_AUX_TYPES, RowSparseStorage, empty_sparse, make_csr,
                           new_sparse, _check_scipy_dtype)
# MXNet's sparse optimizer operators (_sparse_sgd_update ...): the same functions as mx.nd's,
# which take row_sparse gradients, and AdaGrad, which has only a row-sparse form
from ..optimizer.fused_ops import (sgd_update, sgd_mom_update, adam_update,  # noqa: F401
                                   ftrl_update)
from ..optimizer.fused_sparse import adagrad_update  # noqa: F401

__all__ = ['BaseSparseNDArray', 'CSRNDArray', 'RowSparseNDArray', 'csr_matrix',
           'row_sparse_array', 'zeros', 'empty', 'array', 'add', 'subtract', 'multiply',
           'divide']

_STORAGE_AUX_TYPES = {k: [d.type for d in v] for k, v in STORAGE_AUX_TYPES.items()}


# ---- constructors -----------------------------------------------------------------------
def _check_shape(s1, s2):
    if s1 and s2 and tuple(s1) != tuple(s2):
        raise ValueError('Shape mismatch detected. ' + str(s1) + ' v.s. ' + str(s2))


def _default_dtype(source, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    if isinstance(source, (NDArray, np.ndarray)) or spsp.issparse(source):
        return np.dtype(source.dtype)
    return np.dtype(mx_real_t)


def _host_values(source, dtype):
    if isinstance(source, NDArray):
        return source._host().astype(dtype, copy=False)
    try:
        return np.asarray(source, dtype=dtype)
    except (TypeError, ValueError):
        raise TypeError('values must be array like object') from None


def _shape_tuple(value):
    return tuple(int(d) for d in value)


def _is_shape(arg):
    return isinstance(arg, tuple) and all(isinstance(d, integer_types) for d in arg)


def _from_dense(source, stype, ctx, dtype):
    dtype = _default_dtype(source, dtype)
    dense = _dense_array(source, dtype=dtype)
    if ctx is not None and dense.context != ctx:
        dense = dense.as_in_context(ctx)
    return dense.tostype(stype)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray, a 2-D array in compressed sparse row format.

    ``arg1`` may be a dense array (NDArray, numpy array or nested lists), a CSRNDArray or
    ``scipy.sparse.csr_matrix``, a shape ``(M, N)`` (an empty matrix),
    ``(data, indices, indptr)`` (MXNet does not check these; see ``check_format``) or
    ``(data, (row, col))`` (coordinate format, duplicates summed).

    Parameters
    ----------
    arg1 : see above
    shape : tuple of int, optional
        The shape; inferred from ``arg1`` when not given.
    ctx : Context, optional
        Device context (default: the current context).
    dtype : str or numpy.dtype, optional
        Value type (default: the source's dtype, float32 for lists and shapes).

    Returns
    -------
    CSRNDArray
    """
    if isinstance(arg1, tuple):
        if len(arg1) == 2:
            if isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
                data, (row, col) = arg1
                data, row, col = [a.asnumpy() if isinstance(a, NDArray) else np.asarray(a)
                                  for a in (data, row, col)]
                coo = spsp.coo_matrix((data, (row, col)), shape=shape)
                _check_shape(coo.shape, shape)
                return array(coo.tocsr(), ctx=ctx, dtype=dtype)
            _check_shape(arg1, shape)
            return empty('csr', arg1, ctx=ctx, dtype=dtype)
        if len(arg1) == 3:
            return _csr_from_parts(arg1[0], arg1[1], arg1[2], shape, ctx, dtype)
        raise ValueError('Unexpected length of input tuple: ' + str(len(arg1)))
    if isinstance(arg1, CSRNDArray) or isinstance(arg1, spsp.csr_matrix):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, RowSparseNDArray):
        raise ValueError('Unexpected input type: RowSparseNDArray')
    result = _from_dense(arg1, 'csr', ctx, dtype)
    _check_shape(result.shape, shape)
    return result


def _index_values(source):
    """Indices as int64 (MXNet's only aux type)."""
    if isinstance(source, NDArray):
        return source._host().astype(np.int64)
    return np.asarray(source, dtype=np.int64)


def _check_aux_type(*types):
    if any(t is not None and np.dtype(t) != np.int64 for t in types):
        raise NotImplementedError('only int64 is supported for aux types')


def _csr_matrix_from_definition(data, indices, indptr, shape=None, ctx=None, dtype=None,
                                indices_type=None, indptr_type=None):
    """A CSRNDArray from its three arrays (MXNet's private helper)."""
    _check_aux_type(indices_type, indptr_type)
    return _csr_from_parts(data, indices, indptr, shape, ctx, dtype)


def _csr_from_parts(data, indices, indptr, shape, ctx, dtype):
    ctx = current_context() if ctx is None else ctx
    dtype = _default_dtype(data, dtype)
    values = _host_values(data, dtype)
    indptr = _index_values(indptr)
    indices = _index_values(indices)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError('invalid shape')
        shape = (len(indptr) - 1, int(indices.max()) + 1)
    if values.ndim != 1 or indptr.ndim != 1 or indices.ndim != 1 or \
            indptr.shape[0] == 0 or len(shape) != 2:
        raise ValueError('invalid shape')
    storage = make_csr(values.copy(), indices, indptr, _shape_tuple(shape))
    return new_sparse('csr', storage, ctx)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray: a set of row slices of a larger array at given row indices.

    ``arg1`` may be a dense array, a RowSparseNDArray, a shape ``(D0, D1, ...)`` (an empty
    array) or ``(data, indices)`` with ``dense[indices[i]] = data[i]`` (indices ascending;
    MXNet does not check them, see ``check_format``).

    Parameters
    ----------
    arg1 : see above
    shape : tuple of int, optional
        The shape; inferred from ``arg1`` when not given.
    ctx : Context, optional
        Device context (default: the current context).
    dtype : str or numpy.dtype, optional
        Value type (default: the source's dtype, float32 for lists and shapes).

    Returns
    -------
    RowSparseNDArray
    """
    if isinstance(arg1, tuple):
        if len(arg1) < 2:
            raise ValueError('Unexpected length of input tuple: ' + str(len(arg1)))
        if len(arg1) > 2 or _is_shape(arg1):
            _check_shape(arg1, shape)
            return empty('row_sparse', arg1, ctx=ctx, dtype=dtype)
        return _rsp_from_parts(arg1[0], arg1[1], shape, ctx, dtype)
    if isinstance(arg1, RowSparseNDArray):
        _check_shape(arg1.shape, shape)
        return array(arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, CSRNDArray):
        raise ValueError('Unexpected input type: CSRNDArray')
    result = _from_dense(arg1, 'row_sparse', ctx, dtype)
    _check_shape(result.shape, shape)
    return result


def _row_sparse_ndarray_from_definition(data, indices, shape=None, ctx=None, dtype=None,
                                        indices_type=None):
    """A RowSparseNDArray from its two arrays (MXNet's private helper)."""
    _check_aux_type(indices_type)
    return _rsp_from_parts(data, indices, shape, ctx, dtype)


def _rsp_from_parts(data, indices, shape, ctx, dtype):
    ctx = current_context() if ctx is None else ctx
    dtype = _default_dtype(data, dtype)
    values = _host_values(data, dtype)
    indices = _index_values(indices)
    if shape is None:
        if indices.shape[0] == 0:
            raise ValueError('invalid shape')
        shape = (int(indices[-1]) + 1,) + values.shape[1:]
    shape = _shape_tuple(shape)
    if values.ndim != len(shape) or indices.ndim != 1 or int(np.prod(shape[1:])) == 0:
        raise ValueError('invalid shape')
    storage = RowSparseStorage(values.copy(), indices, shape)
    return new_sparse('row_sparse', storage, ctx)


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype`` (nothing stored for sparse types).

    Parameters
    ----------
    stype : {'default', 'row_sparse', 'csr'}
    shape : int or tuple of int
    ctx : Context, optional
    dtype : str or numpy.dtype, optional
        float32 by default.
    """
    out = kwargs.pop('out', None)
    if stype == 'default':
        return _dense_zeros(shape, ctx=ctx, dtype=dtype, out=out, **kwargs)
    if stype not in ('row_sparse', 'csr'):
        raise ValueError('unknown storage type' + str(stype))
    shape = (shape,) if isinstance(shape, integer_types) else _shape_tuple(shape)
    dtype = np.dtype(mx_real_t if dtype is None else dtype)
    if stype == 'csr':
        _check_scipy_dtype(dtype)
    result = new_sparse(stype, empty_sparse(stype, shape, dtype), ctx)
    if out is not None:
        result.copyto(out)
        return out
    return result


def empty(stype, shape, ctx=None, dtype=None):
    """An empty (all-zero) sparse array; see :func:`zeros`."""
    if stype not in ('csr', 'row_sparse'):
        raise Exception('unknown stype : ' + str(stype))
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A sparse array copied from a CSRNDArray / RowSparseNDArray or a scipy sparse
    matrix (made canonical: sorted indices, duplicates summed).

    Parameters
    ----------
    source_array : RowSparseNDArray, CSRNDArray or scipy.sparse matrix
    ctx : Context, optional
        The current context by default.
    dtype : str or numpy.dtype, optional
        The source's dtype by default.
    """
    ctx = current_context() if ctx is None else ctx
    if isinstance(source_array, NDArray):
        if source_array.stype == 'default':
            raise ValueError('Please use `tostype` to create RowSparseNDArray or CSRNDArray '
                             'from an NDArray')
        dtype = _default_dtype(source_array, dtype)
        result = source_array.astype(dtype) if np.dtype(source_array.dtype) != dtype \
            else source_array.copy()
        result._ctx = ctx
        return result
    if spsp.issparse(source_array):
        csr = spsp.csr_matrix(source_array).sorted_indices()
        csr.sum_duplicates()
        dtype = _default_dtype(source_array, dtype)
        return csr_matrix((csr.data, csr.indices, csr.indptr), shape=csr.shape, dtype=dtype,
                          ctx=ctx)
    if isinstance(source_array, (np.ndarray, np.generic)):
        raise ValueError('Please use mx.nd.array to create an NDArray with source_array of '
                         'type ', type(source_array))
    raise ValueError('Unexpected source_array type: ', type(source_array))


# ---- arithmetic with MXNet's choice between elementwise and broadcast operators ----------
def _arith(lhs, rhs, elemwise, broadcast, scalar, rscalar):
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        name = elemwise if lhs.shape == rhs.shape else broadcast
        return _op(name)(lhs, rhs)
    if isinstance(lhs, NDArray):
        return _op(scalar)(lhs, scalar=float(rhs))
    if isinstance(rhs, NDArray):
        return _op(rscalar)(rhs, scalar=float(lhs))
    raise TypeError('type %s not supported' % str(type(rhs)))


def add(lhs, rhs):
    """``lhs + rhs``: elemwise_add for equal shapes (sparse-aware), else broadcast_add."""
    return _arith(lhs, rhs, 'elemwise_add', 'broadcast_add', '_plus_scalar', '_plus_scalar')


def subtract(lhs, rhs):
    """``lhs - rhs``: elemwise_sub for equal shapes (sparse-aware), else broadcast_sub."""
    return _arith(lhs, rhs, 'elemwise_sub', 'broadcast_sub', '_minus_scalar',
                  '_rminus_scalar')


def multiply(lhs, rhs):
    """``lhs * rhs``: elemwise_mul for equal shapes (sparse-aware), else broadcast_mul."""
    return _arith(lhs, rhs, 'elemwise_mul', 'broadcast_mul', '_mul_scalar', '_mul_scalar')


def divide(lhs, rhs):
    """``lhs / rhs``: elemwise_div for equal shapes, else broadcast_div."""
    return _arith(lhs, rhs, 'elemwise_div', 'broadcast_div', '_div_scalar', '_rdiv_scalar')


def _populate():
    """``mx.nd.sparse.<name>`` for every operator registered as ``_sparse_<name>``."""
    from .ndarray import _OPS
    names = {}
    for op_name, fn in _OPS.items():
        if op_name.startswith('_sparse_'):
            names[op_name[len('_sparse_'):]] = fn
    return names


globals().update({k: v for k, v in _populate().items() if k not in globals()})
