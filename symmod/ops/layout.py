"""Axis permutations: transpose, SwapAxis (swapaxes), depth_to_space, space_to_depth.

Forward copies a transposed view of the input into the output buffer (one
``np.copyto``); backward copies the inversely transposed gradient.
"""
import numpy as np

from ..base import parse_int, parse_tuple
from .common import canonical_axis, copy_into, int_shape
from .registry import Operator, Param, register, ShapeError, unify

__all__ = []


@register
class transpose(Operator):
    """Permutes the axes: ``axes`` gives the new order (reversed when empty)."""
    name = 'transpose'
    params = (Param('axes', parse_tuple, (), 'Target axis order; reverse when empty.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _axes(self, ndim):
        if not self.axes:
            return tuple(range(ndim - 1, -1, -1))
        if len(self.axes) != ndim:
            raise ShapeError('transpose: axes %s do not match an input of %d dimensions'
                             % (self.axes, ndim))
        axes = tuple(canonical_axis(a, ndim, 'transpose', 'axes entry') for a in self.axes)
        if sorted(axes) != list(range(ndim)):
            raise ShapeError('transpose: axes %s is not a permutation of the %d axes'
                             % (self.axes, ndim))
        return axes

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ishape, oshape = int_shape(in_shapes[0]), int_shape(out_shapes[0])
        if ishape is None and oshape is None:
            return [None], [None], []
        ndim = len(ishape if ishape is not None else oshape)
        if ndim > 6:
            raise ShapeError('transpose: supports at most 6 dimensions, found %d' % ndim)
        axes = self._axes(ndim)
        if ishape is not None:
            oshape = unify(tuple(ishape[a] for a in axes), oshape)
        back = [0] * ndim
        for i, a in enumerate(axes):
            back[a] = oshape[i]
        return [unify(tuple(back), ishape)], [oshape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0].transpose(self._axes(in_data[0].ndim)), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        inverse = np.argsort(self._axes(in_grad[0].ndim))
        copy_into(in_grad[0], out_grad[0].transpose(inverse), req[0])


@register
class SwapAxis(Operator):
    """Interchanges two axes ``dim1`` and ``dim2``."""
    name = 'SwapAxis'
    aliases = ('swapaxes',)
    params = (Param('dim1', parse_int, 0, 'The first axis.'),
              Param('dim2', parse_int, 0, 'The second axis.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _dims(self, ndim):
        return (canonical_axis(self.dim1, ndim, 'SwapAxis', 'dim1'),
                canonical_axis(self.dim2, ndim, 'SwapAxis', 'dim2'))

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ishape, oshape = int_shape(in_shapes[0]), int_shape(out_shapes[0])
        if ishape is None and oshape is None:
            return [None], [None], []
        known = ishape if ishape is not None else oshape
        a, b = self._dims(len(known))
        swapped = list(known)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        if ishape is not None:
            return [ishape], [unify(tuple(swapped), oshape)], []
        return [tuple(swapped)], [oshape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = self._dims(in_data[0].ndim)
        copy_into(out_data[0], np.swapaxes(in_data[0], a, b), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = self._dims(in_grad[0].ndim)
        copy_into(in_grad[0], np.swapaxes(out_grad[0], a, b), req[0])


def _depth_to_space(x, out, b, req):
    n, c, h, w = x.shape
    view = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    copy_into(out.reshape(view.shape), view, req)


def _space_to_depth(x, out, b, req):
    n, c, h, w = x.shape
    view = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    copy_into(out.reshape(view.shape), view, req)


class _BlockMove(Operator):
    """depth_to_space / space_to_depth: a reshape, a transpose and a reshape; each one's
    backward is the other's forward. Subclasses give ``_move``, ``_unmove`` and
    ``_moved_shape``."""
    params = (Param('block_size', parse_int, doc='Edge of the square blocks moved.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return [None], list(out_shapes), []
        if len(shape) != 4:
            raise ShapeError('%s: requires exactly a 4-D tensor, found shape %s'
                             % (self.name, shape))
        if self.block_size <= 0:
            raise ShapeError('%s: block_size must be a positive integer, found %d'
                             % (self.name, self.block_size))
        return [shape], [unify(self._moved_shape(shape, self.block_size), out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        if 0 in in_data[0].shape:
            # shape inference reads 0 as an unknown dim; a real input must not have one
            raise ShapeError('%s: no dimension of the input may be 0, found shape %s'
                             % (self.name, in_data[0].shape))
        self._move(in_data[0], out_data[0], self.block_size, req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._unmove(out_grad[0], in_grad[0], self.block_size, req[0])


@register
class depth_to_space(_BlockMove):
    """Moves channel blocks to space: (N, C, H, W) -> (N, C/b^2, H*b, W*b)."""
    name = 'depth_to_space'
    _move = staticmethod(_depth_to_space)
    _unmove = staticmethod(_space_to_depth)

    @staticmethod
    def _moved_shape(shape, b):
        n, c, h, w = shape
        if c % (b * b):
            raise ShapeError('depth_to_space: dimension 1 (depth) of %s must be a multiple of '
                             'block_size^2 = %d' % (shape, b * b))
        return (n, c // (b * b), h * b, w * b)


@register
class space_to_depth(_BlockMove):
    """Moves spatial blocks to channels: (N, C, H, W) -> (N, C*b^2, H/b, W/b)."""
    name = 'space_to_depth'
    _move = staticmethod(_space_to_depth)
    _unmove = staticmethod(_depth_to_space)

    @staticmethod
    def _moved_shape(shape, b):
        n, c, h, w = shape
        if h % b or w % b:
            raise ShapeError('space_to_depth: dimensions 2 and 3 of %s must be multiples of '
                             'block_size=%d' % (shape, b))
        return (n, c * b * b, h // b, w // b)
