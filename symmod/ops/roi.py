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

from ..base import parse_float, parse_tuple
from .common import int_shape, kernel_array, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []

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


@register
class ROIPooling(Operator):
    """Max-pools each region of ``rois`` (R, 5) of ``data`` (N, C, H, W) into
    (R, C, pooled_size[0], pooled_size[1])."""
    name = 'ROIPooling'
    aliases = ('_npx_roi_pooling',)
    params = (Param('pooled_size', _pooled_size, doc='Output (h, w) of each region.'),
              Param('spatial_scale', parse_float,
                    doc='Feature map size over image size (1 / total stride).'))
    backward_uses_inputs = False

    def check_params(self):
        if not 0.0 <= self.spatial_scale <= 1.0:
            raise ShapeError('ROIPooling: spatial_scale must be in [0, 1], found %s'
                             % self.spatial_scale)

    def list_arguments(self):
        return ['data', 'rois']

    def list_outputs(self):
        return ['output', 'maxidx']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, rshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is None or rshape is None:
            return [dshape, rshape], [int_shape(out_shapes[0]), None], []
        if len(dshape) != 4:
            raise ShapeError('ROIPooling: data must be 4D (batch, channel, y, x), found %s'
                             % (dshape,))
        if len(rshape) != 2 or rshape[1] != 5:
            raise ShapeError('ROIPooling: rois must be (num_rois, 5) rows of '
                             '[batch_index, x1, y1, x2, y2], found %s' % (rshape,))
        out = (rshape[0], dshape[1]) + tuple(self.pooled_size)
        return [dshape, rshape], [out, out], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype, dtype], [dtype, np.dtype(np.int32)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        data, rois = in_data
        out, argmax = out_data
        target = kernel_array(out) if req[0] == 'write' else np.empty(out.shape, np.float32)
        _roi_pool_forward(np.ascontiguousarray(kernel_array(data)),
                          np.ascontiguousarray(kernel_array(rois)),
                          np.float32(self.spatial_scale), target, argmax)
        if req[0] == 'add':
            out += target.astype(out.dtype)
        elif target is not out:
            out[...] = target

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
