"""Sorting along an axis: topk, sort and argsort.

MXNet sorts each row's index array on the CPU with ``std::sort`` (when ``8 * k`` exceeds
the row length) or ``std::partial_sort``; neither is stable, so the order of equal
values depends on the algorithm. To return the same indices for ties, the row sort
here follows libstdc++'s introsort (median-of-three quicksort, heapsort past a depth
limit, final insertion sort) and heap selection step by step, compiled with numba.
Values are compared as float64 keys (negated for descending order), which orders every
dtype MXNet sorts exactly and needs one compiled kernel.
"""
import numba
import numpy as np

from ..base import MXNetError, parse_bool, parse_dtype, parse_int, parse_optional
from .common import canonical_axis, choice, size_of, store_cast, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = ['sort_indices']

_THRESHOLD = 16         # libstdc++'s _S_threshold: rows up to this length use insertion sort
_INDEX_DTYPES = ('uint8', 'int32', 'int64', 'float16', 'float32', 'float64')


# ---- libstdc++'s std::sort and std::partial_sort on an index array ----------------------------
@numba.njit(cache=True, inline='always')
def _less(vals, a, b):
    """The comparator MXNet passes: orders indices by their values (descending order
    arrives here as ascending order of negated keys)."""
    return vals[a] < vals[b]


