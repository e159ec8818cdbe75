"""diag, moments, cumsum, histogram, ravel_multi_index, unravel_index and
fill_element_0index."""
import numpy as np

from ..base import MXNetError, parse_bool, parse_dtype, parse_int, \
    parse_optional, parse_tuple
from .common import canonical_axis, copy_into, data_shape, int_shape, size_of, store_from, \
    zero_grad
from .registry import Operator, Param, ShapeError, register, unify

__all__ = []


# ---- diag ------------------------------------------------------------------------------------
@register
class diag(Operator):
    """The ``k``-th diagonal of a matrix (of the ``axis1``/``axis2`` planes of an N-D array,
    appended as the last axis), or the matrix with a 1-D input on its ``k``-th diagonal.

    Examples
    --------
    >>> mx.nd.diag(mx.nd.array([1, 2])).asnumpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    """
    name = 'diag'
    params = (Param('k', parse_int, 0, 'Which diagonal: 0 main, > 0 above, < 0 below.'),
              Param('axis1', parse_int, 0, 'First axis of the planes (N-D input).'),
              Param('axis2', parse_int, 1, 'Second axis of the planes (N-D input).'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _axes(self, ndim):
        a1 = canonical_axis(self.axis1, ndim, 'diag', 'axis1')
        a2 = canonical_axis(self.axis2, ndim, 'diag', 'axis2')
        if a1 == a2:
            raise ShapeError('diag: axis1 and axis2 cannot refer to the same axis %d' % a1)
        return a1, a2

    def _length(self, rows, cols):
        k = self.k
        return max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return [None], list(out_shapes), []
        if len(data) == 0:
            raise ShapeError('diag: input must be 1-D or more, found a scalar')
        if len(data) == 1:
            side = data[0] + abs(self.k)
            return [data], [unify((side, side), out_shapes[0])], []
        a1, a2 = self._axes(len(data))
        rows, cols = data[a1], data[a2]
        if (cols if self.k > 0 else rows) and min(rows, cols) and \
                min(rows + min(self.k, 0), cols - max(self.k, 0)) < 0:
            raise ShapeError('diag: diagonal k=%d does not exist in a %d x %d matrix'
                             % (self.k, rows, cols))
        rest = tuple(d for i, d in enumerate(data) if i not in (a1, a2))
        out = rest + (self._length(rows, cols),)
        return [data], [unify(out, out_shapes[0])], []

    def _diag_index(self, rows, cols):
        n = self._length(rows, cols)
        i = np.arange(n)
        return (i, i + self.k) if self.k >= 0 else (i - self.k, i)

    def forward(self, is_train, req, in_data, out_data, aux):
        x, out = in_data[0], out_data[0]
        if x.ndim == 1:
            store_from(out, req[0], np.diag(x, self.k))
        else:
            a1, a2 = self._axes(x.ndim)
            store_from(out, req[0], np.diagonal(x, self.k, a1, a2))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        head, grad = out_grad[0], in_grad[0]
        if req[0] == 'null':
            return
        if grad.ndim == 1:
            store_from(grad, req[0], np.diagonal(head, self.k))
            return
        a1, a2 = self._axes(grad.ndim)
        full = np.zeros(grad.shape, grad.dtype)
        planes = np.moveaxis(full, (a1, a2), (-2, -1))
        rows, cols = self._diag_index(grad.shape[a1], grad.shape[a2])
        planes[..., rows, cols] = head
        store_from(grad, req[0], full)


# ---- moments ---------------------------------------------------------------------------------
@register
class moments(Operator):
    """Mean and variance of ``data`` over ``axes``.

    Examples
    --------
    >>> mean, var = mx.nd.moments(mx.nd.array([[1, 2], [3, 4]]), axes=(0,))
    >>> var.asnumpy()
    array([1., 1.], dtype=float32)
    """
    name = 'moments'
    params = (Param('axes', parse_optional(parse_tuple), None, 'Axes to reduce over.'),
              Param('keepdims', parse_bool, False, 'Keep the reduced axes with size 1.'))

    def check_params(self):
        if not self.axes:
            raise MXNetError('moments: empty axes is not supported; to compute global '
                             'moments pass all axes to axes')

    def list_outputs(self):
        return ['mean', 'var']

    def _axes(self, ndim):
        return tuple(sorted({canonical_axis(a, ndim, 'moments', 'axes') for a in self.axes}))

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return [None], list(out_shapes), []
        axes = self._axes(len(data))
        if self.keepdims:
            out = tuple(1 if i in axes else d for i, d in enumerate(data))
        else:
            out = tuple(d for i, d in enumerate(data) if i not in axes)
        return [data], [unify(out, out_shapes[0]), unify(out, out_shapes[1])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        axes = self._axes(x.ndim)
        mean = np.mean(x, axis=axes, keepdims=True, dtype=np.float64)
        var = np.mean(np.square(x - mean), axis=axes, keepdims=True)
        store_from(out_data[0], req[0], mean.reshape(out_data[0].shape).astype(x.dtype))
        store_from(out_data[1], req[1], var.reshape(out_data[1].shape).astype(x.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        x = in_data[0]
        axes = self._axes(x.ndim)
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        count = size_of(x.shape[a] for a in axes)
        mean = out_data[0].reshape(kept)
        g_mean = out_grad[0].reshape(kept)
        g_var = out_grad[1].reshape(kept)
        grad = (g_mean + 2.0 * g_var * (x - mean)) / count
        store_from(in_grad[0], req[0], grad.astype(x.dtype))


# ---- cumsum ----------------------------------------------------------------------------------
@register
class _np_cumsum(Operator):
    """Cumulative sum along ``axis`` (of the flattened array when ``axis`` is None).

    Examples
    --------
    >>> mx.nd.cumsum(mx.nd.array([[1, 2], [3, 4]]), axis=1).asnumpy()
    array([[1., 3.],
           [3., 7.]], dtype=float32)
    """
    name = '_np_cumsum'
    aliases = ('cumsum',)
    params = (Param('axis', parse_optional(parse_int), None, 'Axis (None: flattened).'),
              Param('dtype', parse_optional(parse_dtype), None, 'Output dtype.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['a']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return [None], list(out_shapes), []
        if self.axis is None:
            out = (size_of(data),)
        else:
            canonical_axis(self.axis, len(data), 'cumsum')
            out = data
        return [data], [unify(out, out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        if self.dtype is not None:
            return [in_types[0]], [self.dtype], []
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        out = np.dtype(np.int64) if dtype is not None and np.dtype(dtype) == np.bool_ else dtype
        return [dtype], [out], []

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        value = np.cumsum(x.reshape(-1) if self.axis is None else x, axis=self.axis or 0,
                          dtype=out_data[0].dtype)
        store_from(out_data[0], req[0], value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        head = out_grad[0]
        axis = 0 if self.axis is None else self.axis
        grad = np.flip(np.cumsum(np.flip(head, axis), axis=axis), axis)
        store_from(in_grad[0], req[0], grad.reshape(in_grad[0].shape).astype(in_grad[0].dtype))


# ---- histogram -------------------------------------------------------------------------------
def _parse_range(value):
    parsed = parse_optional(lambda v: parse_tuple(v, item=float))(value)
    if parsed is not None and len(parsed) != 2:
        raise ValueError('range should be a tuple with only 2 elements, found %r' % (value,))
    return parsed


@register
class _histogram(Operator):
    """Counts of ``data`` in ``bin_cnt`` equal bins over ``range`` (values outside ignored),
    or in the bins whose edges are the second input ``bins``. Outputs the counts (int64)
    and the bin edges."""
    name = '_histogram'
    aliases = ('histogram',)
    params = (Param('bin_cnt', parse_optional(parse_int), None, 'Number of equal bins.'),
              Param('range', _parse_range, None, '(low, high) of the equal bins.'))
    backward_uses_outputs = False

    def check_params(self):
        if (self.bin_cnt is None) != (self.range is None):
            raise MXNetError('_histogram: bin_cnt and range should both or neither be specified')
        if self.range is not None and self.range[0] > self.range[1]:
            raise MXNetError('_histogram: left hand side of range (%s) should be less than or '
                             'equal to right hand side (%s)' % self.range)

    def list_arguments(self):
        return ['data'] if self.bin_cnt is not None else ['data', 'bins']

    def list_outputs(self):
        return ['output', 'bins']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins = list(in_shapes)
        if self.bin_cnt is not None:
            counts, edges = (self.bin_cnt,), (self.bin_cnt + 1,)
        else:
            edges = int_shape(ins[1])
            if edges is None:
                return ins, list(out_shapes), []
            if len(edges) != 1 or edges[0] < 2:
                raise ShapeError('_histogram: bins should be a 1-D vector of at least 2 '
                                 'edges, found shape %s' % (edges,))
            counts = (edges[0] - 1,)
        return ins, [unify(counts, out_shapes[0]), unify(edges, out_shapes[1])], []

    def infer_type(self, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.int64), in_types[0]], []

    def forward(self, is_train, req, in_data, out_data, aux):
        data = in_data[0].reshape(-1).astype(np.float64)
        if self.bin_cnt is not None:
            low, high = self.range
            if low == high:
                low, high = low - 0.5, high + 0.5
            count = self.bin_cnt
            i = np.arange(count + 1, dtype=np.float64)
            edges = (high * i + (count - i) * low) / count
            inside = (data >= low) & (data <= high)
            index = np.floor((data[inside] - low) / (high - low) * count).astype(np.int64)
            index = np.minimum(index, count - 1)
        else:
            edges = in_data[1].astype(np.float64)
            count = edges.size - 1
            inside = (data >= edges[0]) & (data <= edges[-1])
            index = np.searchsorted(edges, data[inside], side='right') - 1
            index = np.minimum(index, count - 1)
        store_from(out_data[0], req[0], np.bincount(index, minlength=count)[:count])
        store_from(out_data[1], req[1], edges.astype(out_data[1].dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad, req):
            zero_grad(grad, r)


# ---- ravel / unravel -------------------------------------------------------------------------
class _RavelBase(Operator):
    params = (Param('shape', parse_tuple, (), 'Shape of the array the indices apply to.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


@register
class _ravel_multi_index(_RavelBase):
    """Flat indices of the multi-indices in the columns of ``data`` (ndim x N) into an
    array of ``shape``.

    Examples
    --------
    >>> mx.nd.ravel_multi_index(mx.nd.array([[3, 6, 6], [4, 5, 1]]), shape=(7, 6)).asnumpy()
    array([22., 41., 37.], dtype=float32)
    """
    name = '_ravel_multi_index'
    aliases = ('ravel_multi_index',)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is not None:
            if len(data) < 1 or data[0] != len(self.shape):
                raise ShapeError('ravel_multi_index: data must have %d rows (one per dim of '
                                 'shape %s), found shape %s' % (len(self.shape), self.shape, data))
            return [data], [unify(data[1:], out_shapes[0])], []
        out = int_shape(out_shapes[0])
        return [None if out is None else (len(self.shape),) + out], [out], []

    def forward(self, is_train, req, in_data, out_data, aux):
        strides = np.cumprod((1,) + tuple(self.shape[:0:-1]))[::-1].astype(np.float64)
        index = np.tensordot(strides, in_data[0].astype(np.int64), axes=(0, 0))
        store_from(out_data[0], req[0], index.astype(out_data[0].dtype))


@register
class _unravel_index(_RavelBase):
    """Multi-indices (one row per dim of ``shape``) of the flat indices in ``data``.

    Examples
    --------
    >>> mx.nd.unravel_index(mx.nd.array([22, 41, 37]), shape=(7, 6)).asnumpy()
    array([[3., 6., 6.],
           [4., 5., 1.]], dtype=float32)
    """
    name = '_unravel_index'
    aliases = ('unravel_index',)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is not None:
            return [data], [unify((len(self.shape),) + data, out_shapes[0])], []
        out = int_shape(out_shapes[0])
        return [None if out is None else out[1:]], [out], []

    def forward(self, is_train, req, in_data, out_data, aux):
        flat = in_data[0].astype(np.int64)
        rows = []
        for i, dim in reversed(list(enumerate(self.shape))):
            # a leading -1 (unknown size) takes whatever the later dims leave
            rows.append(flat if i == 0 and dim == -1 else flat % dim)
            flat = flat // dim
        store_from(out_data[0], req[0], np.stack(rows[::-1]).astype(out_data[0].dtype))


# ---- fill_element_0index ---------------------------------------------------------------------
@register
class fill_element_0index(Operator):
    """``lhs`` with ``lhs[i, rhs[i]] = mhs[i]`` for every row ``i`` (0-based indices).

    Examples
    --------
    >>> out = mx.nd.fill_element_0index(mx.nd.zeros((2, 3)), mx.nd.array([5, 6]),
    ...                                 mx.nd.array([2, 0]))
    """
    name = 'fill_element_0index'
    backward_uses_outputs = False

    def list_arguments(self):
        return ['lhs', 'mhs', 'rhs']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        lhs = data_shape(self.name, in_shapes[0], out_shapes[0])
        if lhs is None:
            return list(in_shapes), [None], []
        if len(lhs) != 2:
            raise ShapeError('fill_element_0index: lhs must be 2-D, found shape %s' % (lhs,))
        rows = (lhs[0],)
        return [lhs, unify(in_shapes[1], rows), unify(in_shapes[2], rows)], [lhs], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype, in_types[1] or dtype, in_types[2] or dtype], [dtype], []

    def forward(self, is_train, req, in_data, out_data, aux):
        lhs, mhs, rhs = in_data
        value = lhs.copy()
        value[np.arange(lhs.shape[0]), rhs.astype(np.int64)] = mhs
        store_from(out_data[0], req[0], value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        head = out_grad[0]
        rows, cols = np.arange(head.shape[0]), in_data[2].astype(np.int64)
        if req[0] != 'null':
            kept = head.copy()
            kept[rows, cols] = 0
            copy_into(in_grad[0], kept, req[0])
        if req[1] != 'null':
            store_from(in_grad[1], req[1], head[rows, cols].astype(in_grad[1].dtype))
        zero_grad(in_grad[2], req[2])


