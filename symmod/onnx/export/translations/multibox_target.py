"""_contrib_MultiBoxTarget (SSD's training targets), every batch item at once, in
symmod's kernel order.

- The ground truths of an item are its labels before the first of class -1; IoU of every
  anchor with every label is float32, as in the kernel.
- Greedy matching as a counted ONNX Loop of ``num_labels`` steps: each step takes the
  best (anchor, ground truth) pair among non-positive anchors and free ground truths
  (ArgMax over the row-major pairs: the kernel's first maximum) and makes the anchor
  positive if its IoU exceeds 1e-6. Once a step takes nothing the state no longer
  changes, which is the kernel's early stop.
- With ``overlap_threshold`` > 0 every other anchor whose best IoU exceeds it is
  positive too (best ground truth: the first maximum).
- Hard negative mining (``negative_mining_ratio`` > 0): ``floor(positives * ratio)``
  (float32, at most the non-positives) candidates with IoU below
  ``negative_mining_thresh`` and the lowest background probability (TopK ascending on
  keys made distinct so that ties go in anchor order: the kernel's stable sort) become
  negatives, each anchor's
  place in that order found by sorting the order (the inverse permutation); without mining every non-positive anchor is negative.
- Targets: positives get their ground truth's class + 1 and the float32 regression
  encoding; negatives class 0; the rest ``ignore_label``; an item without ground truth
  is all ``ignore_label`` with zero regression targets and masks.

symmod raises when fewer candidates than the negatives to mine exist; an ONNX graph
cannot raise, so that item's class targets are NaN.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes, squeeze, unsqueeze
from .loops import counted_loop

__all__ = []

_F32, _F64 = np.float32, np.float64


def _coords(g, boxes, axis, hint):
    """The four coordinates of corner boxes, each keeping ``axis`` as size 1."""
    return [slice_axes(g, boxes, [i], [i + 1], [axis], hint='%s_%d' % (hint, i))
            for i in range(4)]


def _iou(g, anchors, truths, hint):
    """(B, A, L) float32 IoU of anchors (1, A, 1, 4 as coordinates) and ground truths
    (B, 1, L), 0 where the union is empty, in the kernel's operation order."""
    al, at, ar, ab = anchors
    gl, gt, gr, gb = truths
    zero = scalar(g, 0, _F32, 'zero_f32')

    def overlap(lo_a, hi_a, lo_g, hi_g, tag):
        span = g.add('Sub', [g.add('Min', [hi_a, hi_g], hint=hint + tag + '_hi'),
                             g.add('Max', [lo_a, lo_g], hint=hint + tag + '_lo')],
                     hint=hint + tag + '_span')
        return g.add('Max', [span, zero], hint=hint + tag)
    inter = g.add('Mul', [overlap(al, ar, gl, gr, '_w'), overlap(at, ab, gt, gb, '_h')],
                  hint=hint + '_inter')

    def area(l_, t, r, b, tag):
        return g.add('Mul', [g.add('Sub', [r, l_], hint=hint + tag + 'w'),
                             g.add('Sub', [b, t], hint=hint + tag + 'h')], hint=hint + tag)
    union = g.add('Sub', [g.add('Add', [area(al, at, ar, ab, '_aa'), area(gl, gt, gr, gb, '_ga')],
                                hint=hint + '_areas'), inter], hint=hint + '_union')
    empty = g.add('Equal', [union, zero], hint=hint + '_empty')
    one = scalar(g, 1, _F32, 'one_f32')
    ratio = g.add('Div', [inter, g.add('Where', [empty, one, union], hint=hint + '_safe')],
                  hint=hint + '_ratio')
    return g.add('Where', [empty, zero, ratio], hint=hint + '_iou')


