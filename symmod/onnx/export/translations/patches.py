"""Operators that average patches of feature maps: Correlation (FlowNet) and
_contrib_PSROIPooling (R-FCN), written as slices, products and poolings / matrix
products, in the arithmetic of symmod's kernels.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes, split

__all__ = []


@translator('Correlation')
def correlation(g, node):
    """One channel per displacement: the product (or absolute difference) of the padded
    maps, one shifted by the displacement, summed over channels, averaged over each
    ``kernel_size`` window (AveragePool with stride ``stride1``) and over the channels."""
    op, name = node.op, node.name
    if node.in_varying(0) - {0} or node.in_varying(1) - {0}:
        node.fail('spatial dimensions that vary (the displacements are fixed at export)')
    channels, height, width = node.in_shape(0)[1:]
    p, k, s1, s2 = op.pad_size, op.kernel_size, op.stride1, op.stride2
    top_h, top_w = node.out_shape(0)[2:]
    radius = op.max_displacement // s2
    grid = 2 * radius + 1
    pads = [0, 0, p, p, 0, 0, p, p]
    padded = [g.add('Pad', [node.input(i), g.int64s(pads, 'pads')], hint='%s_pad%d' % (name, i))
              for i in range(2)]
    rows, cols = (top_h - 1) * s1 + k, (top_w - 1) * s1 + k
    y1 = x1 = op.max_displacement
    first = slice_axes(g, padded[0], [y1, x1], [y1 + rows, x1 + cols], [2, 3],
                       hint=name + '_first')
    maps = []
    for tc in range(grid * grid):
        dy, dx = (tc // grid - radius) * s2, (tc % grid - radius) * s2
        second = slice_axes(g, padded[1], [y1 + dy, x1 + dx], [y1 + dy + rows, x1 + dx + cols],
                            [2, 3], hint='%s_shift%d' % (name, tc))
        if op.is_multiply:
            pair = g.add('Mul', [first, second], hint='%s_prod%d' % (name, tc))
        else:
            pair = g.add('Abs', [g.add('Sub', [first, second], hint='%s_diff%d' % (name, tc))],
                         hint='%s_absdiff%d' % (name, tc))
        maps.append(reduce(g, 'ReduceSum', pair, [1], keepdims=True,
                           hint='%s_sum%d' % (name, tc)))
    stacked = maps[0] if len(maps) == 1 else g.add('Concat', maps, hint=name + '_maps', axis=1)
    pooled = g.add('AveragePool', [stacked], hint=name + '_window', kernel_shape=[k, k],
                   strides=[s1, s1])
    g.add('Div', [pooled, scalar(g, channels, node.out_dtype(), 'channels')],
          [node.outputs[0]])


def _round_away(g, x, hint):
    """C's round(): halves away from zero."""
    magnitude = g.add('Floor', [g.add('Add', [g.add('Abs', [x], hint=hint + '_abs'),
                                              scalar(g, 0.5, np.float32, 'half')],
                                      hint=hint + '_half')], hint=hint + '_floor')
    return g.add('Mul', [g.add('Sign', [x], hint=hint + '_sign'), magnitude], hint=hint)


def _bin_masks(g, node, start, end, size, pooled, hint):
    """(R, pooled, size) float masks of the positions inside each bin along one axis, and
    the (R, pooled, 1) bin lengths: bin ``b`` spans ``[floor(b * bin + start),
    ceil((b + 1) * bin + start))`` clipped to ``[0, size]``, ``bin = max(end - start, 0.1)
    / pooled`` (float32, as the kernel)."""
    f32 = np.float32
    length = g.add('Div', [g.add('Max', [g.add('Sub', [end, start], hint=hint + '_len'),
                                         scalar(g, 0.1, f32, 'tenth')], hint=hint + '_minlen'),
                           scalar(g, pooled, f32, 'pooled')], hint=hint + '_bin')
    steps = g.constant(np.arange(pooled, dtype=f32)[None, :], hint + '_steps')
    low = g.add('Floor', [g.add('Add', [g.add('Mul', [steps, length], hint=hint + '_lo_off'),
                                        start], hint=hint + '_lo_f')], hint=hint + '_lo_floor')
    high = g.add('Ceil', [g.add('Add', [g.add('Mul', [g.add('Add', [
        steps, scalar(g, 1, f32, 'one')], hint=hint + '_next'), length], hint=hint + '_hi_off'),
        start], hint=hint + '_hi_f')], hint=hint + '_hi_ceil')
    bounds = [g.add('Clip', [b, scalar(g, 0, f32, 'zero'), scalar(g, size, f32, 'size')],
                    hint=hint + '_clip') for b in (low, high)]
    low, high = (reshape_to(g, b, [0, pooled, 1], hint=hint + '_col') for b in bounds)
    positions = g.constant(np.arange(size, dtype=f32)[None, None, :], hint + '_positions')
    inside = g.add('And', [g.add('GreaterOrEqual', [positions, low], hint=hint + '_ge'),
                           g.add('Less', [positions, high], hint=hint + '_lt')],
                   hint=hint + '_inside')
    extent = g.add('Max', [g.add('Sub', [high, low], hint=hint + '_extent'),
                           scalar(g, 0, f32, 'zero')], hint=hint + '_nonneg')
    return cast(g, inside, f32, hint=hint + '_mask'), extent


