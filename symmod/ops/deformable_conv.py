"""Deformable convolutions: _contrib_DeformableConvolution (v1) and
_contrib_ModulatedDeformableConvolution (v2, with a mask).

Each kernel tap (i, j) at output position (h, w) reads the input not at the regular grid
point but at ``(h * stride - pad + i * dilate + dy, w * stride - pad + j * dilate + dx)``,
the learnt ``offset`` (N, groups * 2 * kh * kw, oh, ow) holding (dy, dx) per deformable
group of channels, with bilinear interpolation (v2: points outside ``(-1, size)`` read 0 and corners outside
the image count as 0; v1 as MXNet's CPU kernel: points need ``[0, size)`` and corners
clamp to the last row/column), and (v2) scaled by ``mask`` (N, groups * kh * kw,
oh, ow). The sampled columns are then multiplied by the weight as in Convolution.
Gradients flow to the data, the offsets (through the interpolation weights), the mask,
the weight and the bias; MXNet 1.9.1 computes these on the GPU only.
"""
import numba
import numpy as np

from ..base import parse_bool, parse_int, parse_optional, parse_tuple
from .common import choice, int_shape, kernel_array, store_from, unify
from .conv import _spatial_params, conv_output_size
from .registry import Operator, Param, ShapeError, register
from .sampling import _corner as _at, _scatter as _put

__all__ = []


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _taps(height, width, y, x, clamped):
    """Where a sample at (y, x) reads: (valid, y0, y1, x0, x1, ly, lx, moves_y, moves_x).

    ``clamped`` (v1's CPU kernel): samples need 0 <= y < height (same for x) and a
    corner past the last row/column folds back onto it (that coordinate then has no
    effect); otherwise (v2) samples need -1 < y < height and corners outside read 0.
    """
    if clamped:
        valid = 0 <= y < height and 0 <= x < width
    else:
        valid = -1 < y < height and -1 < x < width
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    y1, x1 = y0 + 1, x0 + 1
    ly, lx = y - y0, x - x0
    moves_y = moves_x = True
    if clamped and y0 >= height - 1:
        y0 = y1 = height - 1
        ly, moves_y = 0.0, False
    if clamped and x0 >= width - 1:
        x0 = x1 = width - 1
        lx, moves_x = 0.0, False
    return valid, y0, y1, x0, x1, ly, lx, moves_y, moves_x


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _deform_columns(data, offset, mask, kh, kw, stride, pad, dilate, groups, clamped, col,
                    dcol, ddata, doffset, dmask):
    """Forward (``dcol`` empty): col[c, i, j, n, h, w] = mask * bilinear sample of
    data[n, c] at the moved tap. Backward: accumulate the gradients of ``dcol`` into
    ``ddata``, ``doffset`` and ``dmask``."""
    batch, channels, height, width = data.shape
    out_h, out_w = col.shape[4], col.shape[5]
    per_group = channels // groups
    backward = dcol.size > 0
    for n in range(batch):
        for c in range(channels):
            g = c // per_group
            for i in range(kh):
                for j in range(kw):
                    tap = i * kw + j
                    oy = g * 2 * kh * kw + 2 * tap
                    mk = g * kh * kw + tap
                    for h in range(out_h):
                        for w in range(out_w):
                            y = h * stride[0] - pad[0] + i * dilate[0] + offset[n, oy, h, w]
                            x = w * stride[1] - pad[1] + j * dilate[1] + offset[n, oy + 1, h, w]
                            valid, y0, y1, x0, x1, ly, lx, moves_y, moves_x = _taps(
                                height, width, y, x, clamped)
                            if not valid:
                                if not backward:
                                    col[c, i, j, n, h, w] = 0.0
                                continue
                            v1, v2 = _at(data, n, c, y0, x0), _at(data, n, c, y0, x1)
                            v3, v4 = _at(data, n, c, y1, x0), _at(data, n, c, y1, x1)
                            value = ((1 - ly) * (1 - lx) * v1 + (1 - ly) * lx * v2
                                     + ly * (1 - lx) * v3 + ly * lx * v4)
                            m = mask[n, mk, h, w]
                            if not backward:
                                col[c, i, j, n, h, w] = value * m
                                continue
                            g_out = dcol[c, i, j, n, h, w]
                            dmask[n, mk, h, w] += g_out * value
                            scale = g_out * m
                            _put(ddata, n, c, y0, x0, scale * (1 - ly) * (1 - lx))
                            _put(ddata, n, c, y0, x1, scale * (1 - ly) * lx)
                            _put(ddata, n, c, y1, x0, scale * ly * (1 - lx))
                            _put(ddata, n, c, y1, x1, scale * ly * lx)
                            if moves_y:
                                doffset[n, oy, h, w] += scale * (-(1 - lx) * v1 - lx * v2
                                                                 + (1 - lx) * v3 + lx * v4)
                            if moves_x:
                                doffset[n, oy + 1, h, w] += scale * (-(1 - ly) * v1
                                                                     + (1 - ly) * v2
                                                                     - ly * v3 + ly * v4)


