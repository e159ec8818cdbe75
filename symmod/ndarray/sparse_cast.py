"""Storage conversions between dense, csr and row_sparse arrays, and CSR row slicing."""
import numpy as np

from ..base import MXNetError
from .ndarray import NDArray
from .sparse_array import (CSRNDArray, RowSparseNDArray, make_csr, new_sparse, to_storage,
                           empty_sparse, _check_scipy_dtype)

__all__ = ['cast_storage_array', 'storage_like', 'csr_row_slice', 'from_record',
           'STYPES']

STYPES = ('default', 'row_sparse', 'csr')


def _check_stype(stype):
    if stype not in STYPES:
        raise MXNetError("storage type must be one of 'default', 'row_sparse', 'csr', found %r"
                         % (stype,))


def storage_like(array, stype):
    """The values of NDArray ``array`` as storage of type ``stype`` ('default' gives a
    numpy array); shares the array's own storage when it already has that type."""
    if array.stype == stype:
        return array._data
    if stype == 'default':
        return array._host()
    if array.stype == 'default':
        return to_storage(array._host(), stype)
    return to_storage(array._host(), stype)


def cast_storage_array(array, stype):
    """A copy of ``array`` with storage type ``stype`` (``NDArray.tostype``).

    As in MXNet, ``tostype`` between the two sparse types is refused.
    """
    _check_stype(stype)
    if {array.stype, stype} == {'csr', 'row_sparse'}:
        raise ValueError('cast_storage from %s to %s is not supported' % (array.stype, stype))
    if stype == 'csr' and array.ndim != 2:
        raise ValueError('cast_storage to csr needs a 2-D array, found shape %s'
                         % (array.shape,))
    if stype == 'default':
        return NDArray(np.array(array._host(), copy=True), array.context)
    if array.stype == stype:
        return array.copy()
    return new_sparse(stype, to_storage(array._host(), stype), array.context)


def csr_row_slice(array, begin, end):
    """Rows ``begin:end`` of a CSRNDArray as a new CSRNDArray (``csr[begin:end]``)."""
    m = array._data
    lo, hi = m.indptr[begin], m.indptr[end]
    storage = make_csr(m.data[lo:hi].copy(), m.indices[lo:hi].copy(),
                       m.indptr[begin:end + 1] - lo, (end - begin, m.shape[1]))
    return CSRNDArray(storage, array.context)


def from_record(record, ctx):
    """The NDArray of a decoded sparse file record (see formats.params.SparseRecord)."""
    if record.stype == 'csr':
        indptr, indices = record.aux
        if len(indptr) == 0:
            indptr = np.zeros(record.shape[0] + 1, dtype=indptr.dtype)
        _check_scipy_dtype(record.data.dtype)
        storage = make_csr(record.data, indices.astype(np.int64), indptr.astype(np.int64),
                           record.shape)
        return CSRNDArray(storage, ctx)
    (indices,) = record.aux
    data = record.data.reshape((len(indices),) + tuple(record.shape[1:]))
    from .sparse_array import RowSparseStorage
    return RowSparseNDArray(RowSparseStorage(data, indices.astype(np.int64), record.shape),
                            ctx)


def zeros_storage(stype, shape, dtype):
    """All-zero storage of ``stype``: a numpy array for 'default'."""
    if stype == 'default':
        return np.zeros(shape, dtype=dtype)
    return empty_sparse(stype, shape, dtype)
