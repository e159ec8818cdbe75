"""Correlation (FlowNet's correlation layer): compares patches of two feature maps.

For every position of the first map (on a ``stride1`` grid, inside a border of
``max_displacement`` plus the kernel radius) and every displacement in a
``(2 * max_displacement / stride2 + 1)^2`` neighbourhood (steps of ``stride2``), the
output holds the mean over a ``kernel_size`` square patch and all channels of
``f1 * f2`` (``is_multiply``) or ``|f1 - f2|``. The inputs are zero-padded by
``pad_size``; the padded, channel-last copies are hidden outputs kept for backward.
The loops follow MXNet's CPU kernel (the patch starts at the position, it is not
centred on it).
"""
import math

import numba
import numpy as np

from ..base import parse_bool, parse_int
from .common import int_shape, kernel_array
from .registry import Operator, Param, ShapeError, register

__all__ = []


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _forward(pad1, pad2, out, multiply, kernel, max_disp, radius, grid_width, stride1,
             stride2):
    batch, top_c, top_h, top_w = out.shape
    channels = pad1.shape[3]
    count = kernel * kernel * channels
    for n in range(batch):
        for i in range(top_h):
            for j in range(top_w):
                x1 = j * stride1 + max_disp
                y1 = i * stride1 + max_disp
                for tc in range(top_c):
                    x2 = x1 + (tc % grid_width - radius) * stride2
                    y2 = y1 + (tc // grid_width - radius) * stride2
                    total = 0.0
                    for h in range(kernel):
                        for w in range(kernel):
                            for c in range(channels):
                                a = pad1[n, y1 + h, x1 + w, c]
                                b = pad2[n, y2 + h, x2 + w, c]
                                total += a * b if multiply else abs(a - b)
                    out[n, tc, i, j] = total / count


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _backward(dy, pad1, pad2, g1, g2, want1, want2, multiply, kernel, max_disp, radius,
              grid_width, stride1, stride2, pad):
    batch, top_c, top_h, top_w = dy.shape
    height, width = g1.shape[2], g1.shape[3]
    channels = pad1.shape[3]
    count = np.float32(kernel * kernel * channels)
    for i in range(top_h):
        for j in range(top_w):
            for n in range(batch):
                x1 = j * stride1 + max_disp
                y1 = i * stride1 + max_disp
                for tc in range(top_c):
                    x2 = x1 + (tc % grid_width - radius) * stride2
                    y2 = y1 + (tc // grid_width - radius) * stride2
                    g = dy[n, tc, i, j]
                    for h in range(kernel):
                        for w in range(kernel):
                            in1 = (0 <= y1 + h - pad < height) and (0 <= x1 + w - pad < width)
                            in2 = (0 <= y2 + h - pad < height) and (0 <= x2 + w - pad < width)
                            for c in range(channels):
                                a = pad1[n, y1 + h, x1 + w, c]
                                b = pad2[n, y2 + h, x2 + w, c]
                                if multiply:
                                    d1 = g * b / count
                                    d2 = g * a / count
                                else:
                                    sign = 1.0 if a >= b else -1.0
                                    d1 = g * sign / count
                                    d2 = -g * sign / count
                                if want1 and in1:
                                    g1[n, c, y1 + h - pad, x1 + w - pad] += d1
                                if want2 and in2:
                                    g2[n, c, y2 + h - pad, x2 + w - pad] += d2


@register
class Correlation(Operator):
    """Correlation of ``data1`` and ``data2`` (both N, C, H, W): an output of
    (N, D*D, top_h, top_w) with D = 2 * (max_displacement // stride2) + 1."""
    name = 'Correlation'
    params = (Param('kernel_size', parse_int, 1, 'Patch size (odd).'),
              Param('max_displacement', parse_int, 1, 'Largest displacement compared.'),
              Param('stride1', parse_int, 1, 'Stride over the positions of data1.'),
              Param('stride2', parse_int, 1, 'Stride over the displacements.'),
              Param('pad_size', parse_int, 0, 'Zero padding of both inputs.'),
              Param('is_multiply', parse_bool, True,
                    'Multiply the patches (True) or take absolute differences.'))
    backward_uses_inputs = False

    def check_params(self):
        if self.kernel_size % 2 == 0:
            raise ShapeError('Correlation: kernel_size must be odd, found %d'
                             % self.kernel_size)

    def list_arguments(self):
        return ['data1', 'data2']

    def list_outputs(self):
        return ['output', 'tmp1', 'tmp2']

    def num_visible_outputs(self):
        return 1

    def _geometry(self, dshape):
        padded_h = dshape[2] + 2 * self.pad_size
        padded_w = dshape[3] + 2 * self.pad_size
        border = self.max_displacement + (self.kernel_size - 1) // 2
        top_w = math.ceil((padded_w - border * 2) / self.stride1)
        top_h = math.ceil((padded_h - border * 2) / self.stride1)
        radius = self.max_displacement // self.stride2
        return padded_h, padded_w, top_h, top_w, radius, 2 * radius + 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        d1, d2 = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        for shape in (d1, d2):
            if shape is not None and len(shape) != 4:
                raise ShapeError('Correlation: data must be 4D, found %s' % (shape,))
        if d1 is None:
            return [d1, d2], [int_shape(out_shapes[0]), None, None], []
        padded_h, padded_w, top_h, top_w, _, grid_width = self._geometry(d1)
        if top_h < 1 or top_w < 1:
            raise ShapeError('Correlation cannot be done with current settings: the '
                             'neighbourhood and kernel do not fit in the input %s' % (d1,))
        tmp = (d1[0], padded_h, padded_w, d1[1])
        return [d1, d2], [(d1[0], grid_width * grid_width, top_h, top_w), tmp, tmp], []

    def forward(self, is_train, req, in_data, out_data, aux):
        out, pad1, pad2 = out_data
        p = self.pad_size
        for src, dst in zip(in_data, (pad1, pad2)):
            dst.fill(0)
            dst[:, p:p + src.shape[2], p:p + src.shape[3], :] = src.transpose(0, 2, 3, 1)
        _, _, _, _, radius, grid_width = self._geometry(in_data[0].shape)
        target = kernel_array(out) if req[0] == 'write' else np.empty(out.shape, np.float32)
        _forward(kernel_array(pad1), kernel_array(pad2), target, self.is_multiply,
                 self.kernel_size, self.max_displacement,
                 radius, grid_width, self.stride1, self.stride2)
        if req[0] == 'add':
            out += target.astype(out.dtype)
        elif target is not out:
            out[...] = target

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null' and req[1] == 'null':
            return
        _, pad1, pad2 = out_data
        g1, g2 = in_grad
        for grad, r in zip(in_grad, req):
            if r == 'write':
                grad.fill(0)
        _, _, _, _, radius, grid_width = self._geometry(g1.shape)
        k1, k2 = kernel_array(g1), kernel_array(g2)
        _backward(np.ascontiguousarray(kernel_array(out_grad[0])), kernel_array(pad1),
                  kernel_array(pad2), k1, k2, req[0] != 'null',
                  req[1] != 'null', self.is_multiply, self.kernel_size, self.max_displacement,
                  radius, grid_width, self.stride1, self.stride2, self.pad_size)
        for grad, widened, r in ((g1, k1, req[0]), (g2, k2, req[1])):
            if widened is not grad and r != 'null':
                grad[...] = widened