class _DeformableConvolution(Operator):
    """Base of the deformable convolutions (2-D, NCHW)."""
    modulated = False
    clamped = False         # v1 samples as MXNet's CPU kernel does (see _taps)
    backward_uses_outputs = False

    def check_params(self):
        self.kernel = tuple(self.kernel)
        if len(self.kernel) != 2:
            raise ShapeError('%s: only 2-D kernels are supported, found %s'
                             % (self.name, self.kernel))
        self.strides, self.dilates, self.pads = _spatial_params(
            self.name, self.kernel, (('stride', self.stride, 1), ('dilate', self.dilate, 1),
                                     ('pad', self.pad, 0)))
        if self.layout not in (None, 'NCHW'):
            raise ShapeError('%s: only the NCHW layout is supported, found %s'
                             % (self.name, self.layout))

    def list_arguments(self):
        names = ['data', 'offset'] + (['mask'] if self.modulated else []) + ['weight']
        return names if self.no_bias else names + ['bias']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        dshape = shapes[0]
        if dshape is None:
            return shapes, list(out_shapes), []
        if len(dshape) != 4:
            raise ShapeError('%s: data must be 4D (batch, channel, y, x), found %s'
                             % (self.name, dshape))
        channels = dshape[1]
        for what, total, per in (('input channels', channels, self.num_group),
                                 ('input channels', channels, self.num_deformable_group),
                                 ('num_filter', self.num_filter, self.num_group)):
            if total % per:
                raise ShapeError('%s: %s %d must divide by %d' % (self.name, what, total, per))
        kh, kw = self.kernel
        out_hw = tuple(conv_output_size(s, k, st, d, p) for s, k, st, d, p in
                       zip(dshape[2:], self.kernel, self.strides, self.dilates, self.pads))
        groups, taps = self.num_deformable_group, kh * kw
        expected = {'offset': (dshape[0], groups * 2 * taps) + out_hw,
                    'mask': (dshape[0], groups * taps) + out_hw,
                    'weight': (self.num_filter, channels // self.num_group, kh, kw),
                    'bias': (self.num_filter,)}
        names = self.list_arguments()
        for index, name in enumerate(names[1:], 1):
            if shapes[index] is not None:   # partly known (0 = unknown dim) is merged
                try:
                    unify(shapes[index], expected[name])
                except ShapeError:
                    raise ShapeError('%s: %s must have shape %s, found %s'
                                     % (self.name, name, expected[name], shapes[index])) from None
            shapes[index] = expected[name]
        return shapes, [(dshape[0], self.num_filter) + out_hw], []

    def _inputs(self, in_data):
        names = self.list_arguments()
        arrays = dict(zip(names, in_data))
        mask = arrays.get('mask')
        if mask is None:
            offset = arrays['offset']
            mask = np.ones((offset.shape[0], offset.shape[1] // 2) + offset.shape[2:],
                           np.float64)
        return arrays, mask

    def _columns(self, arrays, mask, out_hw):
        data = arrays['data']
        kh, kw = self.kernel
        col = np.empty((data.shape[1], kh, kw, data.shape[0]) + out_hw, np.float64)
        empty = np.zeros((0, 1, 1, 1), np.float64)
        self._kernel(arrays, mask, col, np.zeros((0, 1, 1, 1, 1, 1)), empty, empty, empty)
        return col

    def _kernel(self, arrays, mask, col, dcol, ddata, doffset, dmask):
        kh, kw = self.kernel
        _deform_columns(np.ascontiguousarray(kernel_array(arrays['data'])),
                        np.ascontiguousarray(kernel_array(arrays['offset'])),
                        np.ascontiguousarray(kernel_array(mask)), kh, kw, self.strides,
                        self.pads, self.dilates, self.num_deformable_group, self.clamped,
                        col, dcol, ddata, doffset, dmask)

    def _grouped(self, weight, col):
        """Weight (F, C/G, kh, kw) and columns (C, kh, kw, N, oh, ow) as per-group
        matrices: (G, F/G, C/G*kh*kw) and (G, C/G*kh*kw, N*oh*ow)."""
        groups = self.num_group
        w = weight.reshape(groups, weight.shape[0] // groups, -1)
        c = col.reshape(groups, -1, int(np.prod(col.shape[3:])))
        return w, c

    def forward(self, is_train, req, in_data, out_data, aux):
        arrays, mask = self._inputs(in_data)
        out = out_data[0]
        col = self._columns(arrays, mask, out.shape[2:])
        w, c = self._grouped(arrays['weight'].astype(np.float64), col)
        result = np.matmul(w, c).reshape(self.num_filter, out.shape[0], *out.shape[2:])
        result = result.transpose(1, 0, 2, 3)
        if not self.no_bias:
            result = result + arrays['bias'].reshape(1, -1, 1, 1)
        store_from(out, req[0], result.astype(out.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        names = self.list_arguments()
        arrays, mask = self._inputs(in_data)
        grads, reqs = dict(zip(names, in_grad)), dict(zip(names, req))
        dy = out_grad[0].astype(np.float64)
        col = self._columns(arrays, mask, dy.shape[2:])
        w, c = self._grouped(arrays['weight'].astype(np.float64), col)
        groups = self.num_group
        dy2 = dy.transpose(1, 0, 2, 3).reshape(groups, self.num_filter // groups, -1)
        store_from(grads['weight'], reqs['weight'],
                   np.matmul(dy2, c.transpose(0, 2, 1)).reshape(grads['weight'].shape))
        if not self.no_bias:
            store_from(grads['bias'], reqs['bias'], dy.sum(axis=(0, 2, 3)))
        wanted = [n for n in ('data', 'offset', 'mask') if n in names and reqs[n] != 'null']
        if not wanted:
            return
        dcol = np.matmul(w.transpose(0, 2, 1), dy2).reshape(col.shape)
        ddata = np.zeros(arrays['data'].shape)
        doffset = np.zeros(arrays['offset'].shape)
        dmask = np.zeros(mask.shape)
        self._kernel(arrays, mask, col, dcol, ddata, doffset, dmask)
        for name, value in (('data', ddata), ('offset', doffset), ('mask', dmask)):
            if name in wanted:
                store_from(grads[name], reqs[name], value.astype(grads[name].dtype))


_PARAMS = (Param('kernel', parse_tuple, doc='Convolution kernel (h, w).'),
           Param('stride', parse_tuple, (), 'Stride; (1, 1) by default.'),
           Param('dilate', parse_tuple, (), 'Dilation; (1, 1) by default.'),
           Param('pad', parse_tuple, (), 'Zero padding; (0, 0) by default.'),
           Param('num_filter', parse_int, doc='Output channels.'),
           Param('num_group', parse_int, 1, 'Channel groups.'),
           Param('num_deformable_group', parse_int, 1, 'Channel groups sharing offsets.'),
           Param('workspace', parse_int, 1024, 'Ignored (MXNet workspace limit, MB).'),
           Param('no_bias', parse_bool, False, 'Whether to omit the bias.'),
           Param('layout', parse_optional(choice('NCHW')), None, 'Data layout (NCHW only).'))


@register
class DeformableConvolution(_DeformableConvolution):
    """Deformable convolution v1 (Dai et al. 2017): convolution sampling ``data`` at the
    regular taps moved by ``offset``."""
    name = '_contrib_DeformableConvolution'
    aliases = ('_npx_deformable_convolution',)
    params = _PARAMS
    clamped = True


@register
class ModulatedDeformableConvolution(_DeformableConvolution):
    """Deformable convolution v2 (Zhu et al. 2019): the moved taps are also scaled by
    ``mask``."""
    name = '_contrib_ModulatedDeformableConvolution'
    aliases = ('_npx_modulated_deformable_convolution',)
    params = _PARAMS + (Param('im2col_step', parse_int, 64,
                              'Ignored (MXNet processes the batch in steps of this size).'),)
    modulated = True
