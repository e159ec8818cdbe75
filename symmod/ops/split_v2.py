"""_split_v2: split an array along ``axis`` at given indices or into ``sections`` parts
(numpy's ``split``); ``mx.nd.split_v2`` / ``mx.sym.split_v2`` build it."""
import numpy as np

from ..base import parse_bool, parse_int, parse_tuple
from .common import axis_slice, canonical_axis, copy_into, int_shape
from .join import _uniform_type
from .registry import Operator, Param, ShapeError, register, unify

__all__ = []


@register
class _split_v2(Operator):
    """Parts ``data[indices[i]:indices[i+1]]`` along ``axis`` (``indices[0]`` is 0), or
    ``sections`` nearly equal parts (the first ``size % sections`` one element longer)."""
    name = '_split_v2'
    params = (Param('indices', parse_tuple, doc='Split boundaries (the first is 0).'),
              Param('axis', parse_int, 1, 'Axis along which to split.'),
              Param('squeeze_axis', parse_bool, False, 'Remove the split axis (length 1).'),
              Param('sections', parse_int, 0, 'Number of equal parts; 0: split by indices.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.sections < 0 or (self.sections == 0 and not self.indices):
            raise ShapeError('_split_v2: give indices or a positive number of sections')

    def list_outputs(self):
        count = self.sections if self.sections > 0 else len(self.indices)
        return ['output%d' % i for i in range(count)]

    def _bounds(self, size):
        if self.sections > 0:
            small, extra = divmod(size, self.sections)
            lengths = [small + (1 if i < extra else 0) for i in range(self.sections)]
            starts = np.concatenate([[0], np.cumsum(lengths)]).astype(int)
        else:
            starts = list(self.indices) + [size]
        bounds = []
        for i in range(len(starts) - 1):
            begin, end = int(starts[i]), int(starts[i + 1])
            if not 0 <= begin <= end <= size:
                raise ShapeError('_split_v2: indices %s must be increasing and within the '
                                 'axis length %d' % (tuple(self.indices), size))
            bounds.append((begin, end))
        return bounds

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return [None], list(out_shapes), []
        axis = canonical_axis(self.axis, len(data), '_split_v2')
        outs = []
        for (begin, end), given in zip(self._bounds(data[axis]), out_shapes):
            part = list(data)
            part[axis] = end - begin
            if self.squeeze_axis:
                if end - begin != 1:
                    raise ShapeError('_split_v2: squeeze_axis needs parts of length 1 along '
                                     'axis %d, found %d' % (axis, end - begin))
                del part[axis]
            outs.append(unify(tuple(part), given))
        return [data], outs, []

    def infer_type(self, in_types, out_types, aux_types):
        return _uniform_type('_split_v2', in_types, out_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        axis = canonical_axis(self.axis, x.ndim, '_split_v2')
        for (begin, end), out, r in zip(self._bounds(x.shape[axis]), out_data, req):
            copy_into(out, x[axis_slice(axis, begin, end)].reshape(out.shape), r)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grad = in_grad[0]
        if req[0] == 'null':
            return
        axis = canonical_axis(self.axis, grad.ndim, '_split_v2')
        parts = [g.reshape(grad[axis_slice(axis, b, e)].shape)
                 for (b, e), g in zip(self._bounds(grad.shape[axis]), out_grad)]
        copy_into(grad, np.concatenate(parts, axis=axis), req[0])
