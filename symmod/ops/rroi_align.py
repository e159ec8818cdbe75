"""RROIAlign: ROI align over rotated regions (text detection, Ma et al. 2018).

Each roi row is ``[batch_index, center_x, center_y, width, height, angle]`` (angle in
degrees, counter-clockwise); scaled by ``spatial_scale``, the box is divided into
``pooled_size`` bins of the rotated frame, each the average of bilinear samples on a
``sampling_ratio`` grid (adaptive, ``ceil(roi size / pooled size)``, when it is <= 0).
Sampling follows ROIAlign's rules (points outside ``[-1, size]`` read 0). MXNet 1.9.1
computes this operator forward only: its backward is an error.
"""
import math

import numba
import numpy as np

from ..base import MXNetError, parse_float, parse_int
from .common import int_shape, kernel_array, store_from
from .registry import Operator, Param, ShapeError, register
from .roi import _pooled_size
from .roi_align import _corners

__all__ = []


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _rroi_align(data, rois, scale, ratio, out):
    height, width = data.shape[2], data.shape[3]
    n_rois, channels, pooled_h, pooled_w = out.shape
    for n in range(n_rois):
        index = int(rois[n, 0])
        center_w, center_h = rois[n, 1] * scale, rois[n, 2] * scale
        roi_w, roi_h = max(rois[n, 3] * scale, 1.0), max(rois[n, 4] * scale, 1.0)
        theta = rois[n, 5] * math.pi / 180.0
        cos_t, sin_t = math.cos(theta), math.sin(theta)
        bin_h, bin_w = roi_h / pooled_h, roi_w / pooled_w
        grid_h = ratio if ratio > 0 else int(math.ceil(roi_h / pooled_h))
        grid_w = ratio if ratio > 0 else int(math.ceil(roi_w / pooled_w))
        count = grid_h * grid_w
        for ph in range(pooled_h):
            for pw in range(pooled_w):
                total = np.zeros(channels)
                for iy in range(grid_h):
                    yy = -roi_h / 2.0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                    for ix in range(grid_w):
                        xx = -roi_w / 2.0 + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                        x = xx * cos_t + yy * sin_t + center_w
                        y = yy * cos_t - xx * sin_t + center_h
                        y0, y1, x0, x1, w1, w2, w3, w4 = _corners(y, x, height, width)
                        if y0 < 0:
                            continue
                        for c in range(channels):
                            plane = data[index, c]
                            total[c] += (w1 * plane[y0, x0] + w2 * plane[y0, x1]
                                         + w3 * plane[y1, x0] + w4 * plane[y1, x1])
                for c in range(channels):
                    out[n, c, ph, pw] = total[c] / count


@register
class RROIAlign(Operator):
    """Rotated ROI align of ``data`` (N, C, H, W) for ``rois`` (R, 6): output
    (R, C, h, w)."""
    name = '_contrib_RROIAlign'
    params = (Param('pooled_size', _pooled_size, doc='Output (h, w) of each region.'),
              Param('spatial_scale', parse_float,
                    doc='Feature map size over image size (1 / total stride), in [0, 1].'),
              Param('sampling_ratio', parse_int, -1,
                    'Samples per bin side; adaptive when <= 0.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if not 0.0 <= self.spatial_scale <= 1.0:
            raise ShapeError('RROIAlign: spatial_scale must be in [0, 1], found %s'
                             % self.spatial_scale)

    def list_arguments(self):
        return ['data', 'rois']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, rshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is None or rshape is None:
            return [dshape, rshape], list(out_shapes), []
        if len(dshape) != 4:
            raise ShapeError('RROIAlign: data must be 4D (batch, channel, y, x), found %s'
                             % (dshape,))
        if len(rshape) != 2 or rshape[1] != 6:
            raise ShapeError('RROIAlign: rois must be (num_rois, 6) rows of [batch_index, '
                             'center_x, center_y, width, height, angle], found %s' % (rshape,))
        return [dshape, rshape], [(rshape[0], dshape[1]) + tuple(self.pooled_size)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        out = np.empty(out_data[0].shape, np.float64)
        _rroi_align(np.ascontiguousarray(kernel_array(in_data[0])),
                    np.ascontiguousarray(kernel_array(in_data[1])),
                    float(np.float32(self.spatial_scale)), self.sampling_ratio, out)
        store_from(out_data[0], req[0], out.astype(out_data[0].dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise MXNetError('RROIAlign: Backward is not supported.')
