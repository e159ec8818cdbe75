"""Region proposals: _contrib_Proposal and _contrib_MultiProposal, per image as symmod's
kernel computes them (float32, the few float64 steps in float64).

The anchors and their widths / centres depend on the feature map's size only and are
constants. Deltas move them, boxes are clipped to ``im_info``, cells beyond the image and
boxes below ``rpn_min_size`` get score -1, TopK keeps the ``rpn_pre_nms_top_n`` best
(ties in index order, as the kernel's stable sort), and ONNX NonMaxSuppression runs the
greedy suppression: the kernel's pixel-inclusive IoU (``x2 - x1 + 1``) is ONNX's on
boxes whose far corner is moved by one. The kept boxes fill ``rpn_post_nms_top_n`` rows
cyclically (Gather with ``arange(rows) mod kept``). All images go through one batched
NonMaxSuppression, so the batch may vary (``dynamic=True``).
"""
import numpy as np

from ..registry import translator
from .common import batch_positions, cast, reshape_to, scalar, slice_axes, squeeze, unsqueeze
from .nms import kept_in_order

__all__ = []

_F32, _F64 = np.float32, np.float64


def _constants(op, height, width):
    """Anchors (cells x anchors, 4) in the kernel's order and, for the delta decoding,
    their widths, heights and centres (float32)."""
    from ....ops.proposal import _anchors
    stride = op.feature_stride
    base = _anchors(stride, op.scales, op.ratios)
    shift_y, shift_x = np.meshgrid(np.arange(height) * stride, np.arange(width) * stride,
                                   indexing='ij')
    shifts = np.stack([shift_x, shift_y, shift_x, shift_y], -1).astype(_F32)
    boxes = (shifts[:, :, None, :] + base[None, None]).reshape(-1, 4)
    w = (boxes[:, 2] - boxes[:, 0] + 1.0).astype(_F32)
    h = (boxes[:, 3] - boxes[:, 1] + 1.0).astype(_F32)
    cx = (boxes[:, 0] + 0.5 * (w.astype(_F64) - 1.0)).astype(_F32)
    cy = (boxes[:, 1] + 0.5 * (h.astype(_F64) - 1.0)).astype(_F32)
    return boxes, w, h, cx, cy


def _column(g, m, i, hint):
    """Column ``i`` of an (items, n, 4) tensor as (items, n)."""
    return squeeze(g, slice_axes(g, m, [i], [i + 1], [2], hint=hint), [2], hint=hint)


def _decode(g, node, deltas, hint):
    """(items, n, 4) predicted boxes [x1, y1, x2, y2] before clipping."""
    op = node.op
    boxes, w, h, cx, cy = _constants(op, *node.in_shape(0)[2:])
    if op.iou_loss:
        return g.add('Add', [g.constant(boxes, hint + '_anchors'), deltas], hint=hint + '_pred')
    d = [_column(g, deltas, i, '%s_d%d' % (hint, i)) for i in range(4)]
    w_t, h_t = g.constant(w, hint + '_aw'), g.constant(h, hint + '_ah')
    pcx = g.add('Add', [g.add('Mul', [d[0], w_t], hint=hint + '_dxw'),
                        g.constant(cx, hint + '_acx')], hint=hint + '_pcx')
    pcy = g.add('Add', [g.add('Mul', [d[1], h_t], hint=hint + '_dyh'),
                        g.constant(cy, hint + '_acy')], hint=hint + '_pcy')
    pw = g.add('Mul', [g.add('Exp', [d[2]], hint=hint + '_ew'), w_t], hint=hint + '_pw')
    ph = g.add('Mul', [g.add('Exp', [d[3]], hint=hint + '_eh'), h_t], hint=hint + '_ph')
    half = scalar(g, 0.5, _F64, 'half')
    one = scalar(g, 1.0, _F64, 'one')
    corners = []
    for centre, size, sign in ((pcx, pw, 'Sub'), (pcy, ph, 'Sub'), (pcx, pw, 'Add'),
                               (pcy, ph, 'Add')):
        reach = g.add('Mul', [half, g.add('Sub', [cast(g, size, _F64, hint=hint + '_s64'),
                                                  one], hint=hint + '_sm1')],
                      hint=hint + '_reach')
        corner = g.add(sign, [cast(g, centre, _F64, hint=hint + '_c64'), reach],
                       hint=hint + '_corner')
        corners.append(cast(g, corner, _F32, hint=hint + '_corner32'))
    return g.add('Concat', [unsqueeze(g, c, [2], hint=hint + '_col') for c in corners],
                 hint=hint + '_pred', axis=2)


