"""Storage rules of the row-wise operators: cast_storage, retain, _square_sum, slice and
take on csr, Embedding / SparseEmbedding (row_sparse weights and gradients), the
_scatter_* operators and getnnz."""
import numpy as np

from ...ndarray.sparse_array import RowSparseStorage, make_csr
from .base import StorageImpl, register_storage, store_array, dense_forward
from .kernels import segment_rows, sorted_unique


def _copy(storage):
    if isinstance(storage, RowSparseStorage):
        return RowSparseStorage(storage.data.copy(), storage.indices.copy(), storage.shape)
    return storage.copy()


@register_storage('cast_storage')
class _CastStorage(StorageImpl):

    def infer(self, op, in_stypes):
        if in_stypes[0] == 'default' and op.stype == 'default':
            return None
        return [op.stype]

    def forward(self, op, is_train, inputs, outputs):
        x = inputs[0]
        store_array(outputs[0], _copy(x._data) if x.stype == outputs[0].stype else x._data)

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        store_array(in_grads[0], out_grads[0]._data, reqs[0])
        return True


def retain_rows(storage, indices):
    """Row-sparse storage of ``storage``'s rows at ``indices`` (sorted, unique, in range;
    rows ``storage`` lacks are zero), as MXNet's retain keeps every requested row."""
    rows = sorted_unique(np.asarray(indices).reshape(-1).astype(np.int64))
    rows = rows[(rows >= 0) & (rows < storage.shape[0])]
    data = np.zeros((len(rows),) + tuple(storage.shape[1:]), dtype=storage.dtype)
    if len(storage.indices) and len(rows):
        where = np.searchsorted(storage.indices, rows)
        where = np.minimum(where, len(storage.indices) - 1)
        present = storage.indices[where] == rows
        data[present] = storage.data[where[present]]
    return RowSparseStorage(data, rows, storage.shape)


@register_storage('_sparse_retain')
class _Retain(StorageImpl):

    def infer(self, op, in_stypes):
        return ['row_sparse'] if in_stypes[0] == 'row_sparse' else None

    def grad_stypes(self, op, in_stypes):
        return ['row_sparse', 'default']

    def forward(self, op, is_train, inputs, outputs):
        store_array(outputs[0], retain_rows(inputs[0]._data, inputs[1]._host()))

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        grad = out_grads[0]
        dense = grad._data if grad.stype == 'default' else grad._host()
        rows = sorted_unique(inputs[1]._host().reshape(-1).astype(np.int64))
        rows = rows[(rows >= 0) & (rows < dense.shape[0])]
        store_array(in_grads[0], RowSparseStorage(dense[rows], rows, dense.shape), reqs[0])
        return True


@register_storage('_square_sum')
class _SquareSum(StorageImpl):

    def infer(self, op, in_stypes):
        if in_stypes[0] != 'row_sparse':
            return None
        axes = op.axes_for((2, 2))
        return ['row_sparse' if axes == (1,) and op.keepdims else 'default']

    def forward(self, op, is_train, inputs, outputs):
        x, out = inputs[0], outputs[0]
        s = x._data
        if len(x.shape) != 2:
            dense_forward(op, is_train, inputs, outputs)
            return
        axes = op.axes_for(x.shape)
        squares = np.square(s.data)
        if axes == (1,):
            sums = squares.sum(axis=1, dtype=s.dtype)
            if out.stype == 'row_sparse':
                store_array(out, RowSparseStorage(sums.reshape(-1, 1), s.indices.copy(),
                                                  out.shape))
                return
            dense = np.zeros(x.shape[0], dtype=s.dtype)
            dense[s.indices] = sums
        elif axes == (0,):
            dense = squares.sum(axis=0, dtype=s.dtype)
        else:
            dense = np.asarray(squares.sum(dtype=s.dtype))
        store_array(out, dense.reshape(out.shape))

    @staticmethod
    def _sparse_grad(op, in_stype, shape):
        return in_stype == 'row_sparse' and len(shape) == 2 and op.axes_for(shape) in ((0,), (1,))

    def grad_stypes(self, op, in_stypes):
        # MXNet: a row_sparse input (2-D, axis 0 or 1) gets a row_sparse gradient
        return ['row_sparse'] if in_stypes[0] == 'row_sparse' else None

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        """The gradient ``2 x dy`` on the input's own rows, as MXNet computes it for a
        row_sparse input: rows the input lacks get no gradient."""
        x, dy = inputs[0], out_grads[0]
        if reqs[0] == 'null' or in_grads[0] is None:
            return True
        if not self._sparse_grad(op, x.stype, x.shape) or dy.stype not in ('default',
                                                                            'row_sparse'):
            return False
        s = x._data
        rows = s.indices
        if op.axes_for(x.shape) == (1,):
            if dy.stype == 'row_sparse':
                g = dy._data
                per_row = np.zeros(len(rows), dtype=s.dtype)
                where = np.searchsorted(g.indices, rows)
                where = np.minimum(where, max(len(g.indices) - 1, 0))
                hit = (g.indices[where] == rows) if len(g.indices) else np.zeros(len(rows), bool)
                per_row[hit] = g.data.reshape(len(g.indices), -1)[where[hit], 0]
            else:
                per_row = dy._data.reshape(x.shape[0])[rows]
            grad = 2 * s.data * per_row.reshape(-1, 1)
        else:
            grad = 2 * s.data * dy._data.reshape(1, x.shape[1])
        store_array(in_grads[0], RowSparseStorage(grad.astype(s.dtype, copy=False),
                                                  rows.copy(), x.shape), reqs[0])
        return True


