"""Spatial resizing of NCHW feature maps: BilinearResize2D and AdaptiveAvgPooling2D.

Both are separable: an output row (column) is a weighted sum of input rows (columns), so
each is written as ``out = A_h @ x @ A_w.T`` with small interpolation matrices built
once per shape, and the gradient is ``A_h.T @ dy @ A_w``. The weights are MXNet 1.9.1's
(source positions and lambdas in float32; adaptive bins ``[floor(i * in / out),
ceil((i + 1) * in / out))``).
"""
import math

import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_optional, \
    parse_tuple
from .common import choice, int_shape, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []


def _interpolate(out_size, in_size, rows, cols, values):
    matrix = np.zeros((out_size, in_size), np.float64)
    np.add.at(matrix, (rows, cols), values)
    return matrix


def bilinear_matrix(in_size, out_size, align_corners):
    """(out_size, in_size) weights of MXNet's bilinear resize along one axis."""
    f32 = np.float32
    if out_size > 1:
        scale = f32(in_size - 1) / f32(out_size - 1) if align_corners else \
            f32(in_size) / f32(out_size)
    else:
        scale = f32(0)
    dst = np.arange(out_size)
    if align_corners:
        src = scale * dst.astype(f32)
    else:
        src = np.maximum(scale * (dst.astype(f32) + f32(0.5)) - f32(0.5), f32(0))
    low = src.astype(np.int64)
    step = (low < in_size - 1).astype(np.int64)
    lam = (src - low).astype(f32)
    return _interpolate(out_size, in_size, np.concatenate([dst, dst]),
                        np.concatenate([low, low + step]),
                        np.concatenate([f32(1) - lam, lam]))


def adaptive_matrix(in_size, out_size):
    """(out_size, in_size) averaging weights of adaptive pooling along one axis."""
    matrix = np.zeros((out_size, in_size), np.float64)
    for i in range(out_size):
        start = int(math.floor(np.float32(i * in_size) / np.float32(out_size)))
        end = int(math.ceil(np.float32((i + 1) * in_size) / np.float32(out_size)))
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


class _Separable(Operator):
    """Base of ``out = A_h @ x @ A_w.T`` operators over the last two axes of NCHW data."""
    backward_uses_inputs = False
    backward_uses_outputs = False

    def matrices(self, in_hw, out_hw):
        raise NotImplementedError

    def forward(self, is_train, req, in_data, out_data, aux):
        x, out = in_data[0], out_data[0]
        a_h, a_w = self.matrices(x.shape[2:], out.shape[2:])
        result = np.matmul(np.matmul(a_h, x.astype(np.float64)), a_w.T)
        store_from(out, req[0], result.astype(out.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad[1:], req[1:]):
            zero_grad(grad, r)
        if req[0] == 'null':
            return
        dy = out_grad[0]
        a_h, a_w = self.matrices(in_grad[0].shape[2:], dy.shape[2:])
        result = np.matmul(np.matmul(a_h.T, dy.astype(np.float64)), a_w)
        store_from(in_grad[0], req[0], result.astype(in_grad[0].dtype))


def _check_4d(opname, shape):
    if len(shape) != 4:
        raise ShapeError('%s: data must be 4D (batch, channel, height, width), found %s'
                         % (opname, shape))


@register
class BilinearResize2D(_Separable):
    """Resizes NCHW data with bilinear interpolation to (``height``, ``width``), a scale
    of the input size, the size of ``like`` (``mode='like'``), or the nearest even/odd
    size (``to_even_down``, ...)."""
    name = '_contrib_BilinearResize2D'
    aliases = ('_npx_bilinear_resize2d',)
    params = (Param('height', parse_int, 1, 'Output height (mode "size").'),
              Param('width', parse_int, 1, 'Output width (mode "size").'),
              Param('scale_height', parse_optional(parse_float), None,
                    'Height scale (instead of height).'),
              Param('scale_width', parse_optional(parse_float), None,
                    'Width scale (instead of width).'),
              Param('mode', choice('size', 'odd_scale', 'like', 'to_even_down', 'to_even_up',
                                   'to_odd_down', 'to_odd_up'), 'size', 'How to size the output.'),
              Param('align_corners', parse_bool, True,
                    'Map the corner pixels of input and output onto each other.'))

    def check_params(self):
        if self.height < 1 or self.width < 1:
            raise MXNetError('BilinearResize2D: height and width must be at least 1, found '
                             '%d and %d' % (self.height, self.width))

    def list_arguments(self):
        return ['data', 'like'] if self.mode == 'like' else ['data']

    def _out_hw(self, shape, like):
        height, width = shape[2], shape[3]
        mode = self.mode
        if mode == 'size':
            # MXNet tests scale_height for both dimensions
            if self.scale_height is not None:
                return (int(np.float32(self.scale_height) * height),
                        int(np.float32(self.scale_width) * width))
            return self.height, self.width
        if mode == 'odd_scale':
            if self.scale_height is None or self.scale_width is None:
                raise MXNetError('BilinearResize2D: mode odd_scale needs scale_height and '
                                 'scale_width')
            return tuple(int(d * np.float32(s)) if d % 2 == 0 else int((d - 1) * np.float32(s)) + 1
                         for d, s in ((height, self.scale_height), (width, self.scale_width)))
        if mode == 'like':
            return None if like is None else (like[2], like[3])
        even, up = mode.startswith('to_even'), mode.endswith('_up')
        return tuple(d if (d % 2 == 0) == even else (d + 1 if up else d - 1)
                     for d in (height, width))

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        if shapes[0] is None:
            return shapes, list(out_shapes), []
        _check_4d(self.name, shapes[0])
        like = shapes[1] if len(shapes) > 1 else None
        if like is not None:
            _check_4d(self.name, like)
        out_hw = self._out_hw(shapes[0], like)
        if out_hw is None:
            return shapes, list(out_shapes), []
        if min(out_hw) < 1:
            raise ShapeError('BilinearResize2D: the output size %s must be positive'
                             % (out_hw,))
        return shapes, [shapes[0][:2] + tuple(out_hw)], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype] + list(in_types[1:]), [dtype], []

    def matrices(self, in_hw, out_hw):
        return (bilinear_matrix(in_hw[0], out_hw[0], self.align_corners),
                bilinear_matrix(in_hw[1], out_hw[1], self.align_corners))


def _output_size(value):
    size = parse_tuple(value) if value is not None else ()
    if len(size) > 2:
        raise ValueError('expected () or (size,) or (height, width), found %r' % (value,))
    return size


@register
class AdaptiveAvgPooling2D(_Separable):
    """Average pooling of NCHW data to ``output_size`` (h, w) whatever the input size; a
    single value gives a square output, none gives (1, 1)."""
    name = '_contrib_AdaptiveAvgPooling2D'
    aliases = ('_npx_adaptive_avg_pool2d',)
    params = (Param('output_size', _output_size, (), 'Output (height, width).'),)

    def _out_hw(self):
        size = self.output_size
        return (1, 1) if not size else (size[0], size[0]) if len(size) == 1 else tuple(size)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return [None], list(out_shapes), []
        _check_4d(self.name, shape)
        return [shape], [shape[:2] + self._out_hw()], []

    def matrices(self, in_hw, out_hw):
        return adaptive_matrix(in_hw[0], out_hw[0]), adaptive_matrix(in_hw[1], out_hw[1])
