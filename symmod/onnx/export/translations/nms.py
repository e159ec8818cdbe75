"""_contrib_box_nms without classes (``id_index`` < 0 or ``force_suppress``), all batch
items at once (so the batch may vary, ``dynamic=True``): per item, the valid rows (score above ``valid_thresh``, class not ``background_id``) in
score order (TopK; ties in row order, as the kernel's stable sort), the ``topk`` best
suppressed greedily by ONNX NonMaxSuppression, the kept rows first and -1 rows after
(the selection turned into a fixed-size mask per item). The items' rows are read from
the flattened rows at offsets made from the items' positions: constants, or an ONNX Range
over the batch size when it varies.

Rows that are not valid go into NonMaxSuppression as empty boxes (which suppress
nothing) and are dropped from its result. Suppression within classes read from the data
has no fixed ONNX form and is refused.
"""
import numpy as np

from ..registry import translator
from .common import (batch_positions, cast, reduce, reshape_to, scalar, slice_axes,
                     squeeze, unsqueeze)

__all__ = ['kept_mask', 'kept_in_order']


def kept_mask(g, selected, item_ids, count, hint):
    """bool (items, count): whether NonMaxSuppression ``selected`` (rows [item, class,
    box], any classes) kept box ``box`` of item ``item``; ``item_ids`` is the int64
    (items, 1) of :func:`batch_positions`. Fixed shapes throughout: the selection's length
    is never read, so symmod's import (which pads the selection with -1 rows) reads the
    same graph."""
    i64 = np.int64
    width = scalar(g, count, i64, hint + '_count64')
    picked = g.add('Add', [g.add('Mul', [
        slice_axes(g, selected, [0], [1], [1], hint=hint + '_sel_item'), width],
        hint=hint + '_sel_base'), slice_axes(g, selected, [2], [3], [1], hint=hint + '_sel_box')],
        hint=hint + '_sel_flat')                                                # S 1
    slots = g.add('Add', [g.add('Mul', [item_ids, width], hint=hint + '_slot_base'),
                          g.int64s(np.arange(count), hint + '_spots64')],
                  hint=hint + '_slots')                                         # items count
    hits = g.add('Equal', [unsqueeze(g, picked, [2], hint=hint + '_sel3'),
                           unsqueeze(g, slots, [0], hint=hint + '_slots3')], hint=hint + '_hit')
    return g.add('Greater', [
        reduce(g, 'ReduceSum', cast(g, hits, np.float32, hint=hint + '_hitf'), [0],
               keepdims=False, hint=hint + '_hits'), scalar(g, 0, np.float32, 'zero_f32')],
        hint=hint + '_kept_mask')


def kept_in_order(g, selected, item_ids, count, hint, valid=None):
    """The boxes NonMaxSuppression ``selected`` kept among each item's ``count`` boxes
    sorted best first, and how many: (an int64 (items, count) of their positions,
    ascending = NonMaxSuppression's order, then the others; an int64 (items, 1)). Only
    ``valid`` (bool (items, count)) positions count when given."""
    kept = kept_mask(g, selected, item_ids, count, hint)
    if valid is not None:
        kept = g.add('And', [kept, valid], hint=hint + '_kept_valid')
    spots = g.constant(np.arange(count, dtype=np.float32), hint + '_spots')
    key = g.add('Where', [kept, spots, g.add('Add', [spots, scalar(g, count, np.float32,
                                                                  hint + '_count')],
                                             hint=hint + '_later')], hint=hint + '_key')
    _, order = g.add('TopK', [key, g.int64s([count], hint + '_all')],
                     [g.fresh(hint + '_keys'), g.fresh(hint + '_kept_order')], axis=1,
                     largest=0, sorted=1)
    total = reduce(g, 'ReduceSum', cast(g, kept, np.int64, hint=hint + '_kept64'), [1],
                   keepdims=True, hint=hint + '_nkept')
    return order, total


