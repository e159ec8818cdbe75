"""Operators that exist for sparse arrays: cast_storage, retain, _square_sum,
_contrib_SparseEmbedding, the _scatter_* operators and _contrib_getnnz.

Each is declared here with its dense meaning (what the executor falls back to); the
sparse kernels and storage rules live in :mod:`symmod.ops.sparse`.
"""
import numpy as np

from ..base import MXNetError, parse_float, parse_optional, parse_int, parse_bool
from .common import store_from
from .elemwise import divide
from .nn import Embedding
from .reduce import ReduceAxes
from .registry import Operator, Param, REQUIRED, register, ShapeError

__all__ = []

_STYPES = ('default', 'row_sparse', 'csr')


def _parse_stype(value):
    text = str(value).strip()
    if text not in _STYPES:
        raise ValueError("expected one of %s, found %r" % (', '.join(_STYPES), value))
    return text


@register
class CastStorage(Operator):
    """Casts an array to another storage type ('default', 'row_sparse' or 'csr'); the
    values are unchanged and the gradient passes through."""
    name = 'cast_storage'
    aliases = ('_sparse_cast_storage',)
    params = (Param('stype', _parse_stype, REQUIRED, 'Output storage type.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        self.makes_sparse = self.stype != 'default'

    def forward(self, is_train, req, in_data, out_data, aux):
        store_from(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        store_from(in_grad[0], req[0], out_grad[0])


def _retained_rows(indices, rows):
    idx = np.asarray(indices).reshape(-1).astype(np.int64)
    return idx[(idx >= 0) & (idx < rows)]


@register
class Retain(Operator):
    """Keeps the rows of a row_sparse ``data`` listed in ``indices``; the other rows are
    zero. The gradient flows to the kept rows only."""
    name = '_sparse_retain'
    aliases = ('retain',)
    backward_uses_outputs = False

    def list_arguments(self):
        return ['data', 'indices']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
        return [data, in_shapes[1]], [data], list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype, in_types[1]], [dtype], list(aux_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        data, out = in_data[0], out_data[0]
        kept = np.zeros_like(data)
        rows = _retained_rows(in_data[1], data.shape[0])
        kept[rows] = data[rows]
        store_from(out, req[0], kept)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grad = np.zeros_like(out_grad[0])
        rows = _retained_rows(in_data[1], grad.shape[0])
        grad[rows] = out_grad[0][rows]
        store_from(in_grad[0], req[0], grad)
        if req[1] != 'null':
            store_from(in_grad[1], req[1], np.zeros_like(in_grad[1]))


@register
class SquareSum(ReduceAxes):
    """Sum of squares over axes: ``sum(data ** 2, axis)`` (row_sparse friendly)."""
    name = '_square_sum'
    backward_uses_outputs = False

    def reduce(self, x, axes, out):
        return np.sum(np.square(x), axis=axes, dtype=x.dtype, keepdims=True, out=out)

    def grad(self, x, y, dy, out):
        np.multiply(x, dy, out=out)
        out *= 2
        return out


@register
class SparseEmbedding(Embedding):
    """Embedding whose weight gradient is always row_sparse (MXNet's contrib operator);
    ``deterministic`` is accepted (symmod's gradient is always deterministic)."""
    name = '_contrib_SparseEmbedding'
    aliases = ()
    params = Embedding.params[:3] + (
        Param('deterministic', parse_bool, False, 'Deterministic gradient (always here).'),)
    sparse_grad = True


@register
class ScatterElemwiseDiv(Operator):
    """``lhs / rhs`` computed only where a sparse ``lhs`` stores values (dense: everywhere)."""
    name = '_scatter_elemwise_div'

    def list_arguments(self):
        return ['lhs', 'rhs']

    def forward(self, is_train, req, in_data, out_data, aux):
        with np.errstate(all='ignore'):
            store_from(out_data[0], req[0], divide(in_data[0], in_data[1]))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        lhs, rhs, dy = in_data[0], in_data[1], out_grad[0]
        with np.errstate(all='ignore'):
            store_from(in_grad[0], req[0], dy / rhs)
            store_from(in_grad[1], req[1], -dy * lhs / (rhs * rhs))


class _ScatterScalar(Operator):
    """``data op scalar`` computed only on the stored values of a sparse ``data``."""
    params = (Param('scalar', parse_float, 1.0, 'The scalar operand.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False
    sign = 1

    def forward(self, is_train, req, in_data, out_data, aux):
        value = in_data[0] + in_data[0].dtype.type(self.sign * self.scalar)
        store_from(out_data[0], req[0], value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        store_from(in_grad[0], req[0], out_grad[0])


@register
class ScatterPlusScalar(_ScatterScalar):
    """``data + scalar`` on the stored values only."""
    name = '_scatter_plus_scalar'


@register
class ScatterMinusScalar(_ScatterScalar):
    """``data - scalar`` on the stored values only."""
    name = '_scatter_minus_scalar'
    sign = -1


@register
class GetNNZ(Operator):
    """Number of stored values of a csr array: in total (``axis=None``) or per row
    (``axis=1``); int64 (MXNet does not support ``axis=0``)."""
    name = '_contrib_getnnz'
    aliases = ('getnnz',)
    params = (Param('axis', parse_optional(parse_int), None, 'None, 0 or 1.'),)

    def check_params(self):
        if self.axis == 0:
            raise MXNetError('getnnz with axis = 0 is not supported yet')
        if self.axis not in (None, 1):
            raise MXNetError('getnnz: axis must be None or 1, found %s' % self.axis)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is None:
            return [None], [out_shapes[0]], []
        if len(data) != 2:
            raise ShapeError('getnnz: the input must be 2-D, found %s' % (tuple(data),))
        out = (1,) if self.axis is None else (data[1 - self.axis],)
        return [data], [out], []

    def infer_type(self, in_types, out_types, aux_types):
        return [in_types[0]], [np.dtype(np.int64)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        raise MXNetError('getnnz needs a csr input (storage type default found)')
