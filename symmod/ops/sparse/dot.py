"""``dot`` with csr and row_sparse operands (MXNet's storage rules on CPU).

Output storage: ``forward_stype`` when given, else csr x dense/rsp -> dense,
csr.T x dense/rsp -> row_sparse (only the columns the csr uses can be nonzero), dense x csr
-> csr, anything else dense. Gradients: for a csr ``lhs`` the ``rhs`` gradient is
``csr.T @ ograd``, computed only for the rows the csr touches when its destination is
row_sparse (sparse linear models and factorization: the weight gradient of a batch).
"""
import numpy as np

from ...ndarray.sparse_array import RowSparseStorage, make_csr
from .base import StorageImpl, register_storage, store_array, dense_forward, dense_backward
from . import kernels


def _float_kernel_ok(*arrays):
    return all(a.dtype in (np.float32, np.float64) for a in arrays) and \
        len({a.dtype for a in arrays}) == 1


def _rhs_dense(x):
    """A 2-D dense view of a dense or row_sparse operand."""
    data = x._data if x.stype == 'default' else x._host()
    return data.reshape(data.shape[0], -1)


def csr_times(matrix, rhs, out2d, accumulate=False):
    """``out2d (+)= matrix @ rhs`` for a scipy csr matrix and a 2-D dense ``rhs``."""
    if _float_kernel_ok(matrix.data, rhs, out2d):
        kernels.csr_dot_dense(matrix.indptr, matrix.indices, matrix.data,
                              np.ascontiguousarray(rhs), out2d, accumulate)
    else:
        value = matrix @ rhs
        if accumulate:
            out2d += value
        else:
            out2d[...] = value


def csr_t_times_rows(matrix, rhs):
    """``matrix.T @ rhs`` as row_sparse storage: only the columns ``matrix`` uses."""
    width = rhs.shape[1]
    dtype = np.result_type(matrix.data, rhs)
    if _float_kernel_ok(matrix.data, rhs) and dtype == rhs.dtype:
        # the columns as rows (scipy's O(nnz) transpose), then a row-parallel product
        # over the non-empty ones: no two threads write the same output row
        columns = matrix.tocsc()
        rows = np.flatnonzero(np.diff(columns.indptr))
        indptr = np.append(columns.indptr[rows], columns.indptr[-1])
        data = np.empty((len(rows), width), dtype=dtype)
        kernels.csr_dot_dense(indptr, columns.indices, columns.data,
                              np.ascontiguousarray(rhs), data, False)
        return RowSparseStorage(data, rows.astype(np.int64), (matrix.shape[1], width))
    rows, position = kernels.unique_positions(matrix.indices[:matrix.indptr[-1]])
    compact = make_csr(matrix.data, position, matrix.indptr, (matrix.shape[0], len(rows)))
    data = np.asarray(compact.T @ rhs, dtype=dtype).reshape(len(rows), width)
    return RowSparseStorage(data, rows, (matrix.shape[1], width))


@register_storage('dot')
class _Dot(StorageImpl):

    def infer(self, op, in_stypes):
        lhs, rhs = in_stypes
        hint = op.forward_stype
        if lhs == 'default' and rhs == 'default':
            return None if hint in (None, 'default') else [hint]
        if lhs == 'csr' and rhs in ('default', 'row_sparse') and not op.transpose_b:
            return [hint or ('row_sparse' if op.transpose_a else 'default')]
        if lhs == 'default' and rhs == 'csr' and not op.transpose_a:
            return [hint or 'csr']
        return [hint or 'default']

    def forward(self, op, is_train, inputs, outputs):
        lhs, rhs = inputs
        out = outputs[0]
        if lhs.stype == 'csr' and rhs.stype != 'csr' and not op.transpose_b:
            matrix, dense = lhs._data, _rhs_dense(rhs)
            if not op.transpose_a and out.stype == 'default':
                csr_times(matrix, dense, out._data.reshape(out.shape[0], -1))
                return
            if op.transpose_a:
                result = csr_t_times_rows(matrix, dense)
                if len(out.shape) != 2:
                    result = RowSparseStorage(result.data.reshape((-1,) + out.shape[1:]),
                                              result.indices, out.shape)
                store_array(out, result)
                return
        if lhs.stype == 'default' and rhs.stype == 'csr' and not op.transpose_a:
            matrix = rhs._data
            dense = lhs._data.reshape(-1, lhs.shape[-1])
            # dense @ csr = (csr.T @ dense.T).T, dense @ csr.T = (csr @ dense.T).T
            product = (matrix @ dense.T).T if op.transpose_b else (matrix.T @ dense.T).T
            store_array(out, np.ascontiguousarray(product, dtype=out.dtype))
            return
        dense_forward(op, is_train, inputs, outputs)

    def grad_stypes(self, op, in_stypes):
        if in_stypes[0] == 'csr' and not op.transpose_a and not op.transpose_b:
            return ['default', 'row_sparse']
        return None

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        lhs, rhs = inputs
        if lhs.stype != 'csr' or op.transpose_b or rhs.stype == 'csr':
            return False
        matrix = lhs._data
        ograd = _rhs_dense(out_grads[0])
        rhs_grad = in_grads[1]
        if reqs[1] != 'null':
            if op.transpose_a:      # out = csr.T @ rhs: d rhs = csr @ ograd
                value = np.zeros(rhs.shape, dtype=rhs_grad.dtype).reshape(rhs.shape[0], -1)
                csr_times(matrix, ograd, value)
                store_array(rhs_grad, value.reshape(rhs.shape), reqs[1])
            elif rhs_grad.stype == 'row_sparse':
                result = csr_t_times_rows(matrix, ograd)
                store_array(rhs_grad, RowSparseStorage(
                    result.data.astype(rhs_grad.dtype, copy=False).reshape(
                        (-1,) + rhs.shape[1:]), result.indices, rhs.shape), reqs[1])
            else:
                value = np.asarray(matrix.T @ ograd, dtype=rhs_grad.dtype)
                store_array(rhs_grad, value.reshape(rhs.shape), reqs[1])
        if reqs[0] != 'null':
            dense_backward(op, [reqs[0], 'null'], out_grads, inputs, outputs,
                           [in_grads[0], None])
        return True
