"""_contrib_MultiBoxDetection (SSD's detection output), per batch item as symmod's kernel:
anchors decoded with the variances (float32, clipped to [0, 1]), each anchor's best
foreground class and score (ArgMax, first index on ties), detections below
``threshold`` dropped, then, when ``0 < nms_threshold <= 1``: the ``nms_topk`` best by
score (TopK, ties in anchor order) suppressed per class (or across classes with
``force_suppress``) by ONNX NonMaxSuppression — the classes are a fixed axis of
``cls_prob`` — with suppressed rows marked -1 in place. Rows past the kept ones follow
the kernel's layout: the remaining detections in anchor order with class -1, then -1
rows. The kernel suppresses at IoU >= nms_threshold, ONNX above its threshold: the
threshold given to ONNX is the float32 just below.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes, squeeze, unsqueeze

__all__ = []

_F32 = np.float32


def _decode(g, node, b, hint):
    """(A, 4) corner boxes of item ``b``."""
    op = node.op
    anchors = reshape_to(g, node.input(2), [-1, 4], hint=hint + '_anchors')
    loc = reshape_to(g, slice_axes(g, node.input(1), [b], [b + 1], [0], hint=hint + '_loc'),
                     [-1, 4], hint=hint + '_loc4')

    def col(m, i, tag):
        return squeeze(g, slice_axes(g, m, [i], [i + 1], [1], hint=hint + tag), [1],
                       hint=hint + tag)
    al, at, ar, ab = (col(anchors, i, '_a%d' % i) for i in range(4))
    two = scalar(g, 2, _F32, 'two')
    aw, ah = g.add('Sub', [ar, al], hint=hint + '_aw'), g.add('Sub', [ab, at], hint=hint + '_ah')
    ax = g.add('Div', [g.add('Add', [al, ar], hint=hint + '_axs'), two], hint=hint + '_ax')
    ay = g.add('Div', [g.add('Add', [at, ab], hint=hint + '_ays'), two], hint=hint + '_ay')
    vx, vy, vw, vh = (scalar(g, v, _F32, 'variance') for v in op.variances)

    def centre(i, v, size, mid, tag):
        scaled = g.add('Mul', [g.add('Mul', [col(loc, i, tag), v], hint=hint + tag), size],
                       hint=hint + tag + 's')
        return g.add('Add', [scaled, mid], hint=hint + tag + 'c')

    def half(i, v, size, tag):
        grown = g.add('Mul', [g.add('Exp', [g.add('Mul', [col(loc, i, tag), v],
                                                  hint=hint + tag)], hint=hint + tag + 'e'),
                              size], hint=hint + tag + 'g')
        return g.add('Div', [grown, two], hint=hint + tag + 'h')
    ox, oy = centre(0, vx, aw, ax, '_ox'), centre(1, vy, ah, ay, '_oy')
    ow, oh = half(2, vw, aw, '_ow'), half(3, vh, ah, '_oh')
    corners = [g.add('Sub', [ox, ow], hint=hint + '_x0'), g.add('Sub', [oy, oh], hint=hint + '_y0'),
               g.add('Add', [ox, ow], hint=hint + '_x1'), g.add('Add', [oy, oh], hint=hint + '_y1')]
    boxes = g.add('Concat', [unsqueeze(g, c, [1], hint=hint + '_c') for c in corners],
                  hint=hint + '_boxes', axis=1)
    if op.clip:
        boxes = g.add('Clip', [boxes, scalar(g, 0, _F32, 'zero'), scalar(g, 1, _F32, 'one')],
                      hint=hint + '_clipped')
    return boxes


def _item(g, node, b, classes, count):
    """(A, 6) detections of item ``b``."""
    op, hint = node.op, '%s_item%d' % (node.name, b)
    boxes = _decode(g, node, b, hint)
    probs = squeeze(g, slice_axes(g, node.input(0), [b, 1], [b + 1, classes], [0, 1],
                                  hint=hint + '_fg'), [0], hint=hint + '_probs')    # C-1 A
    best = cast(g, g.add('ArgMax', [probs], hint=hint + '_best', axis=0, keepdims=0), _F32,
                hint=hint + '_bestf')
    score = reduce(g, 'ReduceMax', probs, [0], keepdims=False, hint=hint + '_score')
    minus_one = scalar(g, -1, _F32, 'minus_one')
    score = g.add('Where', [g.add('Greater', [score, minus_one], hint=hint + '_gt'), score,
                            minus_one], hint=hint + '_score_floor')
    valid = g.add('Not', [g.add('Less', [score, scalar(g, op.threshold, _F32, 'threshold')],
                                hint=hint + '_low')], hint=hint + '_valid')
    valid = g.add('And', [valid, g.add('Greater', [score, minus_one], hint=hint + '_real')],
                  hint=hint + '_detection')
    rows = g.add('Concat', [unsqueeze(g, best, [1], hint=hint + '_id'),
                            unsqueeze(g, score, [1], hint=hint + '_s'), boxes],
                 hint=hint + '_rows', axis=1)                                 # A 6
    minus_inf = scalar(g, -np.inf, _F32, 'minus_inf')
    ks = g.int64s([count], 'anchors')
    positions = g.constant(np.arange(count, dtype=_F32), hint + '_positions')
    # the detections in anchor order first (TopK of -position, ties cannot occur)
    _, in_order = g.add('TopK', [g.add('Where', [valid, g.add('Neg', [positions],
                                                              hint=hint + '_neg'), minus_inf],
                                       hint=hint + '_anchor_key'), ks],
                        [g.fresh(hint + '_k1'), g.fresh(hint + '_order1')], largest=1, sorted=1)
    compacted = g.add('Gather', [rows, in_order], hint=hint + '_compacted', axis=0)
    found = reduce(g, 'ReduceSum', cast(g, valid, _F32, hint=hint + '_vf'), [0], keepdims=True,
                   hint=hint + '_found')
    minus_rows = g.constant(np.full((count, 6), -1, _F32), hint + '_minus_rows')
    present = unsqueeze(g, g.add('Less', [positions, found], hint=hint + '_present'), [1],
                        hint=hint + '_present2')
    if not 0 < op.nms_threshold <= 1:
        return g.add('Where', [present, compacted, minus_rows], hint=hint + '_out')
    ranked = g.add('Where', [valid, score, minus_inf], hint=hint + '_ranked')
    top, by_score = g.add('TopK', [ranked, ks], [g.fresh(hint + '_top'),
                                                 g.fresh(hint + '_order2')], largest=1, sorted=1)
    ordered = g.add('Gather', [rows, by_score], hint=hint + '_ordered', axis=0)
    keep = found
    if 0 < op.nms_topk:
        keep = g.add('Min', [found, scalar(g, op.nms_topk, _F32, 'nms_topk')], hint=hint + '_keep')
    in_play = g.add('Less', [positions, keep], hint=hint + '_in_play')              # A
    candidates = g.add('Where', [in_play, top, minus_inf], hint=hint + '_candidates')
    sorted_boxes = slice_axes(g, ordered, [2], [6], [1], hint=hint + '_sorted_boxes')
    if op.force_suppress:
        scores = reshape_to(g, candidates, [1, 1, count], hint=hint + '_nms_scores')
    else:   # one row per foreground class: a box scores only in its own class
        own = g.add('Equal', [unsqueeze(g, squeeze(g, slice_axes(g, ordered, [0], [1], [1],
                                                                 hint=hint + '_cls'), [1],
                                                   hint=hint + '_cls1'), [0], hint=hint + '_c2'),
                              g.constant(np.arange(classes - 1, dtype=_F32)[:, None],
                                         hint + '_classes')], hint=hint + '_own')
        scores = unsqueeze(g, g.add('Where', [own, unsqueeze(g, candidates, [0],
                                                             hint=hint + '_cand2'),
                                              minus_inf], hint=hint + '_per_class'), [0],
                           hint=hint + '_nms_scores')
    below = np.nextafter(_F32(op.nms_threshold), _F32(-np.inf), dtype=_F32)
    selected = g.add('NonMaxSuppression', [
        unsqueeze(g, sorted_boxes, [0], hint=hint + '_nms_boxes'), scores,
        g.int64s([count], 'max_boxes'), g.constant(np.array([below], _F32), hint + '_iou'),
        g.constant(np.array([np.finfo(_F32).min], _F32), hint + '_score_floor_t')],
        hint=hint + '_nms')
    picked = cast(g, slice_axes(g, selected, [2], [3], [1], hint=hint + '_picked'), _F32,
                  hint=hint + '_pickedf')                                         # K 1
    kept = reduce(g, 'ReduceSum', cast(g, g.add('Equal', [picked, unsqueeze(
        g, positions, [0], hint=hint + '_pos_row')], hint=hint + '_hit'), _F32,
        hint=hint + '_hitf'), [0], keepdims=False, hint=hint + '_kept')          # A
    alive = g.add('Greater', [kept, scalar(g, 0, _F32, 'zero')], hint=hint + '_alive')
    first = g.add('Concat', [unsqueeze(g, g.add('Where', [alive, squeeze(g, slice_axes(
        g, ordered, [0], [1], [1], hint=hint + '_ids'), [1], hint=hint + '_ids1'), minus_one],
        hint=hint + '_marked'), [1], hint=hint + '_marked2'),
        slice_axes(g, ordered, [1], [6], [1], hint=hint + '_rest')], hint=hint + '_first',
        axis=1)
    dropped = g.add('Concat', [g.constant(np.full((count, 1), -1, _F32), hint + '_dropped_id'),
                               slice_axes(g, compacted, [1], [6], [1], hint=hint + '_tail')],
                    hint=hint + '_dropped', axis=1)
    later = g.add('Where', [present, dropped, minus_rows], hint=hint + '_later')
    return g.add('Where', [unsqueeze(g, in_play, [1], hint=hint + '_in_play2'), first, later],
                 hint=hint + '_out')


@translator('_contrib_MultiBoxDetection')
def multibox_detection(g, node):
    if any(node.in_varying(i) for i in range(3)):
        node.fail('input dimensions that vary (the batch items are unrolled at export)')
    if any(node.in_dtype(i) != _F32 for i in range(3)):
        node.fail('float32 inputs only')
    items, classes, count = node.in_shape(0)
    outs = [unsqueeze(g, _item(g, node, b, classes, count), [0], hint=node.name + '_one')
            for b in range(items)]
    if len(outs) == 1:
        g.add('Identity', outs, [node.outputs[0]])
    else:
        g.add('Concat', outs, [node.outputs[0]], axis=0)
