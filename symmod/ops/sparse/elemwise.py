"""Storage rules of elementwise operators on sparse arrays.

- unary functions with f(0) == 0 (abs, square, sin, relu, clip around 0, ...) and scalar
  operators with f(0, s) == 0 (``x * s``, ``x > s`` for s >= 0, ...) keep the storage
  type and compute on the stored values only; others give a dense result;
- ``elemwise_add``/``sub``: rsp+rsp -> rsp, csr+csr -> csr, sparse and dense -> dense;
- ``elemwise_mul``: equal storage types keep it, dense*rsp -> rsp, dense*csr -> csr;
- other binary functions with f(0, 0) == 0 (maximum, minimum, hypot) keep a storage type
  both inputs share; ``elemwise_div`` is dense;
- ``add_n``: all rsp -> rsp, all csr -> csr, any dense input -> dense.
"""
import numpy as np

from ..elemwise import ElemwiseBinary
from ..scalar import ScalarOp
from ..unary import UnaryMath
from ..registry import get as get_op, list_operators
from ...ndarray.sparse_array import RowSparseStorage, make_csr, empty_sparse
from .base import StorageImpl, register_storage, store_array, add_storage

__all__ = ['zero_preserving']

# unary operators MXNet computes on csr / row_sparse values (besides the UnaryMath ones
# it registers under a _sparse_ name)
_EXTRA_UNARY = ('clip', 'zeros_like', '_contrib_quadratic', '_copy', 'BlockGrad',
                '_contrib_round_ste', '_contrib_sign_ste', 'relu', 'sigmoid')


def zero_preserving(op):
    """Whether the one-input elementwise operator instance ``op`` maps 0 to 0 (cached)."""
    cached = getattr(op, '_maps_zero', None)
    if cached is None:
        zero = np.zeros(1, dtype=np.float64)
        out = np.empty(1, dtype=np.float64)
        with np.errstate(all='ignore'):
            op.forward(False, ['write'], [zero], [out], [])
        cached = bool(out[0] == 0)
        op._maps_zero = cached
    return cached


def _apply_values(op, values, dtype):
    out = np.empty(values.shape, dtype=dtype)
    op.forward(False, ['write'], [values], [out], [])
    return out


def map_values(op, x, out):
    """Store ``op`` applied to the stored values of sparse ``x`` into ``out`` (same
    storage type), keeping the sparsity pattern."""
    s = x._data
    if x.stype == 'csr':
        values = _apply_values(op, s.data, out.dtype)
        store_array(out, make_csr(values, s.indices.copy(), s.indptr.copy(), s.shape))
    else:
        values = _apply_values(op, s.data, out.dtype)
        store_array(out, RowSparseStorage(values, s.indices.copy(), s.shape))


class _ValueMap(StorageImpl):
    """One-input operators applied to the stored values when they map 0 to 0."""

    def infer(self, op, in_stypes):
        stype = in_stypes[0]
        if stype != 'default' and zero_preserving(op):
            return [stype]
        return None

    def forward(self, op, is_train, inputs, outputs):
        map_values(op, inputs[0], outputs[0])


def _unary_names():
    names = set(_EXTRA_UNARY)
    for name in list_operators():
        cls = get_op(name)
        if issubclass(cls, (UnaryMath, ScalarOp)) and (
                issubclass(cls, ScalarOp) or any(a.startswith('_sparse_') for a in cls.aliases)):
            names.add(cls.name)
    return sorted(names)


register_storage(*_unary_names())(_ValueMap)


@register_storage('zeros_like')
class _ZerosLike(StorageImpl):
    """``zeros_like`` of a sparse array stores nothing (MXNet's FillZerosRsp/Csr), also
    into ``out``: a zeroed row_sparse gradient has no rows."""

    def infer(self, op, in_stypes):
        return [in_stypes[0]] if in_stypes[0] != 'default' else None

    def forward(self, op, is_train, inputs, outputs):
        out = outputs[0]
        out._set_storage(empty_sparse(out.stype, out.shape, out.dtype))


# ---- two inputs -------------------------------------------------------------------------
def _csr_rows(m):
    return np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))


def _dense_plus_sparse(dense, x, sign):
    out = np.array(dense, copy=True)
    s = x._data
    if x.stype == 'csr':
        np.add.at(out, (_csr_rows(s), s.indices), sign * s.data)
    else:
        out[s.indices] += sign * s.data
    return out


def _rsp_combine(a, b, fn):
    """fn over the union of two row-sparse storages' rows (missing rows are zero)."""
    rows = np.union1d(a.indices, b.indices).astype(np.int64)
    shape = (len(rows),) + tuple(a.shape[1:])
    left = np.zeros(shape, dtype=a.data.dtype)
    right = np.zeros(shape, dtype=b.data.dtype)
    left[np.searchsorted(rows, a.indices)] = a.data
    right[np.searchsorted(rows, b.indices)] = b.data
    return RowSparseStorage(fn(left, right), rows, a.shape)