def _greedy_step(iou, usable, a, n_labels):
    """One greedy pick. The state (B, 3A + L): positive flags, best IoUs, best ground
    truths (per anchor), free flags (per ground truth)."""

    def step(g, j, s):
        hint = g.fresh('match')
        positive = slice_axes(g, s, [0], [a], [1], hint=hint + '_pos')
        best_iou = slice_axes(g, s, [a], [2 * a], [1], hint=hint + '_best_iou')
        best_gt = slice_axes(g, s, [2 * a], [3 * a], [1], hint=hint + '_best_gt')
        free = slice_axes(g, s, [3 * a], [3 * a + n_labels], [1], hint=hint + '_free')
        zero = scalar(g, 0, _F64, 'zero')
        open_pairs = g.add('And', [
            unsqueeze(g, g.add('Equal', [positive, zero], hint=hint + '_open_a'), [2],
                      hint=hint + '_open_a3'),
            g.add('And', [unsqueeze(g, g.add('Greater', [free, zero], hint=hint + '_open_g'),
                                    [1], hint=hint + '_open_g3'), usable],
                  hint=hint + '_open_gu')], hint=hint + '_open')               # B A L
        scores = reshape_to(g, g.add('Where', [open_pairs, iou, scalar(g, -np.inf, _F64,
                                                                        'minus_inf')],
                                     hint=hint + '_scores'), [0, a * n_labels],
                            hint=hint + '_flat')
        pick = g.add('ArgMax', [scores], hint=hint + '_pick', axis=1, keepdims=1)  # B 1
        value = g.add('GatherElements', [scores, pick], hint=hint + '_value', axis=1)
        take = g.add('Greater', [value, scalar(g, float(_F32(1e-6)), _F64, 'min_iou')],
                     hint=hint + '_take')
        pick = cast(g, pick, _F64, hint=hint + '_pickf')
        width = scalar(g, n_labels, _F64, hint + '_width')
        anchor = g.add('Floor', [g.add('Div', [pick, width], hint=hint + '_div')],
                       hint=hint + '_anchor')
        truth = g.add('Sub', [pick, g.add('Mul', [anchor, width], hint=hint + '_am')],
                      hint=hint + '_truth')
        here = g.add('And', [take, g.add('Equal', [g.constant(np.arange(a, dtype=_F64),
                                                              hint + '_anchor_ids'), anchor],
                                         hint=hint + '_at_a')], hint=hint + '_here')
        used = g.add('And', [take, g.add('Equal', [g.constant(np.arange(n_labels, dtype=_F64),
                                                              hint + '_truth_ids'), truth],
                                         hint=hint + '_at_g')], hint=hint + '_used')
        return g.add('Concat', [
            g.add('Where', [here, scalar(g, 1, _F64, 'one'), positive], hint=hint + '_pos_out'),
            g.add('Where', [here, value, best_iou], hint=hint + '_iou_out'),
            g.add('Where', [here, truth, best_gt], hint=hint + '_gt_out'),
            g.add('Where', [used, zero, free], hint=hint + '_free_out')],
            hint=hint + '_state', axis=1)
    return step


def _pick_labels(g, best_gt, labels, n_labels, hint):
    """Per anchor, the label row (B, A, width) of its best ground truth: a one-hot
    selection over the labels (exact for finite labels)."""
    hot = cast(g, g.add('Equal', [unsqueeze(g, best_gt, [2], hint=hint + '_g3'), g.constant(
        np.arange(n_labels, dtype=_F64), hint + '_label_ids')], hint=hint + '_is'), _F32,
        hint=hint + '_hot')                                                    # B A L
    return g.add('MatMul', [hot, labels], hint=hint + '_rows')


