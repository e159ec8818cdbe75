"""_slice_assign (_crop_assign) and _slice_assign_scalar (_crop_assign_scalar): the input
with a ``slice`` region replaced by ``rhs`` or by a scalar.

``NDArray.slice_assign`` / ``slice_assign_scalar`` call them with ``out`` being the
input, so the region is written in place.
"""
import numpy as np

from ..base import parse_float
from .common import copy_into
from .registry import Param, ShapeError, register, unify
from .slicing import Slice

__all__ = []


class _SliceAssignBase(Slice):
    """The region's geometry is slice's (``begin``/``end``/``step``, MXNet's clamping)."""
    backward_uses_inputs = False
    backward_uses_outputs = False
    inplace = ((0, 0),)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = unify(in_shapes[0], out_shapes[0])
        ins = [data] + list(in_shapes[1:])
        if data is not None and len(ins) > 1:
            region = Slice.infer_shape(self, [data], [None], [])[1][0]
            try:
                ins[1] = unify(ins[1], region)
            except ShapeError:
                raise ShapeError('%s: rhs shape %s does not match the region %s of lhs %s'
                                 % (self.name, tuple(ins[1]), region, data)) from None
        return ins, [data], list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        known = [t for t in list(in_types) + list(out_types) if t is not None]
        dtype = known[0] if known else None
        return [dtype] * len(in_types), [dtype], []

    def _value(self, in_data):
        raise NotImplementedError

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        copy_into(out, in_data[0], req[0])
        if req[0] != 'null':
            region = out[self._index(out.shape)]
            value = self._value(in_data)
            if req[0] == 'add':     # the region holds lhs + value; it should hold value
                region -= in_data[0][self._index(out.shape)]
                region += value
            else:
                region[...] = value

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        head = out_grad[0]
        index = self._index(head.shape)
        if req[0] != 'null':
            kept = head.copy()
            kept[index] = 0
            copy_into(in_grad[0], kept, req[0])
        if len(in_grad) > 1:
            copy_into(in_grad[1], head[index], req[1])


@register
class _slice_assign(_SliceAssignBase):
    """``lhs`` with the region ``lhs[begin:end:step]`` replaced by ``rhs``."""
    name = '_slice_assign'
    aliases = ('_crop_assign',)

    def list_arguments(self):
        return ['lhs', 'rhs']

    def _value(self, in_data):
        return in_data[1]


@register
class _slice_assign_scalar(_SliceAssignBase):
    """``data`` with the region ``data[begin:end:step]`` set to ``scalar``."""
    name = '_slice_assign_scalar'
    aliases = ('_crop_assign_scalar',)
    params = (Param('scalar', parse_float, 0.0, 'The value to assign.'),) + Slice.params

    def _value(self, in_data):
        return np.asarray(self.scalar).astype(in_data[0].dtype)


