"""Indexing: take, pick, batch_take, one_hot, gather_nd and scatter_nd.

Indices arrive as arrays of any dtype (float32 by MXNet's convention) and are
truncated toward zero like a C++ cast. Gradients flow to the data input only; an
index input receives zeros. Backward sums the gradient of every output element into
the element it was read from (a numba scatter-add, as indices may repeat).
"""
import numba
import numpy as np

from ..base import MXNetError, parse_bool, parse_dtype, parse_float, parse_int, \
    parse_optional, parse_tuple
from .common import (OperatorIndexError, canonical_axis, copy_into, data_dtype, int_shape,
                     size_of, work_buffer, zero_grad)
from .registry import Operator, Param, register, ShapeError, unify, shape_is_known

__all__ = ['scatter_add']


@numba.njit(cache=True, error_model='numpy')
def _scatter_add_kernel(dst, idx, src):
    for o in range(src.shape[0]):
        for i in range(idx.shape[0]):
            row = idx[i]
            for k in range(src.shape[2]):
                dst[o, row, k] += src[o, i, k]


def scatter_add(dst, idx, src):
    """``dst[o, idx[i], k] += src[o, i, k]`` for 3-D arrays; repeated indices accumulate.

    A numba loop for float32/float64 (about 50x faster than ``np.add.at``);
    ``np.add.at`` for other dtypes.
    """
    if dst.dtype == src.dtype and dst.dtype in (np.float32, np.float64):
        _scatter_add_kernel(dst, idx, src)
    else:
        np.add.at(dst, (slice(None), idx), src)


def _enum(*choices):
    def parse(value):
        text = str(value).strip()
        if text not in choices:
            raise ValueError('expected one of %s, found %r' % (', '.join(choices), value))
        return text
    parse.__name__ = '{%s}' % ', '.join(choices)
    return parse


def _as_index(indices):
    """Indices as int64, truncated toward zero as MXNet's casts do."""
    return indices.astype(np.int64)


def _bound(idx, size, mode):
    """Bring indices into [0, size) by clipping or wrapping."""
    if mode == 'clip':
        return np.clip(idx, 0, size - 1, out=idx)
    return np.mod(idx, size, out=idx)


def _zero_index_grad(req, in_grad):
    # 'add' (the executor summing the gradients of an index read twice) adds zero
    if req[1] == 'write':
        in_grad[1].fill(0)


