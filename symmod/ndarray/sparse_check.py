"""``check_format``: MXNet's validity rules for csr and row_sparse storage, with its messages."""
import numpy as np

from ..base import MXNetError

__all__ = ['check_storage']

_CSR_SHAPE = 'Shape mismatch of this csr NDArray'
_CSR_INDPTR = ('IndPtr of csr NDArray should be non-negative, in non-decreasing order, start '
               'with 0, and end with value equal with size of indices.')
_CSR_INDICES = ('Indices of csr NDArray should be non-negative, in ascending order per row  '
                'and less than the number of columns.')
_RSP_SHAPE = 'Shape mismatch of this row_sparse NDArray'
_RSP_INDICES = ('Indices of row_sparse NDArray should be non-negative, less than the size of '
                'first dimension and in ascending order')


def _check_csr(matrix, full_check):
    indptr, indices, data = matrix.indptr, matrix.indices, matrix.data
    rows, cols = matrix.shape
    if indptr.ndim != 1 or indices.ndim != 1 or data.ndim != 1 \
            or len(indptr) != rows + 1 or len(indices) != len(data):
        raise MXNetError(_CSR_SHAPE)
    if not full_check:
        return
    steps = np.diff(indptr)
    if indptr[0] != 0 or np.any(indptr < 0) or np.any(steps < 0) \
            or indptr[-1] != len(indices):
        raise MXNetError(_CSR_INDPTR)
    if len(indices) == 0:
        return
    if np.any(indices < 0) or np.any(indices >= cols):
        raise MXNetError(_CSR_INDICES)
    # strictly ascending within each row: every step inside a row is positive
    inside = np.ones(len(indices) - 1, dtype=bool)
    row_starts = indptr[1:-1]
    inside[row_starts[(row_starts > 0) & (row_starts < len(indices))] - 1] = False
    if np.any(np.diff(indices)[inside] <= 0):
        raise MXNetError(_CSR_INDICES)


def _check_row_sparse(storage, full_check):
    indices, data = storage.indices, storage.data
    if indices.ndim != 1 or len(indices) != data.shape[0]:
        raise MXNetError(_RSP_SHAPE)
    if len(indices) == 0 or not full_check:
        return
    if indices[0] < 0 or indices[-1] >= storage.shape[0] or np.any(indices < 0) \
            or np.any(indices >= storage.shape[0]) or np.any(np.diff(indices) <= 0):
        raise MXNetError(_RSP_INDICES)


def check_storage(stype, storage, full_check=True):
    """Raise MXNetError when ``storage`` is not a valid array of storage type ``stype``."""
    if stype == 'csr':
        _check_csr(storage, full_check)
    else:
        _check_row_sparse(storage, full_check)
