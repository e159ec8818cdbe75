"""ROIAlign (Mask R-CNN): average of bilinearly sampled points in each bin of a region.

Each roi row is ``[batch_index, x1, y1, x2, y2]``; scaled by ``spatial_scale`` (and shifted
by half a pixel with ``aligned``) it is divided into ``pooled_size`` bins, each sampled on
a ``sample_ratio`` x ``sample_ratio`` grid (adaptive: ``ceil(roi size / pooled size)``
when ``sample_ratio`` <= 0). ``position_sensitive`` reads bin (ph, pw) of output channel
c from input channel ``c * ph_total * pw_total + ph * pw_total + pw`` (R-FCN). The
sampling rules (points outside ``[-1, size]`` contribute 0, others clamp to the border)
are MXNet's CPU kernel's; the rois get a zero gradient.
"""
import math

import numba
import numpy as np

from ..base import parse_bool, parse_float, parse_int
from .common import int_shape, kernel_array, zero_grad
from .registry import Param, ShapeError, register
from .roi import RoiOperator, _pooled_size

__all__ = []


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _corners(y, x, height, width):
    """(y_low, y_high, x_low, x_high, w1..w4) of the bilinear sample at (y, x); y_low -1
    marks a point outside the feature map."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return -1, -1, -1, -1, 0.0, 0.0, 0.0, 0.0
    y = max(y, 0.0)
    x = max(x, 0.0)
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_low = y_high = height - 1
        y = float(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_low = x_high = width - 1
        x = float(x_low)
    else:
        x_high = x_low + 1
    ly, lx = y - y_low, x - x_low
    hy, hx = 1.0 - ly, 1.0 - lx
    return y_low, y_high, x_low, x_high, hy * hx, hy * lx, ly * hx, ly * lx


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _geometry(roi, scale, aligned, pooled_h, pooled_w, ratio):
    offset = 0.5 if aligned else 0.0
    start_w = roi[1] * scale - offset
    start_h = roi[2] * scale - offset
    roi_w = roi[3] * scale - offset - start_w
    roi_h = roi[4] * scale - offset - start_h
    if not aligned:
        roi_w = max(roi_w, 1.0)
        roi_h = max(roi_h, 1.0)
    grid_h = ratio if ratio > 0 else int(math.ceil(roi_h / pooled_h))
    grid_w = ratio if ratio > 0 else int(math.ceil(roi_w / pooled_w))
    return start_h, start_w, roi_h / pooled_h, roi_w / pooled_w, grid_h, grid_w


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _roi_align(data, rois, scale, aligned, ratio, sensitive, out, dy, grad):
    """Forward into ``out`` when ``dy`` is empty, else accumulate the gradient of ``dy``
    into ``grad``."""
    height, width = data.shape[2], data.shape[3]
    n_rois, channels, pooled_h, pooled_w = out.shape
    backward = dy.size > 0
    for n in range(n_rois):
        index = int(rois[n, 0])
        if index < 0:
            if not backward:
                out[n] = 0
            continue
        start_h, start_w, bin_h, bin_w, grid_h, grid_w = _geometry(
            rois[n], scale, aligned, pooled_h, pooled_w, ratio)
        count = grid_h * grid_w
        for c in range(channels):
            for ph in range(pooled_h):
                for pw in range(pooled_w):
                    c_in = c * pooled_h * pooled_w + ph * pooled_w + pw if sensitive else c
                    total = 0.0
                    for iy in range(grid_h):
                        y = start_h + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                        for ix in range(grid_w):
                            x = start_w + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                            y0, y1, x0, x1, w1, w2, w3, w4 = _corners(y, x, height, width)
                            if y0 < 0:
                                continue
                            if backward:
                                g = dy[n, c, ph, pw] / count
                                grad[index, c_in, y0, x0] += g * w1
                                grad[index, c_in, y0, x1] += g * w2
                                grad[index, c_in, y1, x0] += g * w3
                                grad[index, c_in, y1, x1] += g * w4
                            else:
                                total += (w1 * data[index, c_in, y0, x0]
                                          + w2 * data[index, c_in, y0, x1]
                                          + w3 * data[index, c_in, y1, x0]
                                          + w4 * data[index, c_in, y1, x1])
                    if not backward:
                        out[n, c, ph, pw] = total / count


@register
class ROIAlign(RoiOperator):
    """Bilinear ROI align of ``data`` (N, C, H, W) for ``rois`` (R, 5): output
    (R, C, h, w), or (R, C / (h * w), h, w) when ``position_sensitive``."""
    name = '_contrib_ROIAlign'
    aliases = ('_npx_roi_align',)
    params = (Param('pooled_size', _pooled_size, doc='Output (h, w) of each region.'),
              Param('spatial_scale', parse_float,
                    doc='Feature map size over image size (1 / total stride).'),
              Param('sample_ratio', parse_int, -1,
                    'Samples per bin side; adaptive when <= 0.'),
              Param('position_sensitive', parse_bool, False,
                    'Position-sensitive pooling (R-FCN).'),
              Param('aligned', parse_bool, False,
                    'Half-pixel offset of the box corners (Detectron2).'))

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = self.input_shapes(in_shapes)
        if shapes is None:
            return [int_shape(s) for s in in_shapes], list(out_shapes), []
        dshape, rshape = shapes
        bins = self.pooled_size[0] * self.pooled_size[1]
        channels = dshape[1]
        if self.position_sensitive:
            if channels % bins:
                raise ShapeError('ROIAlign: with position_sensitive the %d input channels '
                                 'must divide by pooled_size %s' % (channels, self.pooled_size))
            channels //= bins
        return [dshape, rshape], [(rshape[0], channels) + tuple(self.pooled_size)], []

    def _run(self, data, rois, out, dy, grad):
        _roi_align(np.ascontiguousarray(kernel_array(data)),
                   np.ascontiguousarray(kernel_array(rois)),
                   float(np.float32(self.spatial_scale)),
                   self.aligned, self.sample_ratio, self.position_sensitive, out, dy, grad)

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        target = np.empty(out.shape, np.float64)
        self._run(in_data[0], in_data[1], target, np.zeros((0, 1, 1, 1)),
                  np.zeros((1, 1, 1, 1)))
        if req[0] == 'write':
            out[...] = target
        elif req[0] == 'add':
            out += target.astype(out.dtype)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        grad = np.zeros(in_grad[0].shape, np.float64)
        dy = out_grad[0]
        self._run(in_data[0], in_data[1], np.empty(dy.shape), np.ascontiguousarray(
            dy, np.float64), grad)
        if req[0] == 'write':
            in_grad[0][...] = grad
        else:
            in_grad[0] += grad.astype(in_grad[0].dtype)