@register
class take(Operator):
    """Takes slices of ``a`` along ``axis`` at the given ``indices``.

    The result has shape ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``.
    ``mode`` says what out-of-range indices do: 'clip' (default) to the ends, 'wrap'
    around, or 'raise' an error.
    """
    name = 'take'
    params = (Param('axis', parse_int, 0, 'The axis of a to take from.'),
              Param('mode', _enum('raise', 'wrap', 'clip'), 'clip',
                    'Out-of-bound indices: raise, wrap or clip.'))
    backward_uses_outputs = False

    def list_arguments(self):
        return ['a', 'indices']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ashape, ishape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if ashape is None or ishape is None or not shape_is_known(ishape):
            return [ashape, ishape], list(out_shapes), []
        axis = canonical_axis(self.axis, len(ashape), 'take')
        out = ashape[:axis] + ishape + ashape[axis + 1:]
        return [ashape, ishape], [unify(out, out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        return data_dtype(in_types, out_types)

    def _indices(self, indices, size):
        if self.mode == 'raise':
            if indices.size and (indices.min() < 0 or indices.max() > size - 1):
                from ..ndarray.pending import ValueDependentError
                raise ValueDependentError('take: indices out of bound: values must be in '
                                          '[0, %d], found min %s and max %s'
                                          % (size - 1, indices.min(), indices.max()))
        return _bound(_as_index(indices).reshape(-1), size, self.mode)

    def _split(self, shape):
        axis = canonical_axis(self.axis, len(shape), 'take')
        return axis, size_of(shape[:axis]), shape[axis], size_of(shape[axis + 1:])

    def forward(self, is_train, req, in_data, out_data, aux):
        a, indices = in_data
        axis, outer, size, inner = self._split(a.shape)
        idx = self._indices(indices, size)
        out = out_data[0].reshape(outer, idx.size, inner)
        if req[0] == 'write':
            np.take(a.reshape(outer, size, inner), idx, axis=1, out=out, mode='clip')
        elif req[0] == 'add':
            out += np.take(a.reshape(outer, size, inner), idx, axis=1)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_index_grad(req, in_grad)
        if req[0] == 'null':
            return
        grad = in_grad[0]
        axis, outer, size, inner = self._split(grad.shape)
        idx = self._indices(in_data[1], size)
        if req[0] == 'write':
            grad.fill(0)
        scatter_add(grad.reshape(outer, size, inner), idx,
                    out_grad[0].reshape(outer, idx.size, inner))


def _reduce_axis_shape(shape, axis, keepdims):
    if len(shape) == 1:
        return (1,)
    ax = canonical_axis(axis, len(shape), 'pick')
    if keepdims:
        return shape[:ax] + (1,) + shape[ax + 1:]
    return shape[:ax] + shape[ax + 1:]


@register
class pick(Operator):
    """Picks one element per position along ``axis``: ``out[i] = data[i, index[i]]``.

    ``index`` has the data's shape without ``axis`` (or with it as size 1);
    ``mode`` 'clip' (default) or 'wrap' handles out-of-range indices.
    """
    name = 'pick'
    aliases = ('choose_element_0index',)
    params = (Param('axis', parse_optional(parse_int), -1, 'The axis to pick along.'),
              Param('keepdims', parse_bool, False, 'Keep the picked axis as size 1.'),
              Param('mode', _enum('wrap', 'clip'), 'clip', 'Out-of-bound indices: wrap or clip.'))
    backward_uses_outputs = False

    def check_params(self):
        if self.axis is None:
            raise MXNetError('pick: axis=None is not supported by pick yet. Must specify an axis.')

    def list_arguments(self):
        return ['data', 'index']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, ishape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is None:
            return [dshape, ishape], list(out_shapes), []
        out = unify(_reduce_axis_shape(dshape, self.axis, self.keepdims), out_shapes[0])
        if ishape is not None:
            keep = len(ishape) == len(dshape)
            try:
                ishape = unify(ishape, _reduce_axis_shape(dshape, self.axis, keep))
            except ShapeError:
                raise ShapeError('pick: index shape %s does not match data %s along axis %d'
                                 % (ishape, dshape, self.axis)) from None
        return [dshape, ishape], [out], []

    def infer_type(self, in_types, out_types, aux_types):
        return data_dtype(in_types, out_types)

    def _flat_positions(self, shape, index):
        """Flat positions in data of the picked elements, one per (outer, inner) pair."""
        ax = canonical_axis(self.axis, len(shape), 'pick')
        outer, size, inner = size_of(shape[:ax]), shape[ax], size_of(shape[ax + 1:])
        idx = _bound(_as_index(index).reshape(outer, inner), size, self.mode)
        base = (np.arange(outer, dtype=np.int64) * (size * inner))[:, None] \
            + np.arange(inner, dtype=np.int64)[None, :]
        return base + idx * inner

    def forward(self, is_train, req, in_data, out_data, aux):
        data, index = in_data
        pos = self._flat_positions(data.shape, index)
        copy_into(out_data[0], data.reshape(-1)[pos].reshape(out_data[0].shape), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_index_grad(req, in_grad)
        if req[0] == 'null':
            return
        grad = in_grad[0]
        pos = self._flat_positions(grad.shape, in_data[1])
        if req[0] == 'write':
            grad.fill(0)
        flat = grad.reshape(-1)
        # each (outer, inner) pair picks a distinct element, so no position repeats
        flat[pos] += out_grad[0].reshape(pos.shape)


@register
class batch_take(Operator):
    """Takes ``a[i, indices[i]]`` for each row i of a 2-D ``a`` (deprecated; use pick).

    Indices must be int32 as in MXNet; out-of-range indices are clipped.
    """
    name = 'batch_take'
    backward_uses_outputs = False

    def list_arguments(self):
        return ['a', 'indices']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ashape, ishape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        out = unify(ishape, int_shape(out_shapes[0]))
        ishape = out
        if ashape is not None:
            if len(ashape) != 2:
                raise ShapeError('batch_take: the data array must be 2-D, found shape %s'
                                 % (ashape,))
            if out is not None and shape_is_known(out) and size_of(out) != ashape[0]:
                raise ShapeError('batch_take: index array size %d must equal the number of rows '
                                 'of the data %s' % (size_of(out), ashape))
        return [ashape, ishape], [out], []

    def infer_type(self, in_types, out_types, aux_types):
        if in_types[1] is not None and in_types[1] != np.dtype(np.int32):
            raise MXNetError('batch_take: type inconsistent, provided index type %s, inferred '
                             'type int32' % np.dtype(in_types[1]).name)
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype, np.dtype(np.int32)], [dtype], []

    def forward(self, is_train, req, in_data, out_data, aux):
        a, indices = in_data
        cols = np.clip(indices.reshape(-1).astype(np.int64), 0, a.shape[1] - 1)
        rows = np.arange(cols.size)
        copy_into(out_data[0], a[rows, cols].reshape(out_data[0].shape), req[0])


@register
class one_hot(Operator):
    """One-hot encodes ``indices``: output shape ``indices.shape + (depth,)``.

    Positions named by an index hold ``on_value``, all others ``off_value``;
    indices outside ``[0, depth)`` give a row of ``off_value``.
    """
    name = 'one_hot'
    params = (Param('depth', parse_int, doc='Size of the one-hot dimension.'),
              Param('on_value', parse_float, 1.0, 'Value at the indexed positions.'),
              Param('off_value', parse_float, 0.0, 'Value elsewhere.'),
              Param('dtype', parse_dtype, np.dtype(np.float32), 'Output dtype.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.depth < 0:
            raise MXNetError('one_hot: depth must be a non-negative integer, found %d'
                             % self.depth)

    def list_arguments(self):
        return ['indices']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ishape = int_shape(in_shapes[0])
        if ishape is None:
            return [None], list(out_shapes), []
        return [ishape], [unify(ishape + (self.depth,), out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        return [in_types[0]], [self.dtype], []

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null' or out_data[0].size == 0:
            return
        out = work_buffer('fwd', out_data[0], req[0])
        out.fill(self.off_value)
        idx = _as_index(in_data[0]).reshape(-1)
        rows = np.nonzero((idx >= 0) & (idx < self.depth))[0]
        out.reshape(-1, self.depth)[rows, idx[rows]] = self.on_value
        if out is not out_data[0]:
            out_data[0] += out

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


def _nd_positions(indices, shape, opname):
    """Row positions into ``shape[:M]`` (flattened) for indices of shape (M, ...)."""
    m = indices.shape[0]
    if m > len(shape):
        raise ShapeError('%s: number of indices %d exceeds the %d dimensions of %s'
                         % (opname, m, len(shape), shape))
    idx = _as_index(indices).reshape(m, -1)
    lead = np.asarray(shape[:m], dtype=np.int64)[:, None]
    bad = (idx < -lead) | (idx >= lead)
    if bad.any():
        axis = int(np.nonzero(bad.any(axis=1))[0][0])
        value = int(idx[axis][bad[axis]][0])
        raise OperatorIndexError('%s: IndexError: index %d is out of bounds for axis %d with '
                                 'size %d' % (opname, value, axis, shape[axis]))
    idx = np.where(idx < 0, idx + lead, idx)
    return np.ravel_multi_index(tuple(idx), shape[:m]) if m else np.zeros(idx.shape[1], np.int64)


def _nd_check(opname, ishape, dims):
    if len(ishape) < 2:
        raise ShapeError('%s: requires an index tensor of at least 2 dimensions, found %s'
                         % (opname, ishape))
    if ishape[0] > len(dims):
        raise ShapeError('%s: number of indices %d exceeds the %d dimensions of %s'
                         % (opname, ishape[0], len(dims), dims))
    if ishape[0] > 10:
        raise ShapeError('%s: supports indexing along at most 10 dimensions' % opname)


@register
class gather_nd(Operator):
    """Gathers slices of ``data`` at N-d ``indices`` of shape (M, Y0, ..., Yk).

    ``out[y...] = data[indices[0, y...], ..., indices[M-1, y...]]``; negative indices
    count from the end, others out of range raise an error.
    """
    name = 'gather_nd'
    backward_uses_outputs = False

    def list_arguments(self):
        return ['data', 'indices']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, ishape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is None or ishape is None:
            return [dshape, ishape], list(out_shapes), []
        _nd_check('gather_nd', ishape, dshape)
        out = ishape[1:] + dshape[ishape[0]:]
        return [dshape, ishape], [unify(out, out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        return data_dtype(in_types, out_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        data, indices = in_data
        m = indices.shape[0]
        rows = _nd_positions(indices, data.shape, 'gather_nd')
        table = data.reshape(size_of(data.shape[:m]), -1)
        out = out_data[0].reshape(rows.size, table.shape[1])
        if req[0] == 'write':
            np.take(table, rows, axis=0, out=out)
        elif req[0] == 'add':
            out += table[rows]

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_index_grad(req, in_grad)
        if req[0] == 'null':
            return
        grad, indices = in_grad[0], in_data[1]
        m = indices.shape[0]
        rows = _nd_positions(indices, grad.shape, 'gather_nd')
        if req[0] == 'write':
            grad.fill(0)
        table = grad.reshape(1, size_of(grad.shape[:m]), -1)
        scatter_add(table, rows, out_grad[0].reshape(1, rows.size, table.shape[2]))


@register
class scatter_nd(Operator):
    """Scatters ``data`` into a zero array of ``shape`` at N-d ``indices`` (gather_nd's
    inverse). With repeated indices the last write wins (MXNet leaves it undefined)."""
    name = 'scatter_nd'
    params = (Param('shape', parse_tuple, doc='Shape of the output.'),)
    backward_uses_outputs = False

    def list_arguments(self):
        return ['data', 'indices']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, ishape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        oshape = unify(tuple(self.shape), out_shapes[0])
        if dshape is None or ishape is None:
            return [dshape, ishape], [oshape], []
        _nd_check('scatter_nd', ishape, oshape)
        expected = ishape[1:] + oshape[ishape[0]:]
        if dshape != expected:
            raise ShapeError('scatter_nd: invalid data, indices, and output shape combination: '
                             '%s, %s, %s (data should be %s)' % (dshape, ishape, oshape, expected))
        return [dshape, ishape], [oshape], []

    def infer_type(self, in_types, out_types, aux_types):
        return data_dtype(in_types, out_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        data, indices = in_data
        m = indices.shape[0]
        out = work_buffer('fwd', out_data[0], req[0])
        rows = _nd_positions(indices, out.shape, 'scatter_nd')
        out.fill(0)
        table = out.reshape(size_of(out.shape[:m]), -1)
        table[rows] = data.reshape(rows.size, table.shape[1])
        if out is not out_data[0]:
            out_data[0] += out

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _zero_index_grad(req, in_grad)
        if req[0] == 'null':
            return
        ograd, indices = out_grad[0], in_data[1]
        m = indices.shape[0]
        rows = _nd_positions(indices, ograd.shape, 'scatter_nd')
        table = ograd.reshape(size_of(ograd.shape[:m]), -1)
        copy_into(in_grad[0], table[rows].reshape(in_grad[0].shape), req[0])
