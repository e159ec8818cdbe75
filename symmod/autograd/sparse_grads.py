"""Gradients that stay row-sparse on the tape, and gradients written into row_sparse
buffers with MXNet's row sets.

The weight gradient of an embedding lookup with ``sparse_grad`` (``Embedding(...,
sparse_grad=True)``, ``_contrib_SparseEmbedding``: one row per distinct index) and the
``rhs`` gradient of ``dot(csr, rhs)`` (one row per column the csr stores) are computed as
row-sparse storage, as MXNet's backward operators do, never as dense weight-sized arrays; sums with other gradients stay
row-sparse while every term is, and a dense term densifies the sum. A row_sparse buffer
then receives MXNet's row set: every row the batch looked up (even one whose gradient
sums to zero), plus the non-zero rows of dense contributions (MXNet's cast of a dense
gradient); a dense buffer receives the densified value.
"""
import numpy as np

from ..base import MXNetError
from ..ndarray.sparse_array import RowSparseStorage, make_row_sparse
from ..ops.sparse.kernels import sorted_unique

__all__ = ['looked_up_rows', 'sparse_backward', 'sparse_input_grads', 'add_gradient',
           'dense_gradient', 'store_row_sparse_grad']


def _operator(node):
    """The operator of a recorded single-operator call; None for a hybridized graph's
    call, whose ``op`` is built on demand from the graph (a JSON round trip)."""
    return None if getattr(node, 'records_graph', False) else getattr(node, 'op', None)


def _arg(node, i):
    """Argument ``i`` of a recorded call as numpy (a csr argument elsewhere stays csr)."""
    return node.arg(i) if hasattr(node, 'arg') else node.in_data[i]


def looked_up_rows(var, nodes):
    """The weight rows that sparse-gradient embeddings reading ``var`` looked up (taken
    before the backward pass frees the nodes)."""
    rows = []
    for node in nodes:
        for position, looked_up in getattr(node, 'sparse_rows', ()):
            # a hybridized graph's call: its embeddings' rows, taken at forward
            entry = node.in_entries[position]
            if entry is not None and entry[0] is var:
                rows.append(sorted_unique(looked_up))
        op = _operator(node)
        if not getattr(op, 'sparse_grad', False) or len(node.in_entries) < 2:
            continue
        entry = node.in_entries[1]
        if entry is None or entry[0] is not var or node.cleared:
            continue
        rows.append(sorted_unique(op._rows(_arg(node, 0))))
    return rows


def sparse_backward(node, req):
    """Whether ``node`` computes its input gradients row-sparse for requests ``req``
    (only its second input's gradient is asked for): an embedding with ``sparse_grad``
    (a data gradient request goes the dense way, which raises MXNet's error), or
    ``dot(csr, rhs)`` (MXNet's ``_backward_dot``: csr.T @ ograd, one row per column the
    csr stores)."""
    op = _operator(node)
    if op is None or len(req) != 2 or req[0] != 'null' or req[1] == 'null':
        return False
    if getattr(op, 'sparse_grad', False):
        return True
    csr_in = getattr(node, 'csr_in', None)
    return op.name == 'dot' and csr_in and csr_in[0] is not False and csr_in[1] is False \
        and not op.transpose_a and not op.transpose_b and _arg(node, 1).ndim == 2


def sparse_input_grads(node, out_grad):
    """The input gradients ``[None, weight gradient as RowSparseStorage]`` of a node
    :func:`sparse_backward` accepts."""
    weight = _arg(node, 1)
    ograd = dense_gradient(out_grad[0], node.out_meta[0][0])
    if node.op.name == 'dot':
        from ..ops.sparse.dot import csr_t_times_rows      # the ops import autograd
        grad = csr_t_times_rows(node.csr_in[0], ograd.reshape(ograd.shape[0], -1))
    else:
        from ..ops.sparse.rows import embedding_gradient
        grad = embedding_gradient(node.op, _arg(node, 0), ograd)
    if grad.dtype != weight.dtype:
        grad = RowSparseStorage(grad.data.astype(weight.dtype), grad.indices, grad.shape)
    return [None, grad]


def dense_gradient(value, shape):
    """``value`` (numpy array or RowSparseStorage) as a dense numpy array."""
    if isinstance(value, RowSparseStorage):
        dense = np.zeros(shape, dtype=value.dtype)
        dense[value.indices] = value.data
        return dense
    return value


def add_gradient(held, value, value_owned):
    """``held + value`` where either may be row-sparse; ``held`` (a dense one is owned)
    may be reused, ``value`` only when ``value_owned``."""
    if isinstance(held, RowSparseStorage) and isinstance(value, RowSparseStorage):
        from ..ops.sparse.base import add_storage       # the ops import autograd
        return add_storage('row_sparse', held, value)
    if isinstance(held, RowSparseStorage):
        dense = value if value_owned else np.array(value, copy=True)
        dense[held.indices] += held.data
        return dense
    if isinstance(value, RowSparseStorage):
        held[value.indices] += value.data
        return held
    held += value
    return held


def store_row_sparse_grad(var, looked_up, value, req):
    """Write the gradient ``value`` (numpy array, RowSparseStorage, or None: zero) of
    ``var`` into its row_sparse buffer with the rows MXNet's gradient holds
    (``looked_up``: from :func:`looked_up_rows`); ``req`` is 'write' or 'add'."""
    dst = var.grad
    shape = tuple(dst.shape)
    row_shape = shape[1:]
    parts = list(looked_up)
    sources = []            # (rows, values) added into the result
    if isinstance(value, RowSparseStorage):
        parts.append(np.asarray(value.indices, dtype=np.int64))
        sources.append((value.indices, value.data))
    elif value is not None:
        flat = np.asarray(value).reshape(shape[0], -1)
        nonzero = np.flatnonzero(flat.any(axis=1))
        parts.append(nonzero)
        sources.append((nonzero, flat[nonzero].reshape((len(nonzero),) + row_shape)))
    if req == 'add':
        if looked_up:
            raise MXNetError("SparseEmbedding layer doesn't support weight gradient "
                             "calculation with req != write (the weight's grad_req is 'add')")
        held = dst._data
        parts.append(np.asarray(held.indices, dtype=np.int64))
        sources.append((held.indices, held.data))
    rows = sorted_unique(np.concatenate(parts)).astype(np.int64) if parts else \
        np.zeros(0, dtype=np.int64)
    data = np.zeros((len(rows),) + row_shape, dtype=dst.dtype)
    for src_rows, src_values in sources:
        if len(src_rows):
            data[np.searchsorted(rows, src_rows)] += src_values.reshape(
                (len(src_rows),) + row_shape)
    dst._set_storage(make_row_sparse(data, rows, shape))