def _encode(g, anchors, truths, variances, hint):
    """(B, A, 4) float32 regression targets of anchors for ground truth boxes."""
    al, at, ar, ab = anchors
    gl, gt, gr, gb = truths
    half = scalar(g, 0.5, _F32, 'half')

    def centre(lo, hi, tag):
        return g.add('Mul', [g.add('Add', [lo, hi], hint=hint + tag + 's'), half], hint=hint + tag)

    def size(lo, hi, tag):
        return g.add('Sub', [hi, lo], hint=hint + tag)
    aw, ah, gw, gh = size(al, ar, '_aw'), size(at, ab, '_ah'), size(gl, gr, '_gw'), size(
        gt, gb, '_gh')
    ax, ay, gx, gy = centre(al, ar, '_ax'), centre(at, ab, '_ay'), centre(gl, gr, '_gx'), centre(
        gt, gb, '_gy')
    vx, vy, vw, vh = (scalar(g, v, _F32, 'variance') for v in variances)

    def shift(gc, ac, size_, v, tag):
        return g.add('Div', [g.add('Div', [g.add('Sub', [gc, ac], hint=hint + tag + 'd'), size_],
                                   hint=hint + tag + 'r'), v], hint=hint + tag)

    def scale(gs, as_, v, tag):
        return g.add('Div', [g.add('Log', [g.add('Div', [gs, as_], hint=hint + tag + 'r')],
                                   hint=hint + tag + 'l'), v], hint=hint + tag)
    return g.add('Concat', [shift(gx, ax, aw, vx, '_tx'), shift(gy, ay, ah, vy, '_ty'),
                            scale(gw, aw, vw, '_tw'), scale(gh, ah, vh, '_th')],
                 hint=hint + '_encoded', axis=2)


def _negatives(g, node, positive, best_iou, cls_pred, a, hint):
    """Mined negatives (B, A) bool and whether an item had too few candidates (B, 1)."""
    op = node.op
    count = reduce(g, 'ReduceSum', cast(g, positive, _F32, hint=hint + '_posf'), [1],
                   keepdims=True, hint=hint + '_positives')                      # B 1
    wanted = g.add('Floor', [g.add('Mul', [count, scalar(g, op.negative_mining_ratio, _F32,
                                                         'ratio')], hint=hint + '_scaled')],
                   hint=hint + '_wanted')
    wanted = cast(g, g.add('Min', [wanted, g.add('Sub', [scalar(g, a, _F32, hint + '_anchors'),
                                                         count], hint=hint + '_room')],
                           hint=hint + '_to_mine'), _F64, hint=hint + '_to_mine64')
    candidate = g.add('And', [g.add('Not', [positive], hint=hint + '_not_pos'), g.add(
        'Less', [best_iou, scalar(g, float(_F32(op.negative_mining_thresh)), _F64,
                                  'mining_thresh')], hint=hint + '_low')], hint=hint + '_cand')
    scores = cast(g, cls_pred, _F32, hint=hint + '_scores')                    # B C A
    top = reduce(g, 'ReduceMax', scores, [1], keepdims=True, hint=hint + '_top')
    exp = g.add('Exp', [g.add('Sub', [scores, top], hint=hint + '_shift')], hint=hint + '_exp')
    background = g.add('Div', [squeeze(g, slice_axes(g, exp, [0], [1], [1], hint=hint + '_e0'),
                                       [1], hint=hint + '_e0s'),
                               reduce(g, 'ReduceSum', exp, [1], keepdims=False,
                                      hint=hint + '_esum')], hint=hint + '_background')
    # ties in anchor order without relying on a sort's tie rule (symmod's topk keeps
    # MXNet's unstable one): float64 keys made distinct by the anchor index, scaled below
    # the spacing of float32 values (for fewer than 2^18 anchors), offset for zeros
    ids = np.arange(a, dtype=_F64)
    distinct = g.add('Add', [g.add('Mul', [cast(g, background, _F64, hint=hint + '_bg64'),
                                           g.constant(1 + ids * 2.0 ** -42, hint + '_spread')],
                                   hint=hint + '_spread_bg'),
                             g.constant(ids * 1e-300, hint + '_offset')],
                     hint=hint + '_distinct')
    key = g.add('Where', [candidate, distinct, scalar(g, np.inf, _F64, 'inf')],
                hint=hint + '_key')
    _, order = g.add('TopK', [key, g.int64s([a], hint + '_k')],
                     [g.fresh(hint + '_sorted'), g.fresh(hint + '_order')], axis=1, largest=0,
                     sorted=1)
    # each anchor's place in that order: the inverse permutation, by sorting the order
    _, place = g.add('TopK', [cast(g, order, _F64, hint=hint + '_orderf'),
                              g.int64s([a], hint + '_k')],
                     [g.fresh(hint + '_same'), g.fresh(hint + '_place')], axis=1, largest=0,
                     sorted=1)
    chosen = g.add('Less', [cast(g, place, _F64, hint=hint + '_placef'), wanted],
                   hint=hint + '_chosen')
    negative = g.add('And', [candidate, chosen], hint=hint + '_negative')
    short = g.add('Less', [reduce(g, 'ReduceSum', cast(g, candidate, _F64, hint=hint + '_cf'),
                                  [1], keepdims=True, hint=hint + '_cands'), wanted],
                  hint=hint + '_short')
    return negative, short


