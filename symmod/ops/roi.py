"""ROIPooling: max pooling of regions of interest into a fixed-size grid (Fast R-CNN).

Each roi row is ``[batch_index, x1, y1, x2, y2]`` in image coordinates; scaled by
``spatial_scale`` and rounded (halves away from zero, C's ``round``) it names a window
of the feature map, divided into ``pooled_size`` bins whose maxima form the output.
The position of each maximum is kept (hidden output ``maxidx``) for the gradient, which
goes to that position alone; the rois get a zero gradient. Empty bins and rois with an
invalid batch index give 0.
"""
import numba
import numpy as np

from ..base import parse_float, parse_int, parse_tuple
from .common import int_shape, kernel_array, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = ['RoiOperator']

_NEG_FLT_MAX = -float(np.finfo(np.float32).max)


def _pooled_size(value):
    size = parse_tuple(value)
    if len(size) != 2 or min(size) <= 0:
        raise ValueError('expected two positive values (h, w), found %r' % (value,))
    return size


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _c_round(value):
    return np.floor(value + 0.5) if value >= 0 else -np.floor(-value + 0.5)


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _roi_pool_forward(data, rois, scale, out, argmax):
    batch, channels, height, width = data.shape
    pooled_h, pooled_w = out.shape[2], out.shape[3]
    for n in range(rois.shape[0]):
        start_w = int(_c_round(rois[n, 1] * scale))
        start_h = int(_c_round(rois[n, 2] * scale))
        end_w = int(_c_round(rois[n, 3] * scale))
        end_h = int(_c_round(rois[n, 4] * scale))
        index = int(rois[n, 0])
        invalid = index < 0 or index >= batch
        roi_h = max(end_h - start_h + 1, 1)
        roi_w = max(end_w - start_w + 1, 1)
        # bins in the data type, as MXNet (float32 rounding decides some bin edges)
        real = out.dtype.type
        bin_h = real(roi_h) / real(pooled_h)
        bin_w = real(roi_w) / real(pooled_w)
        for c in range(channels):
            for ph in range(pooled_h):
                for pw in range(pooled_w):
                    hstart = min(max(int(np.floor(real(ph) * bin_h)) + start_h, 0), height)
                    hend = min(max(int(np.ceil(real(ph + 1) * bin_h)) + start_h, 0), height)
                    wstart = min(max(int(np.floor(real(pw) * bin_w)) + start_w, 0), width)
                    wend = min(max(int(np.ceil(real(pw + 1) * bin_w)) + start_w, 0), width)
                    if invalid or hend <= hstart or wend <= wstart:
                        out[n, c, ph, pw] = 0
                        argmax[n, c, ph, pw] = -1
                        continue
                    best = _NEG_FLT_MAX     # MXNet starts from -FLT_MAX
                    where = -1
                    for h in range(hstart, hend):
                        for w in range(wstart, wend):
                            value = data[index, c, h, w]
                            if value > best:
                                best = value
                                where = ((index * channels + c) * height + h) * width + w
                    out[n, c, ph, pw] = best
                    argmax[n, c, ph, pw] = where


class RoiOperator(Operator):
    """Base of the operators pooling regions ``rois`` (R, 5: batch index, x1, y1, x2, y2)
    out of a feature map ``data`` (N, C, H, W) scaled by ``spatial_scale``."""
    backward_uses_outputs = False

    def check_params(self):
        if not 0.0 <= self.spatial_scale <= 1.0:
            raise ShapeError('%s: spatial_scale must be in [0, 1], found %s'
                             % (self.name, self.spatial_scale))

    def list_arguments(self):
        return ['data', 'rois']

    def input_shapes(self, in_shapes):
        """(data shape, rois shape), checked, or None while either is unknown."""
        dshape, rshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is None or rshape is None:
            return None
        if len(dshape) != 4:
            raise ShapeError('%s: data must be 4D (batch, channel, y, x), found %s'
                             % (self.name, dshape))
        if len(rshape) != 2 or rshape[1] != 5:
            raise ShapeError('%s: rois must be (num_rois, 5) rows of '
                             '[batch_index, x1, y1, x2, y2], found %s' % (self.name, rshape))
        return dshape, rshape

    @staticmethod
    def kernel_target(out, req):
        """The float32/float64 buffer a kernel writes the forward result into."""
        return kernel_array(out) if req == 'write' else np.empty(out.shape, np.float32)

    @staticmethod
    def store_target(out, req, target):
        """Store a :meth:`kernel_target` result into ``out`` following ``req``."""
        if req == 'add':
            out += target.astype(out.dtype)
        elif target is not out:
            out[...] = target


