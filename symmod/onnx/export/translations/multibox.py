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
from .common import (batch_positions, cast, reduce, reshape_to, scalar, slice_axes,
                     squeeze, unsqueeze)
from .nms import kept_mask

__all__ = []

_F32 = np.float32


def _decode(g, node, count, hint):
    """(items, A, 4) corner boxes."""
    op = node.op
    anchors = reshape_to(g, node.input(2), [-1, 4], hint=hint + '_anchors')       # A 4
    loc = reshape_to(g, node.input(1), [-1, count, 4], hint=hint + '_loc4')        # items A 4

    def col(m, i, tag, axis=2):
        return squeeze(g, slice_axes(g, m, [i], [i + 1], [axis], hint=hint + tag), [axis],
                       hint=hint + tag)
    al, at, ar, ab = (col(anchors, i, '_a%d' % i, axis=1) for i in range(4))
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
    boxes = g.add('Concat', [unsqueeze(g, c, [2], hint=hint + '_c') for c in corners],
                  hint=hint + '_boxes', axis=2)
    if op.clip:
        boxes = g.add('Clip', [boxes, scalar(g, 0, _F32, 'zero'), scalar(g, 1, _F32, 'one')],
                      hint=hint + '_clipped')
    return boxes


def _gather_rows(g, rows, order, base, width, hint):
    """rows[b, order[b, i]] for every item b: (items, K, width) from (items, A, width)
    rows, int64 (items, K) ``order`` and each item's first flat row ``base`` (items, 1)."""
    flat = reshape_to(g, rows, [-1, width], hint=hint + '_flat')
    return g.add('Gather', [flat, g.add('Add', [order, base], hint=hint + '_at')],
                 hint=hint, axis=0)