@translator('_contrib_MultiBoxTarget')
def multibox_target(g, node):
    op, name = node.op, node.name
    if node.in_varying(0) or node.in_varying(1) - {0} or node.in_varying(2) - {0}:
        node.fail('dimensions other than the batch that vary (the anchors and the label '
                  'layout are fixed at export)')
    varying = node.in_varying(1)
    if len(op.variances) != 4:
        node.fail('variances must have 4 values, found %s' % (op.variances,))
    mining = op.negative_mining_ratio > 0
    if mining and not op.negative_mining_thresh > 0:
        node.fail('negative_mining_thresh must be > 0 with negative mining (symmod raises)')
    a = node.in_shape(0)[1]
    if mining and a >= 2 ** 18:
        node.fail('negative mining over %d anchors: its sort keys are exact for fewer than '
                  '2^18' % a)
    items, n_labels, width = node.in_shape(1)
    out_type = node.out_dtype(0)
    anchors = cast(g, reshape_to(g, node.input(0), [1, a, 1, 4], hint=name + '_anchors'), _F32,
                   hint=name + '_anchors32')
    labels = cast(g, node.input(1), _F32, hint=name + '_labels32')
    boxes = unsqueeze(g, slice_axes(g, labels, [1], [5], [2], hint=name + '_boxes'), [1],
                      hint=name + '_boxes4')                                    # B 1 L 4
    anchor_xy = [squeeze(g, c, [3], hint=name + '_a') for c in _coords(g, anchors, 3,
                                                                        name + '_ac')]
    truth_xy = [squeeze(g, c, [3], hint=name + '_g') for c in _coords(g, boxes, 3, name + '_gc')]
    iou = cast(g, _iou(g, anchor_xy, truth_xy, name + '_iou'), _F64, hint=name + '_iou64')
    # the boolean tensors all derive from float64 ones (symmod's import keeps a boolean as
    # 0 / 1 in its producer's type, and its logical operators take one type)
    classes = cast(g, squeeze(g, slice_axes(g, labels, [0], [1], [2], hint=name + '_cls'), [2],
                              hint=name + '_cls2'), _F64, hint=name + '_cls64')  # B L
    ended = g.add('CumSum', [cast(g, g.add('Equal', [classes, scalar(g, -1, _F64, 'minus_one')],
                                           hint=name + '_pad'), _F64,
                                  hint=name + '_padf'),
                             scalar(g, 1, np.int64, 'axis_one')], hint=name + '_ended')
    real = g.add('Equal', [ended, scalar(g, 0, _F64, 'zero')], hint=name + '_real')  # B L
    usable = unsqueeze(g, real, [1], hint=name + '_usable')                    # B 1 L
    has_truth = slice_axes(g, real, [0], [1], [1], hint=name + '_has_truth')     # B 1
    # the start state (no positives, no best IoU / ground truth yet, the real ground
    # truths free) takes the batch size from the labels (it may vary)
    real_f64 = cast(g, real, _F64, hint=name + '_free0')
    zero_col = g.add('Mul', [slice_axes(g, real_f64, [0], [1], [1], hint=name + '_col0'),
                             scalar(g, 0, _F64, 'zero')], hint=name + '_zero_col')  # B 1
    unset = np.concatenate([np.zeros(a), np.full(2 * a, -1.0)])[None, :]
    start = g.add('Concat', [g.add('Add', [zero_col, g.constant(unset, name + '_unset')],
                                   hint=name + '_unset_rows'),
                             real_f64], hint=name + '_start', axis=1)
    s = counted_loop(g, name + '_matching', n_labels, [items, 3 * a + n_labels], start,
                     _greedy_step(iou, usable, a, n_labels), varying)
    positive = cast(g, slice_axes(g, s, [0], [a], [1], hint=name + '_pos'), np.bool_,
                    hint=name + '_posb')
    best_iou = slice_axes(g, s, [a], [2 * a], [1], hint=name + '_best_iou')
    best_gt = slice_axes(g, s, [2 * a], [3 * a], [1], hint=name + '_best_gt')
    masked = g.add('Where', [usable, iou, scalar(g, -np.inf, _F64, 'minus_inf')],
                   hint=name + '_masked')
    top_iou = reduce(g, 'ReduceMax', masked, [2], keepdims=False, hint=name + '_top_iou')
    top_gt = cast(g, g.add('ArgMax', [masked], hint=name + '_top_gt', axis=2, keepdims=0), _F64,
                  hint=name + '_top_gtf')
    best_iou = g.add('Where', [positive, best_iou, top_iou], hint=name + '_iou_all')
    if op.overlap_threshold > 0:
        best_gt = g.add('Where', [positive, best_gt, top_gt], hint=name + '_gt_all')
        positive = g.add('Or', [positive, g.add('Greater', [top_iou, scalar(
            g, float(_F32(op.overlap_threshold)), _F64, 'overlap')], hint=name + '_over')],
            hint=name + '_positive')
    if mining:
        negative, short = _negatives(g, node, positive, best_iou, node.input(2), a,
                                     name + '_mine')
    else:
        negative, short = g.add('Not', [positive], hint=name + '_negative'), None
    rows = _pick_labels(g, best_gt, labels, n_labels, name + '_truth')        # B A width
    picked = [squeeze(g, c, [2], hint=name + '_p') for c in _coords(
        g, slice_axes(g, rows, [1], [5], [2], hint=name + '_truth_box'), 2, name + '_pc')]
    anchor_2d = [squeeze(g, c, [2], hint=name + '_a2') for c in anchor_xy]   # 1 A
    encoded = _encode(g, [unsqueeze(g, c, [2], hint=name + '_a3') for c in anchor_2d],
                      [unsqueeze(g, c, [2], hint=name + '_g3') for c in picked],
                      op.variances, name + '_enc')                              # B A 4
    target = g.add('And', [positive, has_truth], hint=name + '_target')        # B A
    target4 = unsqueeze(g, target, [2], hint=name + '_target4')
    zero = scalar(g, 0, _F32, 'zero_f32')
    loc = g.add('Where', [target4, encoded, zero], hint=name + '_loc')
    mask = g.add('Where', [target4, scalar(g, 1, _F32, 'one_f32'), zero], hint=name + '_mask')
    mask4 = g.add('Mul', [mask, g.constant(np.ones((1, 1, 4), _F32), name + '_four')],
                  hint=name + '_mask4')
    for k, value in enumerate((loc, mask4)):
        cast(g, reshape_to(g, value, [-1, a * 4], hint=name + '_flat%d' % k), out_type,
             out=node.outputs[k])
    ignore = scalar(g, op.ignore_label, _F32, name + '_ignore')
    cls_of = squeeze(g, slice_axes(g, rows, [0], [1], [2], hint=name + '_class'), [2],
                     hint=name + '_class2')
    cls = g.add('Where', [target, g.add('Add', [cls_of, scalar(g, 1, _F32, 'one_f32')],
                                        hint=name + '_class1'),
                          g.add('Where', [g.add('And', [negative, has_truth],
                                                hint=name + '_neg_truth'), zero, ignore],
                                hint=name + '_rest')], hint=name + '_cls_target')
    if short is not None:
        cls = g.add('Where', [g.add('And', [short, has_truth], hint=name + '_short_truth'),
                              scalar(g, np.nan, _F32, 'nan_f32'), cls], hint=name + '_checked')
    cast(g, cls, node.out_dtype(2), out=node.outputs[2])

