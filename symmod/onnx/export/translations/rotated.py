"""_contrib_RROIAlign: ROI align over rotated boxes, as symmod's kernel computes it in
float64: every bin's ``sampling_ratio`` x ``sampling_ratio`` sample points rotated into
the image, their bilinear corners gathered per roi (GatherND over the flattened image of
the roi's batch item; points outside ``[-1, size]`` read 0, corners past the last
row/column fold onto it, as ROIAlign), averaged per bin.

The adaptive grid (``sampling_ratio`` <= 0: ``ceil(roi size / pooled size)`` samples,
a number read from the data) has no fixed-size form and is refused.
"""
import math

import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes, unsqueeze

__all__ = []

_F64 = np.float64


def _axis_samples(g, name, size, pooled, grid, axis):
    """Offsets ``-size / 2 + p * bin + (i + 0.5) * bin / grid`` from the box centre along
    one rotated axis, shaped to broadcast as (R, Ph, G, Pw, G)."""
    bin_size = g.add('Div', [size, scalar(g, pooled, _F64, 'pooled')], hint=name + '_bin')
    start = g.add('Div', [g.add('Neg', [size], hint=name + '_neg'), scalar(g, 2.0, _F64, 'two')],
                  hint=name + '_start')
    shape = [1, 1, 1, 1, 1]
    shape[1 + 2 * axis], shape[2 + 2 * axis] = pooled, 1
    bins = g.constant(np.arange(pooled, dtype=_F64).reshape(shape), name + '_bins')
    shape[1 + 2 * axis], shape[2 + 2 * axis] = 1, grid
    steps = g.constant((np.arange(grid, dtype=_F64) + 0.5).reshape(shape), name + '_steps')
    size5 = reshape_to(g, bin_size, [-1, 1, 1, 1, 1], hint=name + '_bin5')
    start5 = reshape_to(g, start, [-1, 1, 1, 1, 1], hint=name + '_start5')
    base = g.add('Add', [start5, g.add('Mul', [bins, size5], hint=name + '_pb')],
                 hint=name + '_base')
    return g.add('Add', [base, g.add('Div', [g.add('Mul', [steps, size5], hint=name + '_ib'),
                                             scalar(g, grid, _F64, 'grid')],
                                     hint=name + '_frac')], hint=name + '_offset')


def _corner_axis(g, name, v, size):
    """(low, high, weight of high) along one axis of in-range points, ROIAlign's rule."""
    zero, one = scalar(g, 0, _F64, 'zero'), scalar(g, 1, _F64, 'one')
    v = g.add('Max', [v, zero], hint=name + '_pos')
    low = g.add('Floor', [v], hint=name + '_low')
    last = scalar(g, size - 1, _F64, 'last')
    fold = g.add('GreaterOrEqual', [low, last], hint=name + '_fold')
    low = g.add('Where', [fold, last, low], hint=name + '_lowc')
    high = g.add('Where', [fold, last, g.add('Add', [low, one], hint=name + '_next')],
                 hint=name + '_high')
    frac = g.add('Where', [fold, zero, g.add('Sub', [v, low], hint=name + '_l')],
                 hint=name + '_frac')
    return low, high, frac


