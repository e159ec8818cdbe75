"""Gradients written into row_sparse buffers with MXNet's row sets.

The tape computes gradients densely. MXNet's row_sparse gradient of an embedding weight
(``Embedding(sparse_grad=True)``, ``_contrib_SparseEmbedding``) holds every row the batch
looked up, even a row whose gradient sums to zero; lazy optimizer updates then touch
exactly those rows. Other gradients stored as row_sparse keep their non-zero rows (MXNet's
cast of a dense gradient).
"""
import numpy as np

from ..base import MXNetError
from ..ndarray.sparse_array import make_row_sparse

__all__ = ['looked_up_rows', 'store_row_sparse_grad']


def looked_up_rows(var, nodes):
    """The weight rows that sparse-gradient embeddings reading ``var`` looked up (taken
    before the backward pass frees the nodes)."""
    rows = []
    for node in nodes:
        op = getattr(node, 'op', None)      # a hybridized graph's node has none
        if not getattr(op, 'sparse_grad', False) or len(node.in_entries) < 2:
            continue
        entry = node.in_entries[1]
        if entry is None or entry[0] is not var or node.in_data is None:
            continue
        rows.append(np.unique(op._rows(node.in_data[0])))
    return rows


def store_row_sparse_grad(var, looked_up, value, req):
    """Write the dense gradient ``value`` (None: zero) of ``var`` into its row_sparse
    buffer with the rows MXNet's gradient holds (``looked_up``: from
    :func:`looked_up_rows`); ``req`` is 'write' or 'add'."""
    dst = var.grad
    shape = dst.shape
    dense = np.zeros(shape, dtype=dst.dtype) if value is None else \
        np.asarray(value, dtype=dst.dtype).reshape(shape)
    parts = list(looked_up)
    flat = dense.reshape(shape[0], -1)
    parts.append(np.flatnonzero(flat.any(axis=1)))
    if req == 'add':
        if looked_up:
            raise MXNetError("SparseEmbedding layer doesn't support weight gradient "
                             "calculation with req != write (the weight's grad_req is 'add')")
        held = dst._data
        parts.append(np.asarray(held.indices, dtype=np.int64))
        flat = flat.copy()
        flat[held.indices] += held.data.reshape(len(held.indices), flat.shape[1])
    rows = np.unique(np.concatenate(parts)).astype(np.int64)
    data = np.ascontiguousarray(flat[rows].reshape((len(rows),) + tuple(shape[1:])))
    dst._set_storage(make_row_sparse(data, rows, shape))