def _items(g, node, rows, items, count, width):
    """Output rows (items, count, width) of every batch item of ``rows`` at once; ``items``
    is None when the number of items varies."""
    op, hint, f32, i64 = node.op, node.name, np.float32, np.int64
    dtype = node.in_dtype(0)
    best = count if op.topk < 0 else min(count, op.topk)
    # each item's first row in the flattened (items * count, width) rows, and first of best
    positions = batch_positions(g, rows, items, hint)
    row_base = g.add('Mul', [positions, scalar(g, count, i64, hint + '_count64')],
                     hint=hint + '_row_base')
    best_base = g.add('Mul', [positions, scalar(g, best, i64, hint + '_best64')],
                      hint=hint + '_best_base')
    flat = reshape_to(g, rows, [-1, width], hint=hint + '_flat')

    def column(index, what):
        return squeeze(g, slice_axes(g, rows, [index], [index + 1], [2], hint=hint + what),
                       [2], hint=hint + what + 's')
    score = column(op.score_index, '_score')                                    # items N
    valid = g.add('Greater', [score, scalar(g, op.valid_thresh, dtype, 'valid_thresh')],
                  hint=hint + '_valid')
    if op.id_index >= 0:
        valid = g.add('And', [valid, g.add('Not', [g.add('Equal', [
            column(op.id_index, '_id'), scalar(g, op.background_id, dtype, 'background')],
            hint=hint + '_bg')], hint=hint + '_fg')], hint=hint + '_valid_fg')
    ranked = g.add('Where', [valid, score, scalar(g, -np.inf, dtype, 'minus_inf')],
                   hint=hint + '_ranked')
    _, order = g.add('TopK', [ranked, g.int64s([best], 'topk')],
                     [g.fresh(hint + '_best'), g.fresh(hint + '_order')], axis=1, largest=1,
                     sorted=1)                                                  # items K
    flat_order = g.add('Add', [order, row_base], hint=hint + '_flat_order')
    sorted_valid = g.add('Gather', [reshape_to(g, valid, [-1], hint=hint + '_valid_flat'),
                                    flat_order], hint=hint + '_sorted_valid', axis=0)
    sorted_scores = g.add('Gather', [reshape_to(g, ranked, [-1], hint=hint + '_ranked_flat'),
                                     flat_order], hint=hint + '_sorted_scores', axis=0)
    start = op.coord_start
    boxes = g.add('Gather', [slice_axes(g, flat, [start], [start + 4], [1], hint=hint + '_xy'),
                             flat_order], hint=hint + '_boxes', axis=0)         # items K 4
    boxes = g.add('Where', [unsqueeze(g, sorted_valid, [2], hint=hint + '_valid3'), boxes,
                            scalar(g, 0, dtype, 'zero')], hint=hint + '_live')
    selected = g.add('NonMaxSuppression', [
        cast(g, boxes, f32, hint=hint + '_b32'),
        unsqueeze(g, cast(g, sorted_scores, f32, hint=hint + '_s32'), [1], hint=hint + '_s'),
        g.int64s([best], 'max_boxes'), g.constant(np.array([op.overlap_thresh], f32),
                                                 hint + '_overlap')],
        hint=hint + '_nms', center_point_box=int(op.in_format == 'center'))     # S 3
    kept_order, total = kept_in_order(g, selected, positions, best, hint, sorted_valid)
    kept_rows = g.add('Gather', [reshape_to(g, order, [-1], hint=hint + '_order_flat'),
                                 g.add('Add', [kept_order, best_base], hint=hint + '_kof')],
                      hint=hint + '_kept_rows', axis=0)                          # items K
    # output row i: kept row i while i < total, else a row of -1
    out_slots = g.int64s(np.arange(count), hint + '_out_slots')
    chosen = g.add('Gather', [kept_rows, g.add('Min', [
        out_slots, g.int64s([best - 1], hint + '_last')], hint=hint + '_slot')],
        hint=hint + '_chosen', axis=1)                                           # items N
    gathered = g.add('Gather', [flat, g.add('Add', [chosen, row_base], hint=hint + '_at')],
                     hint=hint + '_gathered', axis=0)                            # items N W
    is_kept = unsqueeze(g, g.add('Less', [out_slots, total], hint=hint + '_is_kept'), [2],
                        hint=hint + '_is_kept3')
    out = g.add('Where', [is_kept, gathered, scalar(g, -1, dtype, 'minus_one')],
                hint=hint + '_out')
    if op.in_format != op.out_format:
        out = _convert(g, node, out, width, hint)
    return out