@numba.njit(cache=True)
def _adjust_heap(idx, lo, hole, length, value, vals):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _less(vals, idx[lo + child], idx[lo + child - 1]):
            child -= 1
        idx[lo + hole] = idx[lo + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        idx[lo + hole] = idx[lo + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and _less(vals, idx[lo + parent], value):
        idx[lo + hole] = idx[lo + parent]
        hole = parent
        parent = (hole - 1) // 2
    idx[lo + hole] = value


@numba.njit(cache=True)
def _heap_select_sort(idx, lo, mid, hi, vals):
    """std::partial_sort(lo, mid, hi): the smallest (mid - lo) in order at the front."""
    length = mid - lo
    if length >= 2:
        parent = (length - 2) // 2
        while True:
            _adjust_heap(idx, lo, parent, length, idx[lo + parent], vals)
            if parent == 0:
                break
            parent -= 1
    for i in range(mid, hi):
        if _less(vals, idx[i], idx[lo]):
            value = idx[i]
            idx[i] = idx[lo]
            _adjust_heap(idx, lo, 0, length, value, vals)
    end = mid
    while end - lo > 1:
        end -= 1
        value = idx[end]
        idx[end] = idx[lo]
        _adjust_heap(idx, lo, 0, end - lo, value, vals)


@numba.njit(cache=True)
def _median_to_first(idx, result, a, b, c, vals):
    """Swap the median of positions a, b, c into ``result``, comparing in libstdc++'s
    order (which decides where equal keys end up)."""
    low, high = (a, b) if _less(vals, idx[a], idx[b]) else (b, a)
    if _less(vals, idx[high], idx[c]):
        pick = high
    elif _less(vals, idx[low], idx[c]):
        pick = c
    else:
        pick = low
    idx[result], idx[pick] = idx[pick], idx[result]


@numba.njit(cache=True)
def _partition(idx, lo, hi, vals):
    """Median-of-three pivot moved to ``lo``, then Hoare partition of [lo + 1, hi)."""
    _median_to_first(idx, lo, lo + 1, lo + (hi - lo) // 2, hi - 1, vals)
    pivot = idx[lo]
    first, last = lo + 1, hi
    while True:
        # the bounds tests never fire for a strict weak order; they keep NaN rows in range
        while first < hi - 1 and _less(vals, idx[first], pivot):
            first += 1
        last -= 1
        while last > lo and _less(vals, pivot, idx[last]):
            last -= 1
        if first >= last:
            return first
        idx[first], idx[last] = idx[last], idx[first]
        first += 1


@numba.njit(cache=True)
def _linear_insert(idx, pos, floor, vals):
    value = idx[pos]
    while pos > floor and _less(vals, value, idx[pos - 1]):
        idx[pos] = idx[pos - 1]
        pos -= 1
    idx[pos] = value


@numba.njit(cache=True)
def _insertion_sort(idx, lo, hi, vals):
    for i in range(lo + 1, hi):
        if _less(vals, idx[i], idx[lo]):
            value = idx[i]
            for j in range(i, lo, -1):
                idx[j] = idx[j - 1]
            idx[lo] = value
        else:
            _linear_insert(idx, i, lo, vals)


@numba.njit(cache=True)
def _introsort(idx, lo, hi, vals):
    """std::sort(lo, hi)."""
    n = hi - lo
    if n < 2:
        return
    depth = 0
    while (1 << (depth + 1)) <= n:
        depth += 1
    # explicit stack for the right-hand recursion of __introsort_loop
    stack_lo = np.empty(2 * depth + 2, np.int64)
    stack_hi = np.empty(2 * depth + 2, np.int64)
    stack_depth = np.empty(2 * depth + 2, np.int64)
    top = 0
    stack_lo[0], stack_hi[0], stack_depth[0] = lo, hi, 2 * depth
    top = 1
    while top > 0:
        top -= 1
        a, b, limit = stack_lo[top], stack_hi[top], stack_depth[top]
        while b - a > _THRESHOLD:
            if limit == 0:
                _heap_select_sort(idx, a, b, b, vals)
                break
            limit -= 1
            cut = _partition(idx, a, b, vals)
            stack_lo[top], stack_hi[top], stack_depth[top] = cut, b, limit
            top += 1
            b = cut
    if n > _THRESHOLD:
        _insertion_sort(idx, lo, lo + _THRESHOLD, vals)
        for i in range(lo + _THRESHOLD, hi):
            _linear_insert(idx, i, lo, vals)
    else:
        _insertion_sort(idx, lo, hi, vals)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _sort_rows(vals, k, idx):
    """Order each row of ``idx`` (M, N), initially 0..N-1, by ``vals`` (M, N) as MXNet does:
    the first ``k`` entries of a row are the indices of its k best values, in order."""
    m, n = vals.shape
    full = k * 8 > n
    for r in range(m):
        row_vals = vals[r]
        row = idx[r]
        for j in range(n):
            row[j] = j
        if full:
            _introsort(row, 0, n, row_vals)
        else:
            _heap_select_sort(row, 0, k, n, row_vals)


def sort_indices(rows, k, ascend):
    """Indices ``(M, k)`` of the ``k`` first values of each row of ``rows`` ``(M, N)`` in
    ascending or descending order, ties broken as MXNet 1.9.1's CPU sort does."""
    rows = np.asarray(rows)
    if rows.dtype.kind in 'iub' and rows.size and \
            max(abs(int(rows.min())), abs(int(rows.max()))) > 2 ** 53:
        # integers float64 cannot hold exactly: sort their ranks instead (same order)
        keys = np.unique(rows, return_inverse=True)[1].reshape(rows.shape).astype(np.float64)
    else:
        keys = rows.astype(np.float64)      # exact for every other dtype MXNet sorts
    if not ascend:
        np.negative(keys, out=keys)         # x > y exactly when -x < -y, NaN included
    keys = np.ascontiguousarray(keys)
    idx = np.empty(keys.shape, np.int64)
    _sort_rows(keys, k, idx)
    return idx[:, :k]


# ---- shared driver ----------------------------------------------------------------------------
def _parse_index_dtype(value):
    dtype = parse_dtype(value)
    if dtype is None or dtype.name not in _INDEX_DTYPES:
        raise ValueError('expected one of {%s}, found %r'
                         % (', '.join("'%s'" % n for n in _INDEX_DTYPES), value))
    return dtype


class _Ordering(Operator):
    """What topk, sort and argsort share: the axis, k and the row-wise sort."""
    ret_typ = 'indices'
    k = 0
    backward_uses_inputs = False

    def _layout(self, shape, opname=None):
        """(axis or None, rows, row length, k) for data of ``shape``."""
        opname = opname or self.name
        if self.axis is None:
            axis, length = None, size_of(shape)
        else:
            axis = canonical_axis(self.axis, len(shape), opname)
            length = shape[axis]
        k = self.k if self.k > 0 else length
        if not 0 <= k <= length:
            raise ShapeError('%s: k must be smaller than %d, get k = %d' % (opname, length, k))
        return axis, length, k

    def _out_shape(self, shape):
        axis, _, k = self._layout(shape)
        if self.ret_typ == 'mask':
            return tuple(shape)
        if axis is None:
            return (k,)
        return tuple(shape[:axis]) + (k,) + tuple(shape[axis + 1:])

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is None or not all(data):
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        out = self._out_shape(data)
        return [tuple(data)], [out] * len(out_shapes), list(aux_shapes)

    def _rows(self, x):
        """``x`` with the sort axis last, as (rows, length), and the moved shape."""
        axis, length, _ = self._layout(x.shape)
        moved = x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)
        return moved.reshape(-1, length), moved.shape, axis

    def _restore(self, a, moved_shape, axis):
        """Rows (M, k) back to the output layout (the sort axis where it was)."""
        a = a.reshape(moved_shape[:-1] + (a.shape[-1],))
        return a if axis is None else np.moveaxis(a, -1, axis)

    def _check_float16(self, x):
        if x.dtype == np.float16:
            raise MXNetError('%s: This operation does not support float16' % self.name)

    def _compute(self, req, x, outputs):
        """Fill ``outputs`` (value, indices or mask, as ``self.ret_typ`` says)."""
        if x.size == 0:
            return
        rows, moved_shape, axis = self._rows(x)
        _, length, k = self._layout(x.shape)
        idx = sort_indices(rows, k, self.is_ascend)
        if self.ret_typ == 'mask':
            if req[0] == 'add':
                raise MXNetError('%s: req=add is not supported with ret_typ=mask' % self.name)
            mask = np.zeros(rows.shape, x.dtype)
            np.put_along_axis(mask, idx, 1, axis=1)
            store_from(outputs[0], req[0],
                       self._restore(mask, moved_shape, axis).reshape(x.shape))
            return
        index_out = 0
        if self.ret_typ in ('value', 'both'):
            values = np.take_along_axis(rows, idx, axis=1)
            store_from(outputs[0], req[0], self._restore(values, moved_shape, axis))
            index_out = 1
        if index_out < len(outputs):
            store_cast(outputs[index_out], req[index_out], self._restore(idx, moved_shape, axis))

    def _scatter_grad(self, req, dy, indices, gx):
        """The value gradient: each output gradient goes back to where its value came from."""
        if req == 'null':
            return
        rows, moved_shape, axis = self._rows(gx)
        if req == 'write':
            gx.fill(0)
        if gx.size == 0:
            return
        k = self._layout(gx.shape)[2]
        idx = (indices.reshape(-1) if axis is None else np.moveaxis(indices, axis, -1))
        idx = idx.reshape(-1, k).astype(np.int64)
        grad = (dy.reshape(-1) if axis is None else np.moveaxis(dy, axis, -1)).reshape(-1, k)
        if axis is None or axis == gx.ndim - 1:
            target = gx.reshape(-1, rows.shape[1])     # a view: scatter in place
            values = np.take_along_axis(target, idx, axis=1) + grad
            np.put_along_axis(target, idx, values, axis=1)
        else:
            dense = np.zeros(rows.shape, gx.dtype)
            np.put_along_axis(dense, idx, grad, axis=1)
            gx += self._restore(dense, moved_shape, axis)


@register
class TopK(_Ordering):
    """The top ``k`` elements along ``axis``: their indices, values, both, or a mask.

    ``ret_typ='indices'`` (default) returns indices as ``dtype`` (float32 by
    default); ``'value'`` the values; ``'both'`` values and indices; ``'mask'`` an
    array of the input's shape with 1 at the selected positions. Results are sorted
    (largest first unless ``is_ascend``); ``k < 1`` selects the whole axis; ``axis=None``
    works on the flattened array. Only values carry a gradient.

    Examples
    --------
    >>> x = mx.nd.array([[0.3, 0.2, 0.4], [0.1, 0.3, 0.2]])
    >>> mx.nd.topk(x, k=2, ret_typ='value').asnumpy()
    array([[0.4, 0.3],
           [0.3, 0.2]], dtype=float32)
    """
    name = 'topk'
    aliases = ('_npx_topk',)
    params = (Param('axis', parse_optional(parse_int), -1, 'Axis to select along (None: all).'),
              Param('k', parse_int, 1, 'How many elements to select (< 1: all).'),
              Param('ret_typ', choice('value', 'indices', 'mask', 'both'), 'indices',
                    'What to return.'),
              Param('is_ascend', parse_bool, False, 'Select the smallest instead of largest.'),
              Param('dtype', _parse_index_dtype, np.dtype(np.float32),
                    'Dtype of the returned indices.'))

    def check_params(self):
        # indices and masks have zero gradient: no head gradient is needed for them
        self.zero_gradient = self.ret_typ in ('indices', 'mask')

    def list_outputs(self):
        return ['output0', 'output1'] if self.ret_typ in ('value', 'both') else ['output']

    def num_visible_outputs(self):
        return 2 if self.ret_typ == 'both' else 1

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0]
        if self.ret_typ == 'indices':
            return [dtype], [self.dtype], list(aux_types)
        if dtype is None:
            dtype = out_types[0]
        outs = [dtype]
        if self.ret_typ == 'value':
            outs.append(np.dtype(np.int32))
        elif self.ret_typ == 'both':
            outs.append(self.dtype)
        return [dtype], outs, list(aux_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        self._compute(req, in_data[0], out_data)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if self.ret_typ in ('indices', 'mask'):
            zero_grad(in_grad[0], req[0])
            return
        self._scatter_grad(req[0], out_grad[0], out_data[1], in_grad[0])


@register
class Sort(_Ordering):
    """A sorted copy of the input along ``axis`` (``None``: the flattened array).

    Ascending by default (``is_ascend=False`` sorts descending). The gradient of each
    sorted value flows back to the position it came from.

    Examples
    --------
    >>> mx.nd.sort(mx.nd.array([[1, 4], [3, 1]])).asnumpy()
    array([[1., 4.],
           [1., 3.]], dtype=float32)
    """
    name = 'sort'
    aliases = ('_npi_sort',)
    params = (Param('axis', parse_optional(parse_int), -1, 'Axis to sort along (None: all).'),
              Param('is_ascend', parse_bool, True, 'Ascending (True) or descending order.'))
    ret_typ = 'value'

    def list_outputs(self):
        return ['output0', 'output1']

    def num_visible_outputs(self):
        return 1

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype], [dtype, np.dtype(np.int32)], list(aux_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        self._check_float16(in_data[0])
        self._compute(req, in_data[0], out_data)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._scatter_grad(req[0], out_grad[0], out_data[1], in_grad[0])


@register
class ArgSort(_Ordering):
    """The indices that sort the input along ``axis`` (``None``: the flattened array).

    Indices are returned as ``dtype`` (float32 by default), ascending order by
    default. Not differentiable: the input gets a zero gradient.

    Examples
    --------
    >>> mx.nd.argsort(mx.nd.array([[0.3, 0.2, 0.4], [0.1, 0.3, 0.2]])).asnumpy()
    array([[1., 0., 2.],
           [0., 2., 1.]], dtype=float32)
    """
    name = 'argsort'
    aliases = ('_npi_argsort',)
    params = (Param('axis', parse_optional(parse_int), -1, 'Axis to sort along (None: all).'),
              Param('is_ascend', parse_bool, True, 'Ascending (True) or descending order.'),
              Param('dtype', _parse_index_dtype, np.dtype(np.float32),
                    'Dtype of the returned indices.'))
    backward_uses_outputs = False
    zero_gradient = True

    def infer_type(self, in_types, out_types, aux_types):
        return list(in_types), [self.dtype], list(aux_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        self._check_float16(in_data[0])
        self._compute(req, in_data[0], out_data)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])
