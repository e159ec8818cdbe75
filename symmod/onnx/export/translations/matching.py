"""_contrib_bipartite_matching: symmod's greedy matching as an ONNX Loop.

The kernel walks the (row, column) pairs in stable score order, matching each pair whose
row and column are both free while its score beats ``threshold`` and stopping at the
first free pair that does not. Since rows and columns only ever become taken, that is
the same as repeating, at most ``min(rows, cols)`` times (``topk + 1`` with ``topk``, as
the kernel checks after assigning): take the best pair among those still free (ArgMax /
ArgMin, first index on ties = the stable order) and match it if it beats the threshold,
else stop. Every batch item steps at once; scores compare in float64 as in the kernel.
"""
import numpy as np

from .. import subgraph
from ..registry import translator
from .common import cast, reshape_to, scalar, slice_axes, unsqueeze

__all__ = []

_F64 = np.float64


def _body(g, node, items, rows, cols, scores, hint):
    """The Loop body graph: (iteration, condition, rows, cols, done) -> (condition, rows,
    cols, done)."""
    op = node.op
    names = [g.fresh(hint + s) for s in ('_i', '_cond', '_rows', '_cols', '_done')]
    _, cond_in, rows_in, cols_in, done_in = names
    minus_one = scalar(g, -1, _F64, 'minus_one')
    free = g.add('And', [
        unsqueeze(g, g.add('Equal', [rows_in, minus_one], hint=hint + '_rfree'), [2],
                  hint=hint + '_rfree3'),
        unsqueeze(g, g.add('Equal', [cols_in, minus_one], hint=hint + '_cfree'), [1],
                  hint=hint + '_cfree3')], hint=hint + '_free')               # B N M
    worst = scalar(g, np.inf if op.is_ascend else -np.inf, _F64, 'worst')
    masked = g.add('Where', [reshape_to(g, free, [-1, rows * cols], hint=hint + '_ff'),
                             scores, worst], hint=hint + '_masked')
    pick = g.add('ArgMin' if op.is_ascend else 'ArgMax', [masked], hint=hint + '_pick', axis=1,
                 keepdims=1)                                                   # B 1
    best = g.add('GatherElements', [masked, pick], hint=hint + '_best', axis=1)
    threshold = scalar(g, float(np.float32(op.threshold)), _F64, 'threshold')
    beats = g.add('Less' if op.is_ascend else 'Greater', [best, threshold], hint=hint + '_beats')
    zero = scalar(g, 0, _F64, 'zero')
    take = g.add('And', [beats, g.add('Equal', [done_in, zero], hint=hint + '_open')],
                 hint=hint + '_take')                                          # B 1
    pick_f = cast(g, pick, _F64, hint=hint + '_pickf')
    width = scalar(g, cols, _F64, 'width')
    row = g.add('Floor', [g.add('Div', [pick_f, width], hint=hint + '_rdiv')], hint=hint + '_row')
    col = g.add('Sub', [pick_f, g.add('Mul', [row, width], hint=hint + '_rm')], hint=hint + '_col')
    row_ids = g.constant(np.arange(rows, dtype=_F64)[None, :], hint + '_row_ids')
    col_ids = g.constant(np.arange(cols, dtype=_F64)[None, :], hint + '_col_ids')
    rows_out = g.add('Where', [g.add('And', [take, g.add('Equal', [row_ids, row],
                                                        hint=hint + '_at_r')],
                                     hint=hint + '_set_r'), col, rows_in], hint=hint + '_rows_out')
    cols_out = g.add('Where', [g.add('And', [take, g.add('Equal', [col_ids, col],
                                                        hint=hint + '_at_c')],
                                     hint=hint + '_set_c'), row, cols_in], hint=hint + '_cols_out')
    done_out = g.add('Where', [beats, done_in, scalar(g, 1, _F64, 'one')],
                     hint=hint + '_done_out')                                 # 1: stopped
    cond_out = g.add('Identity', [cond_in], hint=hint + '_cond_out')
    inputs = [subgraph.value_info(names[0], [], np.int64),
              subgraph.value_info(cond_in, [], np.bool_),
              subgraph.value_info(rows_in, [items, rows], _F64),
              subgraph.value_info(cols_in, [items, cols], _F64),
              subgraph.value_info(done_in, [items, 1], _F64)]
    outputs = [subgraph.value_info(cond_out, [], np.bool_),
               subgraph.value_info(rows_out, [items, rows], _F64),
               subgraph.value_info(cols_out, [items, cols], _F64),
               subgraph.value_info(done_out, [items, 1], _F64)]
    return inputs, outputs


@translator('_contrib_bipartite_matching')
def bipartite_matching(g, node):
    op, name = node.op, node.name
    shape = node.in_shape(0)
    rank = len(shape)
    varying = node.in_varying(0)
    if varying & {rank - 2, rank - 1} or len(varying) > 1:
        node.fail('dimensions that vary other than one batch axis')
    rows, cols = shape[-2:]
    # the batch items flattened (None: their number varies)
    items = None if varying else int(np.prod(shape[:-2], dtype=np.int64))
    scores = reshape_to(g, cast(g, node.input(0), _F64, hint=name + '_scores64'),
                        [-1, rows * cols], hint=name + '_scores')
    steps = min(rows, cols)
    if op.topk > 0:
        steps = min(steps, op.topk + 1)
    outer_nodes, g.onnx_nodes = g.onnx_nodes, []
    inputs, outputs = _body(g, node, items, rows, cols, scores, name + '_step')
    body_nodes, g.onnx_nodes = g.onnx_nodes, outer_nodes
    from ... import _deps
    body = _deps.onnx().helper.make_graph(body_nodes, name + '_body', inputs, outputs)
    # zeros of the items' number (it may vary), from the scores' first column: a score
    # of inf / NaN makes its item's results NaN
    zero_col = g.add('Mul', [slice_axes(g, scores, [0], [1], [1], hint=name + '_col0'),
                             scalar(g, 0, _F64, 'zero')], hint=name + '_zero_col')
    start = [g.add('Add', [zero_col, g.constant(np.full((1, n), -1, _F64), name + '_none')],
                   hint=name + '_unmatched') for n in (rows, cols)]
    trips = reshape_to(g, g.int64s([steps], name + '_steps'), [], hint=name + '_trips')
    matched = g.add('Loop', [trips, ''] + start + [zero_col], 3, hint=name + '_loop',
                    body=body)
    for k, out_shape in enumerate((shape[:-1], shape[:-2] + shape[-1:])):
        target = [-1 if a in varying else size for a, size in enumerate(out_shape)]
        cast(g, reshape_to(g, matched[k], target, hint=name + '_shaped'),
             node.out_dtype(k), out=node.outputs[k])
