"""Joining and splitting: Concat, SliceChannel (split) and stack.

Forward writes the inputs into views of the output buffer (or views of the input
into the outputs); backward routes the matching slices of the gradient back.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_int
from .common import axis_slice, canonical_axis, copy_into, int_shape
from .registry import Operator, Param, register, ShapeError, dim_known, unify

__all__ = []


def _uniform_type(opname, in_types, out_types):
    known = [t for t in list(in_types) + list(out_types) if t is not None]
    dtype = known[0] if known else None
    for i, t in enumerate(in_types):
        if t is not None and t != dtype:
            raise MXNetError('Non-uniform data type in %s, expected data type %s, got data type '
                             '%s for input %d' % (opname, np.dtype(dtype).name,
                                                  np.dtype(t).name, i))
    return [dtype] * len(in_types), [dtype] * len(out_types), []


@register
class Concat(Operator):
    """Joins ``num_args`` arrays along axis ``dim``; all other dimensions must agree."""
    name = 'Concat'
    aliases = ('concat', '_sparse_concat')
    key_var_num_args = 'num_args'
    params = (Param('num_args', parse_int, doc='Number of inputs to concatenate.'),
              Param('dim', parse_int, 1, 'The axis along which to concatenate.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.num_args < 1:
            raise ShapeError('Concat: num_args must be at least 1, found %d' % self.num_args)

    def list_arguments(self):
        return ['arg%d' % i for i in range(self.num_args)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        in_shapes = [int_shape(s) for s in in_shapes]
        out = int_shape(out_shapes[0])
        given = [s for s in in_shapes + [out] if s is not None]
        if not given:
            return in_shapes, list(out_shapes), []
        if any(len(s) == 0 for s in given):
            raise ShapeError('Concat: zero-dimensional arrays cannot be concatenated')
        if len({len(s) for s in given}) > 1:
            raise ShapeError('Concat: incompatible input shapes %s along dim=%d'
                             % (in_shapes, self.dim))
        axis = canonical_axis(self.dim, len(given[0]), 'Concat', 'dim')
        # the dims off the axis agree across inputs and output (None: not known yet)
        common = [None] * len(given[0])
        for shape in given:
            for i, d in enumerate(shape):
                if i == axis or not dim_known(d):
                    continue
                if common[i] is not None and common[i] != d:
                    raise ShapeError('Concat: incompatible input shapes %s along dim=%d'
                                     % (in_shapes, self.dim))
                common[i] = d
        sizes = [s[axis] if s is not None else 0 for s in in_shapes]
        new_in = [tuple(size if i == axis else (0 if c is None else c)
                        for i, c in enumerate(common)) for size in sizes]
        total = sum(sizes) if all(s is not None and dim_known(s[axis])
                                  for s in in_shapes) else None
        if out is not None and dim_known(out[axis]):
            if total is not None and out[axis] != total:
                raise ShapeError('Concat: incompatible output shape: expected %s, got %s'
                                 % (tuple(new_in[0][:axis]) + (total,) + new_in[0][axis + 1:],
                                    out)) from None
            total = out[axis]
        result = list(new_in[0])
        result[axis] = 0 if total is None else total
        return new_in, [tuple(result)], []

    def infer_type(self, in_types, out_types, aux_types):
        return _uniform_type('Concat', in_types, out_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        axis = canonical_axis(self.dim, out_data[0].ndim, 'Concat', 'dim')
        if req[0] == 'write':
            np.concatenate(in_data, axis=axis, out=out_data[0])
        elif req[0] == 'add':
            out_data[0] += np.concatenate(in_data, axis=axis)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        ograd = out_grad[0]
        axis = canonical_axis(self.dim, ograd.ndim, 'Concat', 'dim')
        start = 0
        for grad, r in zip(in_grad, req):
            stop = start + grad.shape[axis]
            copy_into(grad, ograd[axis_slice(axis, start, stop)], r)
            start = stop


@register
class SliceChannel(Operator):
    """Splits an array along ``axis`` into ``num_outputs`` equal parts.

    With ``squeeze_axis`` the split axis (then of size 1) is removed from the outputs.
    """
    name = 'SliceChannel'
    aliases = ('split',)
    params = (Param('num_outputs', parse_int, doc='Number of equal parts.'),
              Param('axis', parse_int, 1, 'Axis along which to split.'),
              Param('squeeze_axis', parse_bool, False, 'Remove the split axis from outputs.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.num_outputs < 1:
            raise ShapeError('SliceChannel: num_outputs must be at least 1, found %d'
                             % self.num_outputs)

    def list_outputs(self):
        return ['output%d' % i for i in range(self.num_outputs)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ishape = int_shape(in_shapes[0])
        n = self.num_outputs
        if ishape is None:
            return [None], list(out_shapes), []
        axis = canonical_axis(self.axis, len(ishape), 'SliceChannel')
        size = ishape[axis]
        if size and size % n:
            raise ShapeError('SliceChannel: you are trying to split the %d-th axis of input '
                             'tensor with shape %s into num_outputs=%d evenly sized chunks, but '
                             'this is not possible because %d does not evenly divide %d'
                             % (axis, ishape, n, n, size))
        if self.squeeze_axis and size and size != n:
            raise ShapeError('SliceChannel: if squeeze_axis is True, the size of the sliced axis '
                             'must be the same as num_outputs. Input shape=%s, axis=%d, '
                             'num_outputs=%d' % (ishape, axis, n))
        part = list(ishape)
        part[axis] = size // n
        if self.squeeze_axis:
            del part[axis]
        outs = [unify(tuple(part), s) for s in out_shapes]
        # the input can be recovered from any output
        for o in outs:
            back = list(o)
            if self.squeeze_axis:
                back.insert(axis, n)
            else:
                back[axis] *= n
            ishape = unify(ishape, tuple(back))
        return [ishape], outs, []

    def infer_type(self, in_types, out_types, aux_types):
        return _uniform_type('SliceChannel', in_types, out_types)

    def _parts(self, array):
        axis = canonical_axis(self.axis, array.ndim, 'SliceChannel')
        step = array.shape[axis] // self.num_outputs
        return [array[axis_slice(axis, i * step, (i + 1) * step)]
                for i in range(self.num_outputs)]

    def forward(self, is_train, req, in_data, out_data, aux):
        for part, out, r in zip(self._parts(in_data[0]), out_data, req):
            copy_into(out, part.reshape(out.shape), r)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        for part, ograd in zip(self._parts(in_grad[0]), out_grad):
            if ograd is None:
                if req[0] == 'write':
                    part.fill(0)
                continue
            copy_into(part, ograd.reshape(part.shape), req[0])


@register
class stack(Operator):
    """Joins ``num_args`` arrays of one shape along a new axis ``axis``."""
    name = 'stack'
    key_var_num_args = 'num_args'
    params = (Param('axis', parse_int, 0, 'Position of the new axis in the result.'),
              Param('num_args', parse_int, doc='Number of inputs to stack.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.num_args < 1:
            raise ShapeError('stack: num_args must be at least 1, found %d' % self.num_args)

    def list_arguments(self):
        return ['arg%d' % i for i in range(self.num_args)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        try:
            common = None
            for s in in_shapes:
                common = unify(common, int_shape(s))
        except ShapeError:
            raise ShapeError('stack: all inputs must have the same shape, found %s'
                             % [int_shape(s) for s in in_shapes]) from None
        oshape = int_shape(out_shapes[0])
        if oshape is not None:
            axis = canonical_axis(self.axis, len(oshape), 'stack')
            common = unify(common, oshape[:axis] + oshape[axis + 1:])
        if common is None:
            return list(in_shapes), [oshape], []
        axis = canonical_axis(self.axis, len(common) + 1, 'stack')
        out = unify(common[:axis] + (self.num_args,) + common[axis:], oshape)
        return [common] * self.num_args, [out], []

    def forward(self, is_train, req, in_data, out_data, aux):
        axis = canonical_axis(self.axis, out_data[0].ndim, 'stack')
        if req[0] == 'write':
            np.stack(in_data, axis=axis, out=out_data[0])
        elif req[0] == 'add':
            out_data[0] += np.stack(in_data, axis=axis)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        ograd = out_grad[0]
        axis = canonical_axis(self.axis, ograd.ndim, 'stack')
        for i, (grad, r) in enumerate(zip(in_grad, req)):
            copy_into(grad, ograd[(slice(None),) * axis + (i,)], r)