@translator('_contrib_PSROIPooling')
def psroi_pooling(g, node):
    """Each roi's bin sums (row mask x data x column mask, two MatMuls over all channels),
    the bin's own channel picked ((c * group + gh) * group + gw), divided by its area (0
    for an empty bin). A batch index outside [0, N) is clamped (symmod reads outside the
    data there)."""
    op, name, f32 = node.op, node.name, np.float32
    if node.in_varying(0) - {0}:
        node.fail('spatial or channel dimensions that vary')
    if node.in_dtype(0) != f32:
        node.fail('float32 data only (found %s)' % node.in_dtype(0))
    channels, height, width = node.in_shape(0)[1:]
    pooled, group, out_dim = op.pooled_size, op.group, op.output_dim
    rois = cast(g, node.input(1), f32, hint=name + '_rois32') if node.in_dtype(1) != f32 \
        else node.input(1)
    index, x0, y0, x1, y1 = split(g, rois, 1, 5, None, hint=name + '_roi')
    scale = scalar(g, op.spatial_scale, f32, 'scale')
    one = scalar(g, 1, f32, 'one')

    def scaled(v, plus_one, hint):
        v = _round_away(g, v, hint + '_round')
        if plus_one:
            v = g.add('Add', [v, one], hint=hint + '_p1')
        return g.add('Mul', [v, scale], hint=hint + '_scaled')
    rows, row_len = _bin_masks(g, node, scaled(y0, False, name + '_y0'),
                               scaled(y1, True, name + '_y1'), height, pooled, name + '_h')
    cols, col_len = _bin_masks(g, node, scaled(x0, False, name + '_x0'),
                               scaled(x1, True, name + '_x1'), width, pooled, name + '_w')
    count = cast(g, g.add('Gather', [g.add('Shape', [node.input(0)], hint=name + '_shape'),
                                     g.int64s([0], 'batch_axis')], hint=name + '_n'),
                 f32, hint=name + '_nf')
    batch = g.add('Min', [g.add('Max', [index, scalar(g, 0, f32, 'zero')], hint=name + '_pos'),
                          g.add('Sub', [count, one], hint=name + '_last')], hint=name + '_safe')
    batch = cast(g, reshape_to(g, batch, [-1], hint=name + '_bflat'), np.int64,
                 hint=name + '_batch')
    data = g.add('Gather', [node.input(0), batch], hint=name + '_data', axis=0)  # R C H W
    # rows (R, P, H) @ data as (R, H, C*W), then as (R, P*C, W) @ columns (R, W, P)
    by_row = reshape_to(g, g.add('Transpose', [data], hint=name + '_hcw', perm=[0, 2, 1, 3]),
                        [0, height, channels * width], hint=name + '_by_row')
    row_sums = reshape_to(g, g.add('MatMul', [rows, by_row], hint=name + '_rowsum'),
                          [0, pooled * channels, width], hint=name + '_row_sums')
    cols = g.add('Transpose', [cols], hint=name + '_cols', perm=[0, 2, 1])
    sums = reshape_to(g, g.add('MatMul', [row_sums, cols], hint=name + '_binsum'),
                      [0, pooled, channels, pooled], hint=name + '_pcp')
    sums = g.add('Transpose', [sums], hint=name + '_sums', perm=[0, 2, 1, 3])   # R C P P
    picks = [((c * group + min(ph * group // pooled, group - 1)) * group
              + min(pw * group // pooled, group - 1)) * pooled * pooled + ph * pooled + pw
             for c in range(out_dim) for ph in range(pooled) for pw in range(pooled)]
    flat = reshape_to(g, sums, [0, channels * pooled * pooled], hint=name + '_flat')
    picked = reshape_to(g, g.add('Gather', [flat, g.int64s(picks, name + '_picks')],
                                 hint=name + '_picked', axis=1),
                        [0, out_dim, pooled, pooled], hint=name + '_bins')
    area = g.add('Mul', [reshape_to(g, row_len, [0, 1, pooled, 1], hint=name + '_rl'),
                         reshape_to(g, col_len, [0, 1, 1, pooled], hint=name + '_cl')],
                 hint=name + '_area')
    empty = g.add('LessOrEqual', [area, scalar(g, 0, f32, 'zero')], hint=name + '_empty')
    safe_area = g.add('Where', [empty, one, area], hint=name + '_safe_area')
    mean = g.add('Div', [picked, safe_area], hint=name + '_mean')
    g.add('Where', [empty, scalar(g, 0, f32, 'zero'), mean], [node.outputs[0]])