def _convert(g, node, rows, width, hint):
    """Corner <-> center on the rows whose first coordinate is not negative (the kernel
    leaves the -1 rows, and boxes starting left of 0, alone)."""
    start, dtype = node.op.coord_start, node.in_dtype(0)
    a, b, c, d = (slice_axes(g, rows, [start + i], [start + i + 1], [2],
                             hint='%s_c%d' % (hint, i)) for i in range(4))
    two = scalar(g, 2, dtype, 'two')
    if node.op.out_format == 'center':
        new = [g.add('Div', [g.add('Add', [a, c], hint=hint + '_sx'), two], hint=hint + '_cx'),
               g.add('Div', [g.add('Add', [b, d], hint=hint + '_sy'), two], hint=hint + '_cy'),
               g.add('Sub', [c, a], hint=hint + '_w'), g.add('Sub', [d, b], hint=hint + '_h')]
    else:
        half_w = g.add('Div', [c, two], hint=hint + '_hw')
        half_h = g.add('Div', [d, two], hint=hint + '_hh')
        new = [g.add('Sub', [a, half_w], hint=hint + '_x0'),
               g.add('Sub', [b, half_h], hint=hint + '_y0'),
               g.add('Add', [a, half_w], hint=hint + '_x1'),
               g.add('Add', [b, half_h], hint=hint + '_y1')]
    parts = []
    if start:
        parts.append(slice_axes(g, rows, [0], [start], [2], hint=hint + '_head'))
    parts += new
    if start + 4 < width:
        parts.append(slice_axes(g, rows, [start + 4], [width], [2], hint=hint + '_tail'))
    converted = g.add('Concat', parts, hint=hint + '_converted', axis=2)
    keep = g.add('GreaterOrEqual', [a, scalar(g, 0, dtype, 'zero')], hint=hint + '_convert')
    return g.add('Where', [keep, converted, rows], hint=hint + '_formatted')


@translator('_contrib_box_nms')
def box_nms(g, node):
    op = node.op
    if op.id_index >= 0 and not op.force_suppress:
        node.fail('suppression within each class (id_index=%d, force_suppress=False): the '
                  'class ids are data, and ONNX NonMaxSuppression keeps classes on a fixed '
                  'axis; export with force_suppress=True (or id_index=-1) for suppression '
                  'across classes' % op.id_index)
    shape = node.in_shape(0)
    count, width = shape[-2:]
    varying = node.in_varying(0)
    if varying & {len(shape) - 2, len(shape) - 1}:
        node.fail('a number of boxes or a row width that varies (only the batch axes may)')
    items = None if varying else int(np.prod(shape[:-2], dtype=np.int64))
    if (op.topk if op.topk >= 0 else count) < 1:
        g.add('Identity', [node.input(0)], [node.outputs[0]])
        return
    rows = reshape_to(g, node.input(0), [-1, count, width], hint=node.name + '_items')
    out = _items(g, node, rows, items, count, width)
    if varying:
        g.add('Reshape', [out, g.add('Shape', [node.input(0)], hint=node.name + '_in_shape')],
              [node.outputs[0]])
    else:
        reshape_to(g, out, list(shape), out=node.outputs[0])