@register_storage('slice')
class _CsrSlice(StorageImpl):
    """slice of a csr array with unit steps: a csr array (scipy's slicing)."""

    def infer(self, op, in_stypes):
        if in_stypes[0] == 'csr' and all(s in (None, 1) for s in (op.step or ())):
            return ['csr']
        return None

    def forward(self, op, is_train, inputs, outputs):
        m = inputs[0]._data
        index = op._index(m.shape) + (slice(None),) * 2
        part = m[index[0], index[1]].tocsr()
        store_array(outputs[0], part)


@register_storage('take')
class _CsrTake(StorageImpl):
    """take rows of a csr array: a csr array."""

    def infer(self, op, in_stypes):
        if in_stypes[0] == 'csr' and op.axis == 0:
            return ['csr']
        return None

    def forward(self, op, is_train, inputs, outputs):
        m = inputs[0]._data
        idx = op._indices(inputs[1]._host(), m.shape[0])
        if len(inputs[1].shape) != 1:
            dense_forward(op, is_train, inputs, outputs)
            return
        store_array(outputs[0], m[idx].tocsr())


def _embedding_rows(op, data):
    rows = np.asarray(data).reshape(-1)
    with np.errstate(invalid='ignore'):
        rows = rows.astype(np.int64)
    return np.clip(rows, 0, op.input_dim - 1)


def embedding_gradient(op, data, ograd):
    """The weight gradient of an embedding lookup as row-sparse storage: one row per
    distinct index, the sum of the output gradients that used it."""
    op.check_in_range(data)
    ids = _embedding_rows(op, data)
    rows = sorted_unique(ids)
    dy = np.ascontiguousarray(ograd.reshape(ids.size, op.output_dim))
    grad = np.empty((len(rows), op.output_dim), dtype=dy.dtype)
    if dy.dtype in (np.float32, np.float64):
        segment_rows(ids, dy, rows, grad)
    else:
        grad[...] = 0
        np.add.at(grad, np.searchsorted(rows, ids), dy)
    return RowSparseStorage(grad, rows, (op.input_dim, op.output_dim))


@register_storage('Embedding', '_contrib_SparseEmbedding')
class _Embedding(StorageImpl):
    """A row_sparse weight is looked up row by row; with ``sparse_grad`` (always for
    SparseEmbedding) a row_sparse gradient buffer gets only the rows the batch used."""

    def infer(self, op, in_stypes):
        return ['default'] if in_stypes[1] == 'row_sparse' else None

    def grad_stypes(self, op, in_stypes):
        return ['default', 'row_sparse'] if op.sparse_grad else None

    def forward(self, op, is_train, inputs, outputs):
        data, weight = inputs
        if weight.stype != 'row_sparse':
            dense_forward(op, is_train, inputs, outputs)
            return
        s = weight._data
        op.check_in_range(data._host(), 'SparseEmbedding')
        ids = _embedding_rows(op, data._host())
        out = np.zeros((ids.size, op.output_dim), dtype=outputs[0].dtype)
        if len(s.indices):
            where = np.minimum(np.searchsorted(s.indices, ids), len(s.indices) - 1)
            present = s.indices[where] == ids
            out[present] = s.data[where[present]]
        store_array(outputs[0], out.reshape(outputs[0].shape))

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        grad = in_grads[1]
        if reqs[1] == 'null' or grad.stype != 'row_sparse':
            return False
        if reqs[0] != 'null':
            return False        # the dense path raises MXNet's error for a data gradient
        ograd = out_grads[0]
        dense = ograd._data if ograd.stype == 'default' else ograd._host()
        store_array(grad, embedding_gradient(op, inputs[0]._host(), dense), reqs[1])
        return True


@register_storage('_scatter_elemwise_div')
class _ScatterDiv(StorageImpl):
    """rsp / anything keeps the rows of the lhs; csr / csr keeps its entries."""

    def infer(self, op, in_stypes):
        if in_stypes[0] == 'row_sparse' or in_stypes == ['csr', 'csr']:
            return [in_stypes[0]]
        return None

    def forward(self, op, is_train, inputs, outputs):
        lhs, rhs = inputs
        dense = rhs._data if rhs.stype == 'default' else rhs._host()
        s = lhs._data
        with np.errstate(all='ignore'):
            if lhs.stype == 'csr':
                rows = np.repeat(np.arange(s.shape[0]), np.diff(s.indptr))
                values = s.data / dense[rows, s.indices]
                store_array(outputs[0], make_csr(values.astype(s.dtype), s.indices.copy(),
                                                 s.indptr.copy(), s.shape))
            else:
                values = s.data / dense[s.indices]
                store_array(outputs[0], RowSparseStorage(values.astype(s.dtype),
                                                         s.indices.copy(), s.shape))


@register_storage('_scatter_plus_scalar', '_scatter_minus_scalar')
class _ScatterScalar(StorageImpl):

    def infer(self, op, in_stypes):
        return None if in_stypes[0] == 'default' else [in_stypes[0]]

    def forward(self, op, is_train, inputs, outputs):
        s = inputs[0]._data
        values = s.data + s.dtype.type(op.sign * op.scalar)
        if inputs[0].stype == 'csr':
            store_array(outputs[0], make_csr(values, s.indices.copy(), s.indptr.copy(),
                                             s.shape))
        else:
            store_array(outputs[0], RowSparseStorage(values, s.indices.copy(), s.shape))


@register_storage('_contrib_getnnz')
class _GetNNZ(StorageImpl):

    def infer(self, op, in_stypes):
        return ['default'] if in_stypes[0] == 'csr' else None

    def forward(self, op, is_train, inputs, outputs):
        m = inputs[0]._data
        counts = np.array([m.indptr[-1]]) if op.axis is None else np.diff(m.indptr)
        store_array(outputs[0], counts.astype(np.int64))
