"""Deformable convolutions v1 (_contrib_DeformableConvolution) and v2
(_contrib_ModulatedDeformableConvolution), at every opset.

ONNX's DeformConv (opset 19) samples as v2 does but not as v1 (MXNet's CPU kernel needs
taps inside ``[0, size)`` and folds corners past the last row/column back onto it), so
both are written out as symmod's kernel computes them, in float64: the moved tap
coordinates from a constant base grid plus the offsets, the four corners gathered per
deformable group (GatherND over the flattened image, corners outside reading 0), the
bilinear blend (times the mask for v2), then one MatMul per convolution group with the
weight. Memory is that of the sampled columns (batch x channels x taps x output pixels).
"""
import numpy as np

from ..registry import translator
from .common import cast, reshape_to, scalar, slice_axes, squeeze, unsqueeze

__all__ = []

_F64 = np.float64


def _base_grid(op, out_h, out_w):
    """(K, oh, ow) row and column of each regular tap."""
    kh, kw = op.kernel
    (sy, sx), (py, px), (dy, dx) = op.strides, op.pads, op.dilates
    taps_i, taps_j = np.divmod(np.arange(kh * kw), kw)
    rows = np.arange(out_h)[None, :, None] * sy - py + taps_i[:, None, None] * dy
    cols = np.arange(out_w)[None, None, :] * sx - px + taps_j[:, None, None] * dx
    shape = (kh * kw, out_h, out_w)
    return np.broadcast_to(rows, shape).astype(_F64), np.broadcast_to(cols, shape).astype(_F64)