def _binary_math(op):
    def fn(left, right):
        out = np.empty(left.shape, dtype=np.result_type(left, right))
        with np.errstate(all='ignore'):
            op.forward(False, ['write'], [left, right], [out], [])
        return out
    return fn


def _binary_zero_preserving(op):
    cached = getattr(op, '_maps_zero', None)
    if cached is None:
        out = _binary_math(op)(np.zeros(1), np.zeros(1))
        cached = bool(out[0] == 0)
        op._maps_zero = cached
    return cached


class _Binary(StorageImpl):
    """elemwise_add / sub / mul / div and the other same-shape binary functions."""

    def infer(self, op, in_stypes):
        left, right = in_stypes
        pair = {left, right}
        if pair == {'default'}:
            return None
        if op.name in ('elemwise_add', 'elemwise_sub'):
            if left == right:
                return [left]
            return ['default'] if 'default' in pair else None
        if op.name == 'elemwise_mul':
            if left == right:
                return [left]
            if 'default' in pair:
                return [(pair - {'default'}).pop()]
            return None
        if op.name != 'elemwise_div' and left == right and _binary_zero_preserving(op):
            return [left]
        return None

    def forward(self, op, is_train, inputs, outputs):
        lhs, rhs = inputs
        out = outputs[0]
        name = op.name
        if name in ('elemwise_add', 'elemwise_sub'):
            sign = 1 if name == 'elemwise_add' else -1
            if lhs.stype == 'default':
                store_array(out, _dense_plus_sparse(lhs._data, rhs, sign))
            elif rhs.stype == 'default':
                value = _dense_plus_sparse(rhs._data if sign > 0 else -rhs._data, lhs, 1)
                store_array(out, value)
            elif lhs.stype == 'csr':
                store_array(out, _canonical(lhs._data + rhs._data if sign > 0
                                            else lhs._data - rhs._data))
            elif sign > 0:
                store_array(out, add_storage('row_sparse', lhs._data, rhs._data))
            else:
                store_array(out, _rsp_combine(lhs._data, rhs._data, np.subtract))
            return
        if name == 'elemwise_mul' and 'default' in (lhs.stype, rhs.stype):
            sparse, dense = (rhs, lhs._data) if lhs.stype == 'default' else (lhs, rhs._data)
            s = sparse._data
            if sparse.stype == 'csr':
                values = s.data * dense[_csr_rows(s), s.indices]
                store_array(out, make_csr(values.astype(out.dtype), s.indices.copy(),
                                          s.indptr.copy(), s.shape))
            else:
                store_array(out, RowSparseStorage((s.data * dense[s.indices]).astype(out.dtype),
                                                  s.indices.copy(), s.shape))
            return
        fn = _binary_math(op)
        if lhs.stype == 'row_sparse':
            store_array(out, _rsp_combine(lhs._data, rhs._data, fn))
        elif name == 'elemwise_mul':
            store_array(out, _canonical(lhs._data.multiply(rhs._data)))
        else:
            store_array(out, fn(lhs._host(), rhs._host()))


def _canonical(matrix):
    matrix = matrix.tocsr()
    matrix.sort_indices()
    return matrix


register_storage(*sorted({get_op(n).name for n in list_operators()
                          if issubclass(get_op(n), ElemwiseBinary)}))(_Binary)


@register_storage('add_n')
class _AddN(StorageImpl):
    """add_n of sparse arrays: the union of their rows / entries."""

    def infer(self, op, in_stypes):
        kinds = set(in_stypes)
        if kinds == {'default'}:
            return None
        if len(kinds) == 1:
            return [in_stypes[0]]
        return ['default'] if 'default' in kinds else None

    def forward(self, op, is_train, inputs, outputs):
        out = outputs[0]
        if out.stype == 'default':
            total = np.zeros(out.shape, dtype=out.dtype)
            for x in inputs:
                if x.stype == 'default':
                    total += x._data
                else:
                    total = _dense_plus_sparse(total, x, 1)
            store_array(out, total)
            return
        total = inputs[0]._data.copy() if out.stype == 'csr' else inputs[0]._data
        for x in inputs[1:]:
            total = add_storage(out.stype, total, x._data)
        if out.stype == 'csr':
            total = _canonical(total)
        elif len(inputs) == 1:
            total = RowSparseStorage(total.data.copy(), total.indices.copy(), total.shape)
        store_array(out, total)

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        for g, r in zip(in_grads, reqs):
            store_array(g, out_grads[0]._data, r)
        return True
