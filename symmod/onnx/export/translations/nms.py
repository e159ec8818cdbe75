"""_contrib_box_nms without classes (``id_index`` < 0 or ``force_suppress``): per batch
item, the valid rows (score above ``valid_thresh``, class not ``background_id``) in
score order (TopK; ties in row order, as the kernel's stable sort), the ``topk`` best
suppressed greedily by ONNX NonMaxSuppression, the kept rows first and -1 rows after
(the selection turned into a fixed-size mask: see :func:`kept_in_order`).

Rows that are not valid go into NonMaxSuppression as empty boxes (which suppress
nothing) and are dropped from its result. Suppression within classes read from the data
has no fixed ONNX form and is refused.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes, squeeze

__all__ = ['kept_in_order']


def kept_in_order(g, selected, count, hint, valid=None):
    """The boxes NonMaxSuppression ``selected`` (one batch item and class) kept among
    ``count`` boxes sorted best first, and how many: (an int64 (count,) of their
    positions, ascending = NonMaxSuppression's order, then the others; an int64 (1,)).
    Only ``valid`` (bool (count,)) positions count when given. Fixed shapes throughout:
    the selection's length is never read, so symmod's import (which pads the selection
    with -1 rows) reads the same graph."""
    picks = slice_axes(g, selected, [2], [3], [1], hint=hint + '_pick')           # K 1
    positions = np.arange(count)
    hits = cast(g, g.add('Equal', [picks, g.int64s(positions, hint + '_positions')],
                         hint=hint + '_hit'), np.float32, hint=hint + '_hitf')      # K count
    kept = g.add('Greater', [reduce(g, 'ReduceSum', hits, [0], keepdims=False,
                                    hint=hint + '_hits'), scalar(g, 0, np.float32, 'zero_f32')],
                 hint=hint + '_kept_mask')
    if valid is not None:
        kept = g.add('And', [kept, valid], hint=hint + '_kept_valid')
    spots = g.constant(positions.astype(np.float32), hint + '_spots')
    key = g.add('Where', [kept, spots, g.add('Add', [spots, scalar(g, count, np.float32,
                                                                  hint + '_count')],
                                             hint=hint + '_later')], hint=hint + '_key')
    _, order = g.add('TopK', [key, g.int64s([count], hint + '_all')],
                     [g.fresh(hint + '_keys'), g.fresh(hint + '_kept_order')], largest=0,
                     sorted=1)
    total = reduce(g, 'ReduceSum', cast(g, kept, np.int64, hint=hint + '_kept64'), [0],
                   keepdims=True, hint=hint + '_nkept')
    return order, total


def _item(g, node, rows, b, count, width):
    """(count, width) output rows of batch item ``b`` of ``rows`` (items, count, width)."""
    op, hint, f32 = node.op, '%s_item%d' % (node.name, b), np.float32
    dtype = node.in_dtype(0)
    data = squeeze(g, slice_axes(g, rows, [b], [b + 1], [0], hint=hint), [0], hint=hint)
    score = squeeze(g, slice_axes(g, data, [op.score_index], [op.score_index + 1], [1],
                                  hint=hint + '_score'), [1], hint=hint + '_scores')
    valid = g.add('Greater', [score, scalar(g, op.valid_thresh, dtype, 'valid_thresh')],
                  hint=hint + '_valid')
    if op.id_index >= 0:
        ids = squeeze(g, slice_axes(g, data, [op.id_index], [op.id_index + 1], [1],
                                    hint=hint + '_id'), [1], hint=hint + '_ids')
        valid = g.add('And', [valid, g.add('Not', [g.add('Equal', [
            ids, scalar(g, op.background_id, dtype, 'background')], hint=hint + '_bg')],
            hint=hint + '_fg')], hint=hint + '_valid_fg')
    floor = scalar(g, -np.inf, dtype, 'minus_inf')
    ranked = g.add('Where', [valid, score, floor], hint=hint + '_ranked')
    best = count if op.topk < 0 else min(count, op.topk)
    _, order = g.add('TopK', [ranked, g.int64s([best], 'topk')],
                     [g.fresh(hint + '_best'), g.fresh(hint + '_order')], largest=1, sorted=1)
    sorted_valid = g.add('Gather', [valid, order], hint=hint + '_sorted_valid', axis=0)
    start = op.coord_start
    boxes = g.add('Gather', [slice_axes(g, data, [start], [start + 4], [1], hint=hint + '_xy'),
                             order], hint=hint + '_boxes', axis=0)
    boxes = g.add('Where', [reshape_to(g, sorted_valid, [best, 1], hint=hint + '_vcol'),
                            boxes, scalar(g, 0, dtype, 'zero')], hint=hint + '_live')
    selected = g.add('NonMaxSuppression', [
        reshape_to(g, cast(g, boxes, f32, hint=hint + '_b32'), [1, best, 4], hint=hint + '_b'),
        reshape_to(g, cast(g, g.add('Gather', [ranked, order], hint=hint + '_rs', axis=0), f32,
                           hint=hint + '_s32'), [1, 1, best], hint=hint + '_s'),
        g.int64s([best], 'max_boxes'), g.constant(np.array([op.overlap_thresh], f32),
                                                 hint + '_overlap')],
        hint=hint + '_nms', center_point_box=int(op.in_format == 'center'))
    kept_rows, kept = kept_in_order(g, selected, best, hint, sorted_valid)
    kept_rows = g.add('Gather', [order, kept_rows], hint=hint + '_rows', axis=0)
    # row i of the output: kept row i, or the -1 row appended to the data
    slots = g.int64s(np.arange(count), hint + '_slots')
    index = g.add('Where', [g.add('Less', [slots, kept], hint=hint + '_is_kept'), g.add(
        'Gather', [kept_rows, g.add('Min', [slots, g.int64s([best - 1], hint + '_last')],
                                    hint=hint + '_slot')], hint=hint + '_kept_row', axis=0),
        g.int64s([count], hint + '_fill_row')], hint=hint + '_index')
    pool = g.add('Concat', [data, g.constant(np.full((1, width), -1, dtype), hint + '_minus')],
                 hint=hint + '_pool', axis=0)
    out = g.add('Gather', [pool, index], hint=hint + '_out', axis=0)
    if op.in_format != op.out_format:
        out = _convert(g, node, out, width, hint)
    return out


def _convert(g, node, rows, width, hint):
    """Corner <-> center on the rows whose first coordinate is not negative (the kernel
    leaves the -1 rows, and boxes starting left of 0, alone)."""
    start, dtype = node.op.coord_start, node.in_dtype(0)
    a, b, c, d = (slice_axes(g, rows, [start + i], [start + i + 1], [1],
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
        parts.append(slice_axes(g, rows, [0], [start], [1], hint=hint + '_head'))
    parts += new
    if start + 4 < width:
        parts.append(slice_axes(g, rows, [start + 4], [width], [1], hint=hint + '_tail'))
    converted = g.add('Concat', parts, hint=hint + '_converted', axis=1)
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
    if node.in_varying(0):
        node.fail('dimensions that vary (the batch items are unrolled at export)')
    shape = node.in_shape(0)
    count, width = shape[-2:]
    items = int(np.prod(shape[:-2], dtype=np.int64))
    if (op.topk if op.topk >= 0 else count) < 1:
        g.add('Identity', [node.input(0)], [node.outputs[0]])
        return
    rows = reshape_to(g, node.input(0), [items, count, width], hint=node.name + '_items')
    outs = [_item(g, node, rows, b, count, width) for b in range(items)]
    joined = outs[0] if items == 1 else g.add('Concat', [
        reshape_to(g, o, [1, count, width], hint=node.name + '_one') for o in outs],
        hint=node.name + '_joined', axis=0)
    reshape_to(g, joined, list(shape), out=node.outputs[0])
