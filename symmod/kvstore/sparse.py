"""row_sparse values in KVStores (MXNet's CommCPU ReduceRowSparse / BroadcastRowSparse):
pushed row_sparse gradients are summed as row_sparse, ``row_sparse_pull`` copies only the
requested rows of a stored row_sparse value, and ``pull`` leaves sparse destinations
alone unless ``ignore_sparse=False``."""
import logging

import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse_array import RowSparseNDArray, RowSparseStorage, new_sparse
from ..ops.sparse.base import add_storage
from ..ops.sparse.rows import retain_rows
from .base import key_value_pairs

__all__ = ['sum_row_sparse', 'store_pushed', 'pull_rows', 'row_sparse_targets', 'warn_sparse_pull',
           'allreduce_row_sparse', 'broadcast_row_sparse']

_LOG = logging.getLogger('symmod.kvstore')


def sum_row_sparse(key, values, shape):
    """The sum of pushed values as one NDArray: row_sparse when every value is, else dense."""
    for v in values:
        if tuple(v.shape) != tuple(shape):
            raise MXNetError('push of key %r: value has shape %s, the stored value has shape %s'
                             % (key, v.shape, shape))
    if all(isinstance(v, RowSparseNDArray) for v in values):
        total = values[0]._data
        total = RowSparseStorage(total.data.copy(), total.indices.copy(), total.shape)
        for v in values[1:]:
            total = add_storage('row_sparse', total, v._data)
        return new_sparse('row_sparse', total, values[0].context)
    dense = np.zeros(shape, dtype=values[0].dtype)
    for v in values:
        dense += v._host()
    return NDArray(dense, values[0].context)


def store_pushed(updater, key, total, stored):
    """A pushed sum: to the updater (which updates ``stored``), else it replaces it."""
    if updater is not None:
        updater(key, total, stored)
    elif total.stype == stored.stype:
        stored._set_storage(total._data)
    else:
        total.copyto(stored)


def pull_rows(key, stored, dst, row_ids):
    """Copy the rows ``row_ids`` of the stored row_sparse value into row_sparse ``dst``."""
    if stored.stype != 'row_sparse':
        raise MXNetError('row_sparse_pull of key %r: PullRowSparse expects a row_sparse '
                         'stored value, found %s' % (key, stored.stype))
    if dst.stype != 'row_sparse':
        raise MXNetError('row_sparse_pull of key %r: the output must be row_sparse, found %s'
                         % (key, dst.stype))
    if tuple(dst.shape) != tuple(stored.shape):
        raise MXNetError('row_sparse_pull of key %r: output has shape %s, the stored value '
                         'has shape %s' % (key, dst.shape, stored.shape))
    rows = retain_rows(stored._data, row_ids._host())
    if rows.dtype != np.dtype(dst.dtype):
        rows = RowSparseStorage(rows.data.astype(dst.dtype), rows.indices, rows.shape)
    dst._set_storage(rows)


def row_sparse_targets(store, key, out, row_ids):
    """``(triples, copies)`` of a row_sparse_pull call, with MXNet's argument checks:
    ``(key, destination, row_ids)`` to pull, then ``(source, destination)`` to copy (a
    single row_ids array serving several destinations pulls into the first only)."""
    assert out is not None
    assert row_ids is not None
    if isinstance(row_ids, NDArray):
        row_ids = [row_ids]
    assert isinstance(row_ids, list), 'row_ids should be NDArray or list of NDArray'
    first_out = out
    copies = []
    if len(row_ids) == 1 and isinstance(out, list):
        first_out = [out[0]]
        copies = [(out[0], other) for other in out[1:]]
    pairs = store._parse(key, first_out, 'out')
    id_pairs, _ = key_value_pairs(key, row_ids, 'row_ids')
    assert len(id_pairs) == len(pairs), \
        "the number of row_ids doesn't match the number of values"
    return [(k, dst, rows) for (k, dst), (_, rows) in zip(pairs, id_pairs)], copies


