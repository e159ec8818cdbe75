"""im2col and col2im: sliding blocks of an image as columns, and back.

``im2col`` turns ``(N, C, *spatial)`` into ``(N, C * prod(kernel), L)``: row ``c * K + k``
holds channel ``c`` at kernel offset ``k`` (C order over the kernel), column ``l`` the
block at output position ``l`` (C order over the output grid). ``col2im`` sums columns
back into an image of ``output_size`` (overlapping blocks add up); each is the other's
gradient.
"""
import itertools

import numpy as np

from ..base import MXNetError, parse_tuple
from .common import int_shape, store_from
from .registry import Operator, Param, ShapeError, register, unify

__all__ = []


class _BlockParams(Operator):
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        n = len(self.kernel)
        if not 1 <= n <= 3:
            raise MXNetError('%s: kernel must have 1 to 3 dims, found %s'
                             % (self.name, tuple(self.kernel)))
        self.stride = tuple(self.stride) or (1,) * n
        self.dilate = tuple(self.dilate) or (1,) * n
        self.pad = tuple(self.pad) or (0,) * n
        for what in ('stride', 'dilate', 'pad'):
            if len(getattr(self, what)) != n:
                raise MXNetError('%s: %s %s must have as many dims as kernel %s'
                                 % (self.name, what, getattr(self, what), tuple(self.kernel)))

    def _grid(self, spatial):
        """Output positions per spatial dim."""
        grid = []
        for size, k, s, d, p in zip(spatial, self.kernel, self.stride, self.dilate, self.pad):
            span = (k - 1) * d + 1
            count = (size + 2 * p - span) // s + 1
            if count <= 0:
                raise ShapeError('%s: kernel %s (dilate %s) does not fit the padded input %s'
                                 % (self.name, tuple(self.kernel), self.dilate, tuple(spatial)))
            grid.append(count)
        return tuple(grid)

    def _blocks(self, spatial):
        """For each kernel offset: the index tuple (into the padded image) of its entries."""
        grid = self._grid(spatial)
        for offset in itertools.product(*[range(k) for k in self.kernel]):
            yield tuple(slice(o * d, o * d + (g - 1) * s + 1, s)
                        for o, d, g, s in zip(offset, self.dilate, grid, self.stride))

    def _im2col(self, image):
        n, c = image.shape[:2]
        spatial = image.shape[2:]
        padded = np.pad(image, [(0, 0), (0, 0)] + [(p, p) for p in self.pad])
        blocks = [padded[(slice(None), slice(None)) + index] for index in self._blocks(spatial)]
        stacked = np.stack(blocks, axis=2)          # (n, c, K, *grid)
        return stacked.reshape(n, c * len(blocks), -1)

    def _col2im(self, cols, spatial, dtype):
        n = cols.shape[0]
        kernel_size = int(np.prod(self.kernel))
        c = cols.shape[1] // kernel_size
        grid = self._grid(spatial)
        padded = np.zeros((n, c) + tuple(s + 2 * p for s, p in zip(spatial, self.pad)), dtype)
        blocks = cols.reshape((n, c, kernel_size) + grid)
        for k, index in enumerate(self._blocks(spatial)):
            padded[(slice(None), slice(None)) + index] += blocks[:, :, k]
        inner = tuple(slice(p, p + s) for p, s in zip(self.pad, spatial))
        return padded[(slice(None), slice(None)) + inner]


_COMMON = (Param('kernel', parse_tuple, doc='Sliding kernel size.'),
           Param('stride', parse_tuple, (), 'Stride between blocks (default 1).'),
           Param('dilate', parse_tuple, (), 'Spacing of kernel points (default 1).'),
           Param('pad', parse_tuple, (), 'Zero padding on both sides (default 0).'))


@register
class im2col(_BlockParams):
    """Sliding blocks of ``data`` (N, C, *spatial) as columns (N, C * prod(kernel), L)."""
    name = 'im2col'
    params = _COMMON

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return [None], list(out_shapes), []
        if len(data) != 2 + len(self.kernel):
            raise ShapeError('im2col: data must be (N, C) + %d spatial dims, found %s'
                             % (len(self.kernel), data))
        out = (data[0], data[1] * int(np.prod(self.kernel)),
               int(np.prod(self._grid(data[2:]))))
        return [data], [unify(out, out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        store_from(out_data[0], req[0], self._im2col(in_data[0]))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grad = in_grad[0]
        store_from(grad, req[0], self._col2im(out_grad[0], grad.shape[2:], grad.dtype))


@register
class col2im(_BlockParams):
    """Columns (N, C * prod(kernel), L) summed back into an image (N, C, *output_size)."""
    name = 'col2im'
    params = (Param('output_size', parse_tuple, doc='Spatial size of the image.'),) + _COMMON

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return [None], list(out_shapes), []
        kernel_size = int(np.prod(self.kernel))
        blocks = int(np.prod(self._grid(self.output_size)))
        if len(data) != 3 or data[1] % kernel_size or data[2] != blocks:
            raise ShapeError('col2im: data must be (N, C * %d, %d) for output_size %s, found %s'
                             % (kernel_size, blocks, tuple(self.output_size), data))
        out = (data[0], data[1] // kernel_size) + tuple(self.output_size)
        return [data], [unify(out, out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        store_from(out, req[0], self._col2im(in_data[0], out.shape[2:], out.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        store_from(in_grad[0], req[0], self._im2col(out_grad[0]))