@register
class ROIPooling(RoiOperator):
    """Max-pools each region of ``rois`` (R, 5) of ``data`` (N, C, H, W) into
    (R, C, pooled_size[0], pooled_size[1])."""
    name = 'ROIPooling'
    aliases = ('_npx_roi_pooling',)
    params = (Param('pooled_size', _pooled_size, doc='Output (h, w) of each region.'),
              Param('spatial_scale', parse_float,
                    doc='Feature map size over image size (1 / total stride).'))
    backward_uses_inputs = False
    backward_uses_outputs = True

    def list_outputs(self):
        return ['output', 'maxidx']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = self.input_shapes(in_shapes)
        if shapes is None:
            return [int_shape(s) for s in in_shapes], [int_shape(out_shapes[0]), None], []
        dshape, rshape = shapes
        out = (rshape[0], dshape[1]) + tuple(self.pooled_size)
        return [dshape, rshape], [out, out], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype, dtype], [dtype, np.dtype(np.int32)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        data, rois = in_data
        out, argmax = out_data
        target = self.kernel_target(out, req[0])
        _roi_pool_forward(np.ascontiguousarray(kernel_array(data)),
                          np.ascontiguousarray(kernel_array(rois)),
                          np.float32(self.spatial_scale), target, argmax)
        self.store_target(out, req[0], target)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        gdata, argmax, dy = in_grad[0], out_data[1].ravel(), out_grad[0].ravel()
        hit = argmax >= 0
        total = np.bincount(argmax[hit], weights=dy[hit], minlength=gdata.size)
        if req[0] == 'write':
            gdata[...] = total.reshape(gdata.shape)
        else:
            gdata += total.reshape(gdata.shape).astype(gdata.dtype)


# ---- PSROIPooling -----------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True, error_model='numpy')
def _ps_bins(rois, n, ph, pw, scale, pooled, group, height, width, real):
    """(hstart, hend, wstart, wend, channel offset gh * group + gw) of a bin, in the data
    type's arithmetic as MXNet's kernel."""
    start_w = real(_c_round(rois[n, 1])) * scale
    start_h = real(_c_round(rois[n, 2])) * scale
    end_w = real(_c_round(rois[n, 3]) + 1.0) * scale
    end_h = real(_c_round(rois[n, 4]) + 1.0) * scale
    bin_w = max(end_w - start_w, real(0.1)) / real(pooled)
    bin_h = max(end_h - start_h, real(0.1)) / real(pooled)
    hstart = min(max(int(np.floor(real(ph) * bin_h + start_h)), 0), height)
    wstart = min(max(int(np.floor(real(pw) * bin_w + start_w)), 0), width)
    hend = min(max(int(np.ceil(real(ph + 1) * bin_h + start_h)), 0), height)
    wend = min(max(int(np.ceil(real(pw + 1) * bin_w + start_w)), 0), width)
    gw = min(max(int(np.floor(real(pw) * group / pooled)), 0), group - 1)
    gh = min(max(int(np.floor(real(ph) * group / pooled)), 0), group - 1)
    return hstart, hend, wstart, wend, gh * group + gw


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _psroi_pool(data, rois, scale, group, out, dy, grad):
    """Forward into ``out`` when ``dy`` is empty, else accumulate ``dy``'s gradient."""
    height, width = data.shape[2], data.shape[3]
    n_rois, output_dim, pooled = out.shape[0], out.shape[1], out.shape[2]
    real = out.dtype.type
    backward = dy.size > 0
    for n in range(n_rois):
        index = int(rois[n, 0])
        for ctop in range(output_dim):
            for ph in range(pooled):
                for pw in range(pooled):
                    hs, he, ws, we, g = _ps_bins(rois, n, ph, pw, scale, pooled, group,
                                                 height, width, real)
                    c = ctop * group * group + g
                    empty = he <= hs or we <= ws
                    area = (he - hs) * (we - ws)
                    if backward:
                        if empty:
                            continue
                        share = dy[n, ctop, ph, pw] / area
                        for h in range(hs, he):
                            for w in range(ws, we):
                                grad[index, c, h, w] += share
                    else:
                        total = 0.0
                        for h in range(hs, he):
                            for w in range(ws, we):
                                total += data[index, c, h, w]
                        out[n, ctop, ph, pw] = 0 if empty else total / area


@register
class PSROIPooling(RoiOperator):
    """Position-sensitive ROI pooling (R-FCN): bin (ph, pw) of output channel ``c`` averages
    input channel ``(c * group + gh) * group + gw`` over the bin, (gh, gw) being the bin's
    group cell. ``data`` (N, output_dim * group_size**2, H, W), ``rois`` (R, 5) ->
    (R, output_dim, pooled_size, pooled_size)."""
    name = '_contrib_PSROIPooling'
    params = (Param('spatial_scale', parse_float,
                    doc='Feature map size over image size (1 / total stride).'),
              Param('output_dim', parse_int, doc='Output channels.'),
              Param('pooled_size', parse_int, doc='Output height and width.'),
              Param('group_size', parse_int, 0, 'Group cells per side (0: pooled_size).'))

    def check_params(self):
        super().check_params()
        self.group = self.group_size or self.pooled_size

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = self.input_shapes(in_shapes)
        if shapes is None:
            return [int_shape(s) for s in in_shapes], list(out_shapes), []
        dshape, rshape = shapes
        if dshape[1] != self.output_dim * self.group * self.group:
            raise ShapeError('PSROIPooling: data has %d channels, output_dim %d with '
                             'group_size %d needs %d' % (dshape[1], self.output_dim,
                                                         self.group,
                                                         self.output_dim * self.group ** 2))
        pooled = self.pooled_size
        return [dshape, rshape], [(rshape[0], self.output_dim, pooled, pooled)], []

    def _run(self, data, rois, out, dy, grad):
        _psroi_pool(np.ascontiguousarray(kernel_array(data)),
                    np.ascontiguousarray(kernel_array(rois)), np.float32(self.spatial_scale),
                    self.group, out, dy, grad)

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        target = self.kernel_target(out, req[0])
        self._run(in_data[0], in_data[1], target, np.zeros((0, 1, 1, 1), target.dtype),
                  np.zeros((1, 1, 1, 1), target.dtype))
        self.store_target(out, req[0], target)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        dy = np.ascontiguousarray(kernel_array(out_grad[0]))
        grad = np.zeros(in_grad[0].shape, dy.dtype)
        self._run(in_data[0], in_data[1], np.empty(dy.shape, dy.dtype), dy, grad)
        if req[0] == 'write':
            in_grad[0][...] = grad
        else:
            in_grad[0] += grad.astype(in_grad[0].dtype)
