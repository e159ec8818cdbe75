"""Bounding-box arithmetic of ``mx.sym.contrib``: box_iou, box_encode and box_decode.

IoU is computed in float64 for every (lhs, rhs) pair by broadcasting (symmod's kernel mixes
float32 and float64 the way numba promotes); encode and decode follow symmod's formulas
in the data's type.
"""
import numpy as np

from ..registry import translator
from .common import cast, reshape_to, scalar, split, squeeze, unsqueeze


def _columns(g, x, hint):
    """The four coordinates of (..., 4) boxes, each (...)."""
    parts = split(g, x, -1, 4, [1, 1, 1, 1], hint=hint + '_coord')
    return [squeeze(g, p, [-1], hint='%s_c%d' % (hint, i)) for i, p in enumerate(parts)]


def _interval(g, start, extent, center, hint):
    """(low, high) of an interval given as (start, end) or (middle, width)."""
    if not center:
        return start, extent
    half = g.add('Div', [extent, scalar(g, 2, np.float64, 'two')], hint=hint + '_half')
    return (g.add('Sub', [start, half], hint=hint + '_low'),
            g.add('Add', [start, half], hint=hint + '_high'))


@translator('_contrib_box_iou')
def box_iou(g, node):
    center = node.op.format == 'center'
    name = node.name
    lhs = reshape_to(g, cast(g, node.input(0), np.float64, hint=name + '_l64'), [-1, 1, 4],
                     hint=name + '_lhs')
    rhs = reshape_to(g, cast(g, node.input(1), np.float64, hint=name + '_r64'), [1, -1, 4],
                     hint=name + '_rhs')
    a, b = _columns(g, lhs, name + '_a'), _columns(g, rhs, name + '_b')
    zero = scalar(g, 0, np.float64, 'zero')
    overlaps, areas = [], [None, None]
    for axis in (0, 1):
        a_low, a_high = _interval(g, a[axis], a[axis + 2], center, '%s_a%d' % (name, axis))
        b_low, b_high = _interval(g, b[axis], b[axis + 2], center, '%s_b%d' % (name, axis))
        width = g.add('Sub', [g.add('Min', [b_high, a_high], hint=name + '_right'),
                              g.add('Max', [b_low, a_low], hint=name + '_left')],
                      hint=name + '_overlap_raw')
        overlaps.append(g.add('Max', [width, zero], hint=name + '_overlap'))
    inter = g.add('Mul', overlaps, hint=name + '_inter')
    for k, box in enumerate((a, b)):
        sizes = box[2:] if center else [g.add('Sub', [box[2 + i], box[i]],
                                              hint='%s_size%d' % (name, i)) for i in (0, 1)]
        negative = g.add('Or', [g.add('Less', [s, zero], hint=name + '_neg') for s in sizes],
                         hint=name + '_empty')
        areas[k] = g.add('Where', [negative, zero, g.add('Mul', sizes, hint=name + '_wh')],
                         hint='%s_area%d' % (name, k))
    union = g.add('Sub', [g.add('Add', areas, hint=name + '_areas'), inter],
                  hint=name + '_union')
    iou = g.add('Where', [g.add('LessOrEqual', [inter, zero], hint=name + '_disjoint'), zero,
                          g.add('Div', [inter, union], hint=name + '_ratio')],
                hint=name + '_iou')
    shape = list(node.in_shape(0)[:-1]) + list(node.in_shape(1)[:-1])
    reshape_to(g, cast(g, iou, node.out_dtype(), hint=name + '_typed'), shape,
               out=node.outputs[0])


def _center_form(g, box, dtype, hint):
    """(x, y, width, height) of corner boxes given as their four coordinates."""
    half = scalar(g, 0.5, dtype, 'half')
    width = g.add('Sub', [box[2], box[0]], hint=hint + '_w')
    height = g.add('Sub', [box[3], box[1]], hint=hint + '_h')
    return (g.add('Add', [box[0], g.add('Mul', [width, half], hint=hint + '_hw')],
                  hint=hint + '_x'),
            g.add('Add', [box[1], g.add('Mul', [height, half], hint=hint + '_hh')],
                  hint=hint + '_y'), width, height)