@translator('_contrib_RROIAlign')
def rroi_align(g, node):
    op, name = node.op, node.name
    if op.sampling_ratio <= 0:
        node.fail('sampling_ratio <= 0 takes ceil(roi size / pooled size) samples per bin, '
                  'a count read from each roi (no fixed-size ONNX form); give '
                  'sampling_ratio > 0')
    if node.in_varying(0) - {0}:
        node.fail('channel or spatial dimensions that vary')
    _, channels, height, width = node.in_shape(0)
    pooled_h, pooled_w = op.pooled_size
    grid = op.sampling_ratio
    rois = cast(g, node.input(1), _F64, hint=name + '_rois64')
    col = [slice_axes(g, rois, [i], [i + 1], [1], hint='%s_r%d' % (name, i)) for i in range(6)]
    scale = scalar(g, float(np.float32(op.spatial_scale)), _F64, 'scale')
    one = scalar(g, 1.0, _F64, 'one')
    cx, cy = (g.add('Mul', [c, scale], hint=name + '_centre') for c in col[1:3])
    roi_w, roi_h = (g.add('Max', [g.add('Mul', [c, scale], hint=name + '_size'), one],
                          hint=name + '_side') for c in col[3:5])
    theta = g.add('Div', [g.add('Mul', [col[5], scalar(g, math.pi, _F64, 'pi')],
                                hint=name + '_deg'), scalar(g, 180.0, _F64, 'half_turn')],
                  hint=name + '_theta')
    cos_t, sin_t = (reshape_to(g, g.add(f, [theta], hint=name + '_' + f.lower()),
                               [-1, 1, 1, 1, 1], hint=name + '_' + f.lower() + '5')
                    for f in ('Cos', 'Sin'))
    yy = _axis_samples(g, name + '_yy', roi_h, pooled_h, grid, 0)     # (R, Ph, G, 1, 1)
    xx = _axis_samples(g, name + '_xx', roi_w, pooled_w, grid, 1)     # (R, 1, 1, Pw, G)
    cx5, cy5 = (reshape_to(g, c, [-1, 1, 1, 1, 1], hint=name + '_c5') for c in (cx, cy))
    x = g.add('Add', [g.add('Add', [g.add('Mul', [xx, cos_t], hint=name + '_xc'),
                                    g.add('Mul', [yy, sin_t], hint=name + '_ys')],
                            hint=name + '_xr'), cx5], hint=name + '_x')
    y = g.add('Add', [g.add('Sub', [g.add('Mul', [yy, cos_t], hint=name + '_yc'),
                                    g.add('Mul', [xx, sin_t], hint=name + '_xs')],
                            hint=name + '_yr'), cy5], hint=name + '_y')
    samples = pooled_h * grid * pooled_w * grid
    x, y = (reshape_to(g, v, [-1, samples], hint=name + '_flat') for v in (x, y))
    outside = g.add('Or', [
        g.add('Or', [g.add('Less', [y, scalar(g, -1, _F64, 'minus_one')], hint=name + '_ylo'),
                     g.add('Greater', [y, scalar(g, height, _F64, 'height')],
                           hint=name + '_yhi')], hint=name + '_yout'),
        g.add('Or', [g.add('Less', [x, scalar(g, -1, _F64, 'minus_one')], hint=name + '_xlo'),
                     g.add('Greater', [x, scalar(g, width, _F64, 'width')],
                           hint=name + '_xhi')], hint=name + '_xout')], hint=name + '_outside')
    y0, y1, ly = _corner_axis(g, name + '_cy', y, height)
    x0, x1, lx = _corner_axis(g, name + '_cx', x, width)
    batch = cast(g, reshape_to(g, col[0], [-1], hint=name + '_b'), np.int64,
                 hint=name + '_batch')
    image = g.add('Transpose', [reshape_to(g, g.add('Gather', [
        cast(g, node.input(0), _F64, hint=name + '_data64'), batch], hint=name + '_items',
        axis=0), [0, channels, height * width], hint=name + '_flat_items')],
        hint=name + '_pixels', perm=[0, 2, 1])                     # R, H*W, C
    w_f = scalar(g, width, _F64, 'width')
    hy, hx = (g.add('Sub', [one, v], hint=name + '_h') for v in (ly, lx))
    total = None
    for yy_, xx_, wy, wx, tag in ((y0, x0, hy, hx, 'a'), (y0, x1, hy, lx, 'b'),
                                  (y1, x0, ly, hx, 'c'), (y1, x1, ly, lx, 'd')):
        flat = g.add('Add', [g.add('Mul', [yy_, w_f], hint=name + '_row'), xx_],
                     hint=name + '_index')
        index = unsqueeze(g, cast(g, flat, np.int64, hint=name + '_int'), [2],
                          hint=name + '_nd')
        values = g.add('GatherND', [image, index], hint='%s_v%s' % (name, tag), batch_dims=1)
        weight = unsqueeze(g, g.add('Mul', [wy, wx], hint='%s_w%s' % (name, tag)), [2],
                           hint='%s_w%s' % (name, tag))
        term = g.add('Mul', [weight, values], hint='%s_t%s' % (name, tag))
        total = term if total is None else g.add('Add', [total, term], hint=name + '_sum')
    zero = scalar(g, 0, _F64, 'zero')
    total = g.add('Where', [unsqueeze(g, outside, [2], hint=name + '_omask'), zero, total],
                  hint=name + '_inside')                           # R, M, C
    binned = reshape_to(g, total, [0, pooled_h, grid, pooled_w, grid, channels],
                        hint=name + '_binned')
    summed = reduce(g, 'ReduceSum', binned, [2, 4], keepdims=False, hint=name + '_sums')
    mean = g.add('Div', [summed, scalar(g, grid * grid, _F64, 'count')], hint=name + '_mean')
    out = g.add('Transpose', [mean], hint=name + '_nchw', perm=[0, 3, 1, 2])
    cast(g, out, node.out_dtype(), out=node.outputs[0])
