"""Vision layers: Crop, ROIPooling, ROIAlign, GridGenerator, BilinearSampler and
SpatialTransformer.

ROIPooling is ONNX's MaxRoiPool and ROIAlign its RoiAlign (the same Caffe / Detectron
kernels MXNet's CPU code follows); symmod's treatment of a roi with an invalid batch
index (zeros) is added around them, since ONNX leaves that undefined. Bilinear sampling
is GridSample (opset 16 on) with corners aligned and zero padding, MXNet's convention;
the grids themselves are matrix products with the constant target grid symmod computes.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes, split, unsqueeze

GRID_SAMPLE_SINCE = 16
ROI_ALIGN_HALF_PIXEL_SINCE = 16


# ---- Crop ------------------------------------------------------------------------------
@translator('Crop')
def crop(g, node):
    op, x = node.op, node.input(0)
    in_shape, out_shape = node.in_shape(0), node.out_shape(0)
    moving = {2, 3} & (set(node.in_varying(0)) | set(node.out_varying(0)))
    if not moving:
        top, left = op._offset(in_shape, out_shape)     # symmod's own rule, checks included
        slice_axes(g, x, [top, left], [top + out_shape[2], left + out_shape[3]], [2, 3],
                   out=node.outputs[0])
        return
    spatial = g.int64s([2, 3], 'hw_axes')
    if op.num_args == 2:
        size = g.add('Gather', [g.add('Shape', [node.input(1)], hint=node.name + '_like'),
                                spatial], hint=node.name + '_size')
    else:
        size = g.int64s(list(op.h_w), 'size')
    if op.center_crop:
        whole = g.add('Gather', [g.add('Shape', [x], hint=node.name + '_shape'), spatial],
                      hint=node.name + '_in_hw')
        room = g.add('Sub', [whole, size], hint=node.name + '_room')
        starts = g.add('Div', [room, g.int64s([2], 'two')], hint=node.name + '_starts')
    else:
        starts = g.int64s(list(op.offset), 'starts')
    ends = g.add('Add', [starts, size], hint=node.name + '_ends')
    g.add('Slice', [x, starts, ends, spatial], [node.outputs[0]])


# ---- regions of interest ---------------------------------------------------------------
def _split_rois(g, node):
    """(batch index column (R, 1), boxes (R, 4)) of the rois input."""
    return split(g, node.input(1), 1, 2, [1, 4], hint=node.name + '_rois')


def _zero_rows_where(g, node, invalid, y):
    """``y`` (R, C, h, w) with the rows of rois where ``invalid`` (R, 1) holds set to 0."""
    mask = unsqueeze(g, invalid, [2, 3], hint=node.name + '_mask')
    zero = scalar(g, 0, node.out_dtype(), 'zero')
    return g.add('Where', [mask, zero, y], [node.outputs[0]])


@translator('ROIPooling')
def roi_pooling(g, node):
    """MaxRoiPool; a batch index outside [0, N) (C's int() truncation) gives zeros."""
    op, dtype = node.op, node.in_dtype(1)
    index, boxes = _split_rois(g, node)
    shape = g.add('Shape', [node.input(0)], hint=node.name + '_shape')
    count = cast(g, g.add('Gather', [shape, g.int64s([0], 'batch_axis')],
                          hint=node.name + '_n'), dtype, hint=node.name + '_nf')
    low = g.add('LessOrEqual', [index, scalar(g, -1, dtype, 'minus_one')],
                hint=node.name + '_low')
    high = g.add('GreaterOrEqual', [index, count], hint=node.name + '_high')
    invalid = g.add('Or', [low, high], hint=node.name + '_invalid')
    last = g.add('Sub', [count, scalar(g, 1, dtype, 'one')], hint=node.name + '_last')
    safe = g.add('Min', [g.add('Max', [index, scalar(g, 0, dtype, 'zero')],
                               hint=node.name + '_pos'), last], hint=node.name + '_safe')
    rois = g.add('Concat', [safe, boxes], hint=node.name + '_rois', axis=1)
    pooled = g.add('MaxRoiPool', [node.input(0), rois], hint=node.name + '_pooled',
                   pooled_shape=list(op.pooled_size), spatial_scale=float(op.spatial_scale))
    _zero_rows_where(g, node, invalid, pooled)


@translator('_contrib_ROIAlign')
def roi_align(g, node):
    """RoiAlign in avg mode: MXNet's ``aligned`` is ONNX's half_pixel coordinate mode
    (opset 16 on; before, RoiAlign knows only the unaligned form), ``sample_ratio`` <= 0
    the adaptive sampling_ratio 0; position-sensitive pooling reads each bin from its
    own channel group of an ordinary RoiAlign over all channels."""
    op, dtype = node.op, node.in_dtype(1)
    if op.aligned and g.opset < ROI_ALIGN_HALF_PIXEL_SINCE:
        node.fail('aligned=True is RoiAlign\'s coordinate_transformation_mode="half_pixel", '
                  'which needs opset %d or newer (opset_version=%d)'
                  % (ROI_ALIGN_HALF_PIXEL_SINCE, ROI_ALIGN_HALF_PIXEL_SINCE))
    index, boxes = _split_rois(g, node)
    flat_index = reshape_to(g, index, [-1], hint=node.name + '_index')
    batch = g.add('Max', [cast(g, flat_index, np.int64, hint=node.name + '_int'),
                          g.constant(np.asarray(0, np.int64), 'zero')],
                  hint=node.name + '_batch')
    height, width = op.pooled_size
    attrs = dict(mode='avg', output_height=height, output_width=width,
                 sampling_ratio=max(op.sample_ratio, 0), spatial_scale=float(op.spatial_scale))
    if g.opset >= ROI_ALIGN_HALF_PIXEL_SINCE:
        attrs['coordinate_transformation_mode'] = ('half_pixel' if op.aligned
                                                   else 'output_half_pixel')
    pooled = g.add('RoiAlign', [node.input(0), boxes, batch], hint=node.name + '_pooled',
                   **attrs)
    if op.position_sensitive:
        pooled = _position_sensitive(g, node, pooled, height * width)
    invalid = g.add('LessOrEqual', [index, scalar(g, -1, dtype, 'minus_one')],
                    hint=node.name + '_invalid')
    if op.aligned and op.sample_ratio <= 0:
        invalid_nan = _empty_sampling_grid(g, node, boxes)
        nan_mask = unsqueeze(g, invalid_nan, [2, 3], hint=node.name + '_nanmask')
        pooled = g.add('Where', [nan_mask, scalar(g, np.nan, node.out_dtype(), 'nan'), pooled],
                       hint=node.name + '_nan')
    _zero_rows_where(g, node, invalid, pooled)


def _position_sensitive(g, node, pooled, bins):
    """Bin k of output channel c comes from channel c * bins + k of ``pooled``."""
    channels = node.out_shape(0)[1]
    flat = reshape_to(g, pooled, [0, channels, bins * bins], hint=node.name + '_groups')
    picked = g.add('Gather', [flat, g.int64s([k * bins + k for k in range(bins)], 'bins')],
                   hint=node.name + '_picked', axis=2)
    return reshape_to(g, picked, [0, channels] + list(node.op.pooled_size),
                      hint=node.name + '_ps')


def _empty_sampling_grid(g, node, boxes):
    """(R, 1) true where symmod's adaptive sampling grid has no points (0 / 0 = NaN): an
    aligned box with a height or width in (-pooled, 0], computed in double as symmod."""
    op = node.op
    corners = cast(g, boxes, np.float64, hint=node.name + '_corners')
    scale = g.constant(np.asarray(float(np.float32(op.spatial_scale)), np.float64), 'scale')
    shifted = g.add('Sub', [g.add('Mul', [corners, scale], hint=node.name + '_scaled'),
                            g.constant(np.asarray(0.5), 'half')], hint=node.name + '_shift')
    start, end = (g.add('Gather', [shifted, g.int64s(cols, 'cols')], hint=node.name + '_c',
                        axis=1) for cols in ([0, 1], [2, 3]))
    size = g.add('Sub', [end, start], hint=node.name + '_size')      # (w, h) per roi
    height, width = node.op.pooled_size
    grid = g.add('Ceil', [g.add('Div', [size, g.constant(np.asarray([width, height],
                                                                     np.float64), 'bins')],
                                hint=node.name + '_per_bin')], hint=node.name + '_grid')
    points = reduce(g, 'ReduceProd', grid, [1], True, hint=node.name + '_points')
    return g.add('Equal', [points, g.constant(np.asarray(0.0), 'zero')],
                 hint=node.name + '_empty')


# ---- sampling grids --------------------------------------------------------------------
def _fixed_spatial(node, index, axes):
    moving = set(axes) & set(node.in_varying(index))
    if moving:
        node.fail('input %d varies in dimensions %s; the sampling grid is computed at export '
                  'time for a fixed height and width' % (index, sorted(moving)))


def _affine_grid(g, node, theta, target_shape, dtype):
    """(N, 2, H, W) source positions: the (N, 6) affine matrices times symmod's constant
    (3, H * W) target grid."""
    height, width = target_shape
    target = node.run([np.zeros((1, 6), dtype)])[1] if node.op.name == 'GridGenerator' \
        else node.run([np.zeros((1, 1, 1, 1), dtype), np.zeros((1, 6), dtype)])[1]
    matrices = reshape_to(g, theta, [-1, 2, 3], hint=node.name + '_theta')
    grid = g.add('MatMul', [matrices, g.constant(target.astype(dtype), 'target_grid')],
                 hint=node.name + '_grid')
    return reshape_to(g, grid, [-1, 2, height, width], hint=node.name + '_grid4')


@translator('GridGenerator')
def grid_generator(g, node):
    op, dtype = node.op, node.out_dtype()
    if op.transform_type == 'affine':
        grid = _affine_grid(g, node, node.input(0), op.target_shape, dtype)
        g.add('Identity', [grid], [node.outputs[0]])
        return
    _fixed_spatial(node, 0, (2, 3))
    height, width = node.in_shape(0)[2:]
    positions = node.run([np.zeros((1, 2, height, width), dtype)])[1]
    scale = np.array([(width - 1.0) / 2.0, (height - 1.0) / 2.0], dtype)[:, None, None]
    moved = g.add('Add', [node.input(0), g.constant(positions, 'positions')],
                  hint=node.name + '_moved')
    scaled = g.add('Div', [moved, g.constant(scale, 'scale')], hint=node.name + '_scaled')
    g.add('Sub', [scaled, scalar(g, 1, dtype, 'one')], [node.outputs[0]])


def grid_sample(g, node, data, grid, out):
    """GridSample at ``grid`` (N, 2, h, w) in MXNet's convention: corners aligned, zeros
    outside."""
    points = g.add('Transpose', [grid], hint=node.name + '_points', perm=[0, 2, 3, 1])
    mode = 'linear' if g.opset >= 20 else 'bilinear'
    return g.add('GridSample', [data, points], [out], mode=mode, padding_mode='zeros',
                 align_corners=1)


@translator('BilinearSampler', since=GRID_SAMPLE_SINCE)
def bilinear_sampler(g, node):
    grid_sample(g, node, node.input(0), node.input(1), node.outputs[0])


@translator('SpatialTransformer', since=GRID_SAMPLE_SINCE)
def spatial_transformer(g, node):
    grid = _affine_grid(g, node, node.input(1), node.op.target_shape, node.out_dtype())
    grid_sample(g, node, node.input(0), grid, node.outputs[0])