def _items(g, node, classes, count, varying):
    """(items, A, 6) detections of every batch item."""
    op, hint = node.op, node.name
    boxes = _decode(g, node, count, hint)
    probs = slice_axes(g, node.input(0), [1], [classes], [1], hint=hint + '_fg')  # items C-1 A
    item_ids = batch_positions(g, node.input(0), None if varying else node.in_shape(0)[0],
                               hint)                                             # items 1
    base = g.add('Mul', [item_ids, scalar(g, count, np.int64, hint + '_count64')],
                 hint=hint + '_base')
    best = cast(g, g.add('ArgMax', [probs], hint=hint + '_best', axis=1, keepdims=0), _F32,
                hint=hint + '_bestf')
    score = reduce(g, 'ReduceMax', probs, [1], keepdims=False, hint=hint + '_score')
    minus_one = scalar(g, -1, _F32, 'minus_one')
    score = g.add('Where', [g.add('Greater', [score, minus_one], hint=hint + '_gt'), score,
                            minus_one], hint=hint + '_score_floor')
    valid = g.add('Not', [g.add('Less', [score, scalar(g, op.threshold, _F32, 'threshold')],
                                hint=hint + '_low')], hint=hint + '_valid')
    valid = g.add('And', [valid, g.add('Greater', [score, minus_one], hint=hint + '_real')],
                  hint=hint + '_detection')                                   # items A
    rows = g.add('Concat', [unsqueeze(g, best, [2], hint=hint + '_id'),
                            unsqueeze(g, score, [2], hint=hint + '_s'), boxes],
                 hint=hint + '_rows', axis=2)                                 # items A 6
    minus_inf = scalar(g, -np.inf, _F32, 'minus_inf')
    ks = g.int64s([count], 'anchors')
    positions = g.constant(np.arange(count, dtype=_F32), hint + '_positions')
    # the detections in anchor order first (TopK of -position, ties cannot occur)
    _, in_order = g.add('TopK', [g.add('Where', [valid, g.add('Neg', [positions],
                                                              hint=hint + '_neg'), minus_inf],
                                       hint=hint + '_anchor_key'), ks],
                        [g.fresh(hint + '_k1'), g.fresh(hint + '_order1')], axis=1, largest=1,
                        sorted=1)
    compacted = _gather_rows(g, rows, in_order, base, 6, hint + '_compacted')
    found = reduce(g, 'ReduceSum', cast(g, valid, _F32, hint=hint + '_vf'), [1], keepdims=True,
                   hint=hint + '_found')                                      # items 1
    present = unsqueeze(g, g.add('Less', [positions, found], hint=hint + '_present'), [2],
                        hint=hint + '_present3')
    if not 0 < op.nms_threshold <= 1:
        return g.add('Where', [present, compacted, minus_one], hint=hint + '_out')
    ranked = g.add('Where', [valid, score, minus_inf], hint=hint + '_ranked')
    top, by_score = g.add('TopK', [ranked, ks], [g.fresh(hint + '_top'),
                                                 g.fresh(hint + '_order2')], axis=1, largest=1,
                          sorted=1)
    ordered = _gather_rows(g, rows, by_score, base, 6, hint + '_ordered')       # items A 6
    keep = found
    if 0 < op.nms_topk:
        keep = g.add('Min', [found, scalar(g, op.nms_topk, _F32, 'nms_topk')], hint=hint + '_keep')
    in_play = g.add('Less', [positions, keep], hint=hint + '_in_play')           # items A
    candidates = g.add('Where', [in_play, top, minus_inf], hint=hint + '_candidates')
    sorted_boxes = slice_axes(g, ordered, [2], [6], [2], hint=hint + '_sorted_boxes')
    ids = squeeze(g, slice_axes(g, ordered, [0], [1], [2], hint=hint + '_cls'), [2],
                  hint=hint + '_ids')                                         # items A
    if op.force_suppress:
        scores = unsqueeze(g, candidates, [1], hint=hint + '_nms_scores')
    else:   # one row per foreground class: a box scores only in its own class
        own = g.add('Equal', [unsqueeze(g, ids, [1], hint=hint + '_c2'),
                              g.constant(np.arange(classes - 1, dtype=_F32)[:, None],
                                         hint + '_classes')], hint=hint + '_own')
        scores = g.add('Where', [own, unsqueeze(g, candidates, [1], hint=hint + '_cand2'),
                                 minus_inf], hint=hint + '_nms_scores')   # items C-1 A
    below = np.nextafter(_F32(op.nms_threshold), _F32(-np.inf), dtype=_F32)
    selected = g.add('NonMaxSuppression', [
        sorted_boxes, scores,
        g.int64s([count], 'max_boxes'), g.constant(np.array([below], _F32), hint + '_iou'),
        g.constant(np.array([np.finfo(_F32).min], _F32), hint + '_score_floor_t')],
        hint=hint + '_nms')                                                   # S 3
    alive = kept_mask(g, selected, item_ids, count, hint)                        # items A
    first = g.add('Concat', [unsqueeze(g, g.add('Where', [alive, ids, minus_one],
                                                hint=hint + '_marked'), [2],
                                       hint=hint + '_marked3'),
                             slice_axes(g, ordered, [1], [6], [2], hint=hint + '_rest')],
                  hint=hint + '_first', axis=2)
    id_column = g.constant(np.arange(6) == 0, hint + '_id_column')
    dropped = g.add('Where', [id_column, minus_one, compacted], hint=hint + '_dropped')
    later = g.add('Where', [present, dropped, minus_one], hint=hint + '_later')
    return g.add('Where', [unsqueeze(g, in_play, [2], hint=hint + '_in_play3'), first, later],
                 hint=hint + '_out')


@translator('_contrib_MultiBoxDetection')
def multibox_detection(g, node):
    varying = node.in_varying(0) | node.in_varying(1)
    if varying - {0} or node.in_varying(2):
        node.fail('input dimensions that vary other than the batch (the number of classes '
                  'and anchors must be fixed)')
    if any(node.in_dtype(i) != _F32 for i in range(3)):
        node.fail('float32 inputs only')
    _, classes, count = node.in_shape(0)
    g.add('Identity', [_items(g, node, classes, count, bool(varying))], [node.outputs[0]])