def _images(g, node, images):
    """(images * rows, 5) proposals and (images * rows, 1) scores of every image;
    ``images`` is None when the batch varies."""
    op, hint, i64 = node.op, node.name, np.int64
    _, channels, height, width = node.in_shape(0)
    anchors = channels // 2
    count = height * width * anchors
    item_ids = batch_positions(g, node.input(0), images, hint)                  # items 1
    cls = slice_axes(g, node.input(0), [anchors], [channels], [1], hint=hint + '_fg')
    score = reshape_to(g, g.add('Transpose', [cls], hint=hint + '_hwa', perm=[0, 2, 3, 1]),
                       [-1, count], hint=hint + '_score')                       # items n
    bbox = reshape_to(g, node.input(1), [-1, anchors, 4, height, width], hint=hint + '_bbox5')
    deltas = reshape_to(g, g.add('Transpose', [bbox], hint=hint + '_bt', perm=[0, 3, 4, 1, 2]),
                        [-1, count, 4], hint=hint + '_deltas')                  # items n 4
    pred = _decode(g, node, deltas, hint)
    im_h, im_w, im_scale = (slice_axes(g, node.input(2), [i], [i + 1], [1],
                                       hint=hint + '_info%d' % i) for i in range(3))  # items 1
    one, zero = scalar(g, 1, _F32, 'one'), scalar(g, 0, _F32, 'zero')
    limit = {0: g.add('Sub', [im_w, one], hint=hint + '_wmax'),
             1: g.add('Sub', [im_h, one], hint=hint + '_hmax')}
    coords = [g.add('Min', [g.add('Max', [_column(g, pred, i, '%s_p%d' % (hint, i)), zero],
                                  hint=hint + '_lo'), limit[i % 2]], hint=hint + '_clip')
              for i in range(4)]
    # cells past the image (int(size / stride)) score -1
    stride = scalar(g, op.feature_stride, _F32, 'stride')
    real = [g.add('Floor', [g.add('Div', [v, stride], hint=hint + '_cells')],
                  hint=hint + '_real') for v in (im_h, im_w)]
    cell_h = np.repeat(np.arange(height), width * anchors).astype(_F32)
    cell_w = np.tile(np.repeat(np.arange(width), anchors), height).astype(_F32)
    beyond = g.add('Or', [g.add('GreaterOrEqual', [g.constant(cell_h, hint + '_cell_h'),
                                                   real[0]], hint=hint + '_below'),
                          g.add('GreaterOrEqual', [g.constant(cell_w, hint + '_cell_w'),
                                                   real[1]], hint=hint + '_right')],
                   hint=hint + '_beyond')
    min_size = g.add('Mul', [scalar(g, op.rpn_min_size, _F32, 'min_size'), im_scale],
                     hint=hint + '_min')
    side = [g.add('Add', [g.add('Sub', [coords[i + 2], coords[i]], hint=hint + '_side'), one],
                  hint=hint + '_side1') for i in (0, 1)]
    small = g.add('Or', [g.add('Less', [s, min_size], hint=hint + '_short') for s in side],
                  hint=hint + '_small')
    grow = g.add('Div', [min_size, scalar(g, 2, _F32, 'two')], hint=hint + '_grow')
    for i in range(4):
        moved = g.add('Sub' if i < 2 else 'Add', [coords[i], grow], hint=hint + '_moved')
        coords[i] = g.add('Where', [small, moved, coords[i]], hint=hint + '_grown')
    minus_one = scalar(g, -1, _F32, 'minus_one')
    score = g.add('Where', [g.add('Or', [beyond, small], hint=hint + '_drop'), minus_one,
                            score], hint=hint + '_scored')
    boxes = g.add('Concat', [unsqueeze(g, c, [2], hint=hint + '_c') for c in coords],
                  hint=hint + '_boxes', axis=2)                                # items n 4
    pre_n = count if op.rpn_pre_nms_top_n <= 0 else min(op.rpn_pre_nms_top_n, count)
    best, order = g.add('TopK', [score, g.int64s([pre_n], 'pre_n')],
                        [g.fresh(hint + '_best'), g.fresh(hint + '_order')], axis=1,
                        largest=1, sorted=1)                                   # items pre_n
    boxes = g.add('Gather', [reshape_to(g, boxes, [-1, 4], hint=hint + '_flat_boxes'),
                             g.add('Add', [order, g.add('Mul', [item_ids, scalar(
                                 g, count, i64, hint + '_count64')], hint=hint + '_base')],
                                   hint=hint + '_at')], hint=hint + '_sorted', axis=0)
    # the kernel's IoU counts pixels (x2 - x1 + 1): ONNX's IoU of boxes one pixel larger
    shift = g.constant(np.array([0, 0, 1, 1], _F32), hint + '_inclusive')
    wide = g.add('Add', [boxes, shift], hint=hint + '_wide')
    selected = g.add('NonMaxSuppression', [
        wide, unsqueeze(g, best, [1], hint=hint + '_nms_scores'),
        g.int64s([min(op.rpn_post_nms_top_n, pre_n)], 'post_n'),
        g.constant(np.array([op.threshold], _F32), hint + '_threshold')], hint=hint + '_nms')
    keep, kept = kept_in_order(g, selected, item_ids, pre_n, hint)
    rows = op.rpn_post_nms_top_n
    sorted_base = g.add('Mul', [item_ids, scalar(g, pre_n, i64, hint + '_pre64')],
                        hint=hint + '_sorted_base')
    cycle = g.add('Mod', [g.int64s(np.arange(rows), hint + '_rows'), kept], hint=hint + '_cycle')
    chosen = g.add('Gather', [reshape_to(g, keep, [-1], hint=hint + '_keep_flat'),
                              g.add('Add', [cycle, sorted_base], hint=hint + '_cycle_at')],
                   hint=hint + '_chosen', axis=0)                              # items rows
    at = g.add('Add', [chosen, sorted_base], hint=hint + '_chosen_at')
    out_boxes = g.add('Gather', [reshape_to(g, boxes, [-1, 4], hint=hint + '_sorted_flat'), at],
                      hint=hint + '_out_boxes', axis=0)                        # items rows 4
    out_scores = reshape_to(g, g.add('Gather', [reshape_to(g, best, [-1], hint=hint + '_bf'),
                                                at], hint=hint + '_out_scores', axis=0),
                            [-1, 1], hint=hint + '_scores')
    index = g.add('Add', [unsqueeze(g, cast(g, item_ids, _F32, hint=hint + '_idf'), [2],
                                    hint=hint + '_id3'),
                          g.constant(np.zeros((rows, 1), _F32), hint + '_index_rows')],
                  hint=hint + '_index')                                        # items rows 1
    proposals = g.add('Concat', [index, out_boxes], hint=hint + '_rows', axis=2)
    return reshape_to(g, proposals, [-1, 5], hint=hint + '_proposals'), out_scores


@translator('_contrib_Proposal', '_contrib_MultiProposal')
def proposal(g, node):
    varying = node.in_varying(0) | node.in_varying(1) | node.in_varying(2)
    if varying - {0}:
        node.fail('input dimensions that vary other than the batch (the anchors follow the '
                  'feature map, fixed at export)')
    if any(node.in_dtype(i) != _F32 for i in range(3)):
        node.fail('float32 inputs only')
    outputs = _images(g, node, None if varying else node.in_shape(0)[0])
    for k, name in enumerate(node.outputs[:2]):
        g.add('Identity', [outputs[k]], [name])
