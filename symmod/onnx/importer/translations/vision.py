"""MaxRoiPool, RoiAlign and GridSample: symmod's ROIPooling, ROIAlign and BilinearSampler."""
import numpy as np

from ..registry import translator


def _sym():
    from .... import symbol
    return symbol


@translator('MaxRoiPool')
def max_roi_pool(g, node):
    return _sym().ROIPooling(node.sym(0), node.sym(1),
                             pooled_size=tuple(node.attrs['pooled_shape']),
                             spatial_scale=node.attrs.get('spatial_scale', 1.0), name=node.name)


@translator('RoiAlign')
def roi_align(g, node):
    """ROIAlign on rows ``[batch index, box]``; ONNX's half_pixel mode (opset 16's
    default) is MXNet's ``aligned``."""
    S = _sym()
    attrs = node.attrs
    if attrs.get('mode', 'avg') != 'avg':
        node.fail("mode='%s' (symmod's ROIAlign averages)" % attrs['mode'])
    default = 'half_pixel' if g.opset >= 16 else 'output_half_pixel'
    aligned = attrs.get('coordinate_transformation_mode', default) == 'half_pixel'
    pooled = (attrs.get('output_height', 1), attrs.get('output_width', 1))
    ratio = attrs.get('sampling_ratio', 0)
    scale = attrs.get('spatial_scale', 1.0)
    dtype = np.dtype(g.types.get(node.inputs[1], np.float32))
    index = S.reshape(S.Cast(node.sym(2), dtype=dtype.name), shape=(-1, 1))
    boxes = node.sym(1)
    rois = S.Concat(index, boxes, dim=1)
    out = S.contrib.ROIAlign(node.sym(0), rois, pooled_size=pooled, spatial_scale=scale,
                             sample_ratio=ratio if ratio > 0 else -1, aligned=aligned)
    if aligned and ratio <= 0:
        # ONNX divides by max(points, 1): a box whose adaptive grid is empty gives 0 where
        # symmod's average is 0 / 0
        shifted = boxes * scale - 0.5
        size = S.slice_axis(shifted, axis=1, begin=2, end=4) - S.slice_axis(
            shifted, axis=1, begin=0, end=2)
        per_bin = np.array([[pooled[1], pooled[0]]], dtype)
        bins = S.ceil(S.broadcast_div(size, g.new_param(node.name + '_bins', per_bin)))
        empty = S.reshape(S.prod(bins, axis=1) == 0, shape=(-1,))
        out = S.where(empty, S.zeros_like(out), out)
    return S.identity(out, name=node.name)


@translator('GridSample')
def grid_sample(g, node):
    attrs = node.attrs
    mode = attrs.get('mode', 'linear' if g.opset >= 20 else 'bilinear')
    if mode not in ('bilinear', 'linear') or attrs.get('padding_mode', 'zeros') != 'zeros' \
            or attrs.get('align_corners', 0) != 1:
        node.fail("mode=%s, padding_mode=%s, align_corners=%s (symmod's BilinearSampler is "
                  "bilinear, zero padding, corners aligned)"
                  % (mode, attrs.get('padding_mode', 'zeros'), attrs.get('align_corners', 0)))
    shape = node.shape(0)
    if shape is not None and len(shape) != 4:
        node.fail('a %d-D input (BilinearSampler samples 4-D NCHW data)' % len(shape))
    S = _sym()
    grid = S.transpose(node.sym(1), axes=(0, 3, 1, 2))
    return S.BilinearSampler(node.sym(0), grid, name=node.name)