@translator('_contrib_DeformableConvolution', '_contrib_ModulatedDeformableConvolution')
def deformable_convolution(g, node):
    op, name = node.op, node.name
    if node.in_varying(0) - {0}:
        node.fail('channel or spatial dimensions that vary')
    names = op.list_arguments()
    at = {n: i for i, n in enumerate(names)}
    _, channels, height, width = node.in_shape(0)
    out_h, out_w = node.out_shape(0)[2:]
    taps = op.kernel[0] * op.kernel[1]
    groups = op.num_deformable_group
    per_group = channels // groups
    pixels = out_h * out_w
    count = taps * pixels

    def wide(index, hint):
        return cast(g, node.input(index), _F64, hint=name + hint)
    offset = reshape_to(g, wide(at['offset'], '_offset64'), [0, groups, taps, 2, out_h, out_w],
                        hint=name + '_offsets')
    rows, cols = _base_grid(op, out_h, out_w)
    y = g.add('Add', [g.constant(rows, name + '_rows'),
                      squeeze(g, slice_axes(g, offset, [0], [1], [3], hint=name + '_dy'), [3],
                              hint=name + '_dy')], hint=name + '_y')    # N G K oh ow
    x = g.add('Add', [g.constant(cols, name + '_cols'),
                      squeeze(g, slice_axes(g, offset, [1], [2], [3], hint=name + '_dx'), [3],
                              hint=name + '_dx')], hint=name + '_x')
    y, x = (reshape_to(g, v, [0, groups, count], hint=name + '_flat') for v in (y, x))
    zero, one = scalar(g, 0, _F64, 'zero'), scalar(g, 1, _F64, 'one')
    h_f, w_f = scalar(g, height, _F64, 'height'), scalar(g, width, _F64, 'width')
    lower = zero if op.clamped else scalar(g, -1, _F64, 'minus_one')
    compare = 'GreaterOrEqual' if op.clamped else 'Greater'
    valid = g.add('And', [
        g.add('And', [g.add(compare, [y, lower], hint=name + '_y_lo'),
                      g.add('Less', [y, h_f], hint=name + '_y_hi')], hint=name + '_y_in'),
        g.add('And', [g.add(compare, [x, lower], hint=name + '_x_lo'),
                      g.add('Less', [x, w_f], hint=name + '_x_hi')], hint=name + '_x_in')],
        hint=name + '_valid')
    corners = {}
    for axis, v, size in (('y', y, height), ('x', x, width)):
        low = g.add('Floor', [v], hint='%s_%s0' % (name, axis))
        frac = g.add('Sub', [v, low], hint='%s_l%s' % (name, axis))
        high = g.add('Add', [low, one], hint='%s_%s1' % (name, axis))
        if op.clamped:      # a corner past the last row / column folds back onto it
            last = scalar(g, size - 1, _F64, 'last')
            fold = g.add('GreaterOrEqual', [low, last], hint='%s_fold_%s' % (name, axis))
            low = g.add('Where', [fold, last, low], hint='%s_%s0c' % (name, axis))
            high = g.add('Where', [fold, last, high], hint='%s_%s1c' % (name, axis))
            frac = g.add('Where', [fold, zero, frac], hint='%s_l%sc' % (name, axis))
        corners[axis] = (low, high, frac, size)
    # the image as (N, G, H*W, C/G): GatherND with two batch dims picks pixels per group
    image = g.add('Transpose', [reshape_to(g, wide(0, '_data64'),
                                           [0, groups, per_group, height * width],
                                           hint=name + '_image')],
                  hint=name + '_pixels', perm=[0, 1, 3, 2])

    def corner(yy, xx, hint):
        inside = g.add('And', [
            g.add('And', [g.add('GreaterOrEqual', [yy, zero], hint=hint + '_y0'),
                          g.add('Less', [yy, h_f], hint=hint + '_y1')], hint=hint + '_yin'),
            g.add('And', [g.add('GreaterOrEqual', [xx, zero], hint=hint + '_x0'),
                          g.add('Less', [xx, w_f], hint=hint + '_x1')], hint=hint + '_xin')],
            hint=hint + '_inside')
        flat = g.add('Add', [g.add('Mul', [yy, w_f], hint=hint + '_row'), xx],
                     hint=hint + '_index')
        flat = g.add('Where', [inside, flat, zero], hint=hint + '_safe')
        index = unsqueeze(g, cast(g, flat, np.int64, hint=hint + '_int'), [3],
                          hint=hint + '_nd')
        values = g.add('GatherND', [image, index], hint=hint + '_values', batch_dims=2)
        return g.add('Where', [unsqueeze(g, inside, [3], hint=hint + '_mask'), values, zero],
                     hint=hint + '_v')               # N G K*oh*ow C/G
    y0, y1, ly, _ = corners['y']
    x0, x1, lx, _ = corners['x']
    hy = g.add('Sub', [one, ly], hint=name + '_hy')
    hx = g.add('Sub', [one, lx], hint=name + '_hx')
    blend = None
    for yy, xx, wy, wx, tag in ((y0, x0, hy, hx, 'a'), (y0, x1, hy, lx, 'b'),
                                (y1, x0, ly, hx, 'c'), (y1, x1, ly, lx, 'd')):
        weight = unsqueeze(g, g.add('Mul', [wy, wx], hint='%s_w%s' % (name, tag)), [3],
                           hint='%s_w%s' % (name, tag))
        term = g.add('Mul', [weight, corner(yy, xx, '%s_%s' % (name, tag))],
                     hint='%s_t%s' % (name, tag))
        blend = term if blend is None else g.add('Add', [blend, term],
                                                 hint='%s_sum%s' % (name, tag))
    sampled = g.add('Where', [unsqueeze(g, valid, [3], hint=name + '_vmask'), blend, zero],
                    hint=name + '_sampled')
    if 'mask' in at:
        mask = reshape_to(g, wide(at['mask'], '_mask64'), [0, groups, count, 1],
                          hint=name + '_mask')
        sampled = g.add('Mul', [sampled, mask], hint=name + '_masked')
    # columns (N, C*K, oh*ow), channel-major as the weight (F, C/G, kh, kw) flattens
    columns = g.add('Transpose', [reshape_to(g, sampled, [0, groups, taps, pixels, per_group],
                                             hint=name + '_cols5')],
                    hint=name + '_cols_t', perm=[0, 1, 4, 2, 3])
    conv_groups = op.num_group
    per_conv = channels * taps // conv_groups
    columns = reshape_to(g, columns, [0, conv_groups, per_conv, pixels], hint=name + '_cg')
    # one (F/G, C/G*K) x (C/G*K, N*oh*ow) product per convolution group
    columns = reshape_to(g, g.add('Transpose', [columns], hint=name + '_by_group',
                                  perm=[1, 2, 0, 3]), [conv_groups, per_conv, -1],
                         hint=name + '_columns')
    filters = op.num_filter // conv_groups
    weight = reshape_to(g, wide(at['weight'], '_w64'), [conv_groups, filters, per_conv],
                        hint=name + '_weight')
    product = reshape_to(g, g.add('MatMul', [weight, columns], hint=name + '_product'),
                         [conv_groups, filters, -1, pixels], hint=name + '_per_item')
    result = reshape_to(g, g.add('Transpose', [product], hint=name + '_items',
                                 perm=[2, 0, 1, 3]), [0, op.num_filter, out_h, out_w],
                        hint=name + '_out')
    if not op.no_bias:
        bias = reshape_to(g, wide(at['bias'], '_b64'), [1, -1, 1, 1], hint=name + '_bias')
        result = g.add('Add', [result, bias], hint=name + '_biased')
    cast(g, result, node.out_dtype(), out=node.outputs[0])