def warn_sparse_pull(store, key):
    """MXNet's one-time notice that a pull into sparse arrays was skipped."""
    seen = store.__dict__.setdefault('_sparse_pull_warned', set())
    if key not in seen:
        seen.add(key)
        _LOG.info('Warning: non-default weights detected during kvstore pull. This call has '
                  'been ignored. Please make sure to use kv.row_sparse_pull() or '
                  'module.prepare() with row_ids.')


# ---- across the workers of a synchronous job ----------------------------------------------
def _as_row_sparse(value):
    """A RowSparseStorage of an NDArray (dense values become all of their rows)."""
    if isinstance(value, RowSparseNDArray):
        return value._data
    dense = value._host()
    return RowSparseStorage(dense, np.arange(dense.shape[0], dtype=np.int64), dense.shape)


def allreduce_row_sparse(fusion, keys, values):
    """Every worker's ``values`` (one per key) summed in rank order: row_sparse NDArrays,
    the same on every worker. The row counts are gathered first, then each worker's
    (indices, rows) padded to the largest count."""
    parts = [_as_row_sparse(v) for v in values]
    counts = [np.array([len(p.indices)], dtype=np.int64).view(np.uint8) for p in parts]
    gathered_counts = fusion.allgather_bytes(keys, counts)
    per_worker = [np.ascontiguousarray(g).view(np.int64).reshape(-1) for g in gathered_counts]
    chunks = []
    for part, counts_k in zip(parts, per_worker):
        most = max(int(counts_k.max()), 1)      # never an empty message
        row = int(np.prod(part.shape[1:], dtype=np.int64))
        indices = np.zeros(most, dtype=np.int64)
        data = np.zeros((most, row), dtype=part.dtype)
        indices[:len(part.indices)] = part.indices
        data[:len(part.indices)] = part.data.reshape(len(part.indices), row)
        chunks.append(np.concatenate([indices.view(np.uint8), data.reshape(-1).view(np.uint8)]))
    gathered = fusion.allgather_bytes(keys, chunks)
    results = []
    for part, counts_k, rows, value in zip(parts, per_worker, gathered, values):
        most = max(int(counts_k.max()), 1)
        total = None
        for worker, count in enumerate(counts_k):
            raw = np.ascontiguousarray(rows[worker])
            indices = raw[:most * 8].view(np.int64)[:count]
            data = raw[most * 8:].view(part.dtype).reshape((most,) + tuple(part.shape[1:]))
            piece = RowSparseStorage(data[:count].copy(), indices.copy(), part.shape)
            total = piece if total is None else add_storage('row_sparse', total, piece)
        results.append(new_sparse('row_sparse', total, value.context))
    return results


def broadcast_row_sparse(fusion, keys, arrays):
    """Overwrite every worker's row_sparse ``arrays`` with rank 0's (row counts, then
    indices and rows)."""
    counts = [np.array([len(a._data.indices)], dtype=np.int64) for a in arrays]
    fusion.broadcast(keys, counts)
    for key, array, count in zip(keys, arrays, counts):
        s = array._data
        n = int(count[0])
        if n == 0:
            array._set_storage(RowSparseStorage(np.zeros((0,) + tuple(s.shape[1:]), s.dtype),
                                                np.zeros(0, np.int64), s.shape))
            continue
        indices = s.indices.astype(np.int64) if len(s.indices) == n else \
            np.zeros(n, dtype=np.int64)
        data = np.ascontiguousarray(s.data) if len(s.indices) == n else \
            np.zeros((n,) + tuple(s.shape[1:]), dtype=s.dtype)
        fusion.broadcast([key, key], [indices, data.reshape(-1)])
        array._set_storage(RowSparseStorage(data.reshape((n,) + tuple(s.shape[1:])),
                                            indices, s.shape))