@translator('_contrib_box_decode')
def box_decode(g, node):
    op, dtype, name = node.op, node.out_dtype(), node.name
    anchors = node.input(1)
    count = node.in_shape(0)[1]
    if 1 in node.in_varying(0):
        node.fail('the number of boxes varies (the anchors are cut to it at export)')
    anchors = reshape_to(g, anchors, [1, -1, 4], hint=name + '_anchors')
    anchors = g.add('Slice', [anchors, g.int64s([0], 'zero'), g.int64s([count], 'count'),
                              g.int64s([1], 'one')], hint=name + '_used')
    corners = _columns(g, anchors, name + '_anchor')
    a_x, a_y, a_w, a_h = _center_form(g, corners, dtype, name + '_a') \
        if op.format == 'corner' else corners
    d = _columns(g, node.input(0), name + '_delta')
    std = [scalar(g, s, dtype, 'std%d' % i)
           for i, s in enumerate((op.std0, op.std1, op.std2, op.std3))]

    def mul(a, b, suffix):
        return g.add('Mul', [a, b], hint=name + suffix)
    ox = g.add('Add', [mul(mul(d[0], std[0], '_sx'), a_w, '_ox0'), a_x], hint=name + '_ox')
    oy = g.add('Add', [mul(mul(d[1], std[1], '_sy'), a_h, '_oy0'), a_y], hint=name + '_oy')
    dw, dh = mul(d[2], std[2], '_dw'), mul(d[3], std[3], '_dh')
    if op.clip > 0:
        cap = scalar(g, op.clip, dtype, 'clip')
        dw = g.add('Min', [dw, cap], hint=name + '_dw_capped')
        dh = g.add('Min', [dh, cap], hint=name + '_dh_capped')
    half = scalar(g, 0.5, dtype, 'half')
    ow = mul(mul(g.add('Exp', [dw], hint=name + '_ew'), a_w, '_ow0'), half, '_ow')
    oh = mul(mul(g.add('Exp', [dh], hint=name + '_eh'), a_h, '_oh0'), half, '_oh')
    corners_out = [g.add('Sub', [ox, ow], hint=name + '_x0'), g.add('Sub', [oy, oh],
                                                                   hint=name + '_y0'),
                   g.add('Add', [ox, ow], hint=name + '_x1'), g.add('Add', [oy, oh],
                                                                   hint=name + '_y1')]
    parts = [unsqueeze(g, c, [-1], hint=name + '_col') for c in corners_out]
    g.add('Concat', parts, [node.outputs[0]], axis=-1)


@translator('_contrib_box_encode')
def box_encode(g, node):
    """Targets of the reference boxes ``refs[matches]`` relative to the anchors, where
    ``samples`` > 0.5 (zero elsewhere), and the masks saying where."""
    dtype, name = node.out_dtype(), node.name
    samples, matches, anchors, refs, means, stds = (node.input(i) for i in range(6))
    batch, count = node.in_shape(1)[0], node.in_shape(1)[1]
    if node.in_varying(1) or node.in_varying(3):
        node.fail('the number of boxes varies')
    rows = node.in_shape(3)[1]
    # refs[b, matches[b, n]] as one Gather from the flattened references
    offsets = g.constant((np.arange(batch) * rows).reshape(batch, 1), 'batch_offsets')
    index = g.add('Add', [cast(g, matches, np.int64, hint=name + '_index'), offsets],
                  hint=name + '_flat_index')
    flat_refs = reshape_to(g, refs, [-1, 4], hint=name + '_refs')
    matched = g.add('Gather', [flat_refs, index], hint=name + '_matched', axis=0)
    r_x, r_y, r_w, r_h = _center_form(g, _columns(g, matched, name + '_ref'), dtype,
                                      name + '_r')
    a_x, a_y, a_w, a_h = _center_form(g, _columns(g, anchors, name + '_anc'), dtype,
                                      name + '_a')
    mean = _columns(g, means, name + '_mean')
    std = _columns(g, stds, name + '_std')

    def normalised(value, k):
        return g.add('Div', [g.add('Sub', [value, mean[k]], hint=name + '_centred'), std[k]],
                     hint='%s_t%d' % (name, k))
    offsets = [g.add('Div', [g.add('Sub', [r_x, a_x], hint=name + '_dx'), a_w],
                     hint=name + '_rx'),
               g.add('Div', [g.add('Sub', [r_y, a_y], hint=name + '_dy'), a_h],
                     hint=name + '_ry'),
               g.add('Log', [g.add('Div', [r_w, a_w], hint=name + '_sw')], hint=name + '_lw'),
               g.add('Log', [g.add('Div', [r_h, a_h], hint=name + '_sh')], hint=name + '_lh')]
    targets = g.add('Concat', [unsqueeze(g, normalised(v, k), [-1], hint=name + '_col')
                               for k, v in enumerate(offsets)], hint=name + '_targets', axis=-1)
    valid = unsqueeze(g, g.add('Greater', [samples, scalar(g, 0.5, node.in_dtype(0), 'half')],
                               hint=name + '_valid'), [-1], hint=name + '_valid4')
    g.add('Where', [valid, targets, scalar(g, 0, dtype, 'zero')], [node.outputs[0]])
    mask = cast(g, valid, dtype, hint=name + '_mask1')
    g.add('Expand', [mask, g.int64s([batch, count, 4], 'box_shape')], [node.outputs[1]])
