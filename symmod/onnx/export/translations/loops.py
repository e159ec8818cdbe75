"""Counted ONNX Loops for the elimination-style translations (Cholesky, substitution,
Gauss-Jordan): one float64 state updated once per row / column, the step index a
float64 loop variable that selects rows and columns through one-hot vectors (compared
with float64 positions directly, with no cast of ONNX's int64 iteration number)."""
import numpy as np

from ... import _deps
from .. import subgraph
from .common import cast, reduce, scalar, slice_axes

__all__ = ['counted_loop', 'one_hot', 'pivot_swap', 'batch_constant', 'batch_varying']

_F64 = np.float64


def one_hot(g, n, index, hint):
    """(positions (n,), e as a (1, n) row, e as an (n, 1) column) for ``index`` (a float64
    (1,) tensor)."""
    positions = g.constant(np.arange(n, dtype=_F64), hint + '_positions')
    e = cast(g, g.add('Equal', [positions, index], hint=hint + '_hot'), _F64, hint=hint + '_e')
    e_row = g.add('Reshape', [e, g.int64s([1, n], hint + '_row_shape')], hint=hint + '_e_row')
    e_col = g.add('Reshape', [e, g.int64s([n, 1], hint + '_col_shape')], hint=hint + '_e_col')
    return positions, e_row, e_col


def counted_loop(g, hint, steps, shape, initial, step, varying=()):
    """The float64 state of ``shape`` after ``step(g, j, state) -> new state`` for
    j = 0 .. steps - 1, as an ONNX Loop (its outputs carry no shape for ONNX inference,
    so the result is reshaped to ``shape``, the ``varying`` axes copied)."""
    outer_nodes, g.onnx_nodes = g.onnx_nodes, []
    number, cond_in, j_in, state_in = (g.fresh(hint + s) for s in
                                       ('_i', '_cond', '_j', '_state'))
    state_out = step(g, j_in, state_in)
    j_out = g.add('Add', [j_in, scalar(g, 1, _F64, 'one')], hint=hint + '_j_out')
    cond_out = g.add('Identity', [cond_in], hint=hint + '_cond_out')
    body_nodes, g.onnx_nodes = g.onnx_nodes, outer_nodes
    value_info = subgraph.value_info
    inputs = [value_info(number, [], np.int64), value_info(cond_in, [], np.bool_),
              value_info(j_in, [1], _F64), value_info(state_in, shape, _F64, varying)]
    outputs = [value_info(cond_out, [], np.bool_), value_info(j_out, [1], _F64),
               value_info(state_out, shape, _F64, varying)]
    body = _deps.onnx().helper.make_graph(body_nodes, hint + '_body', inputs, outputs)
    trips = g.add('Reshape', [g.int64s([steps], hint + '_steps'), g.int64s([], hint + '_0d')],
                  hint=hint + '_trips')
    _, final = g.add('Loop', [trips, '', g.constant(np.zeros(1, _F64), hint + '_j0'), initial],
                     2, hint=hint + '_loop', body=body)
    target = [0 if a in varying else size for a, size in enumerate(shape)]
    return g.add('Reshape', [final, g.int64s(target, hint + '_shape')], hint=hint + '_final')


def batch_varying(node, *inputs):
    """The varying axes of the inputs, which may only be batch axes."""
    varying = frozenset().union(*(node.in_varying(i) for i in inputs))
    rank = len(node.in_shape(inputs[0]))
    if varying & {rank - 2, rank - 1}:
        node.fail('matrix dimensions that vary (only the batch axes may)')
    return varying


def batch_constant(g, value, like, batch, varying, hint):
    """The float64 matrix ``value`` repeated over the leading ``batch`` axes of ``like``
    (a float64 tensor of the same rank): a constant when no batch axis varies, else the
    constant plus zeros of ``like``'s batch shape (``0 * like[..., :1, :1]``: an item
    holding inf / NaN gets NaN, as its factorization would)."""
    value = np.asarray(value, _F64)
    if not varying:
        return g.constant(np.broadcast_to(value, list(batch) + list(value.shape)).copy(), hint)
    rank = len(batch) + 2
    corner = slice_axes(g, like, [0, 0], [1, 1], [rank - 2, rank - 1], hint=hint + '_corner')
    zeros = g.add('Mul', [corner, scalar(g, 0, _F64, 'zero')], hint=hint + '_zeros')
    return g.add('Add', [g.constant(value, hint), zeros], hint=hint + '_batched')


def pivot_swap(g, m, j, e_col, e_wide, n, rank, hint):
    """Partial pivoting at column j of ``m`` (..., n, width) of ``rank`` axes: the row at
    or below j with the largest ``|m[i, j]|`` (ArgMax: the first on ties) swapped with
    row j. Returns (its index, float64 (..., 1, 1); the pivot row (..., 1, width); the
    swapped m)."""
    rows_axis, cols_axis = rank - 2, rank - 1
    row_ids = g.constant(np.arange(n, dtype=_F64).reshape(n, 1), hint + '_row_ids')
    column = reduce(g, 'ReduceSum', g.add('Mul', [m, e_wide], hint=hint + '_mc'), [cols_axis],
                    keepdims=True, hint=hint + '_column')                       # ... n 1
    size = g.add('Where', [g.add('GreaterOrEqual', [row_ids, j], hint=hint + '_eligible'),
                           g.add('Abs', [column], hint=hint + '_abs'),
                           scalar(g, -1, _F64, 'minus_one')], hint=hint + '_size')
    pick = cast(g, g.add('ArgMax', [size], hint=hint + '_pick', axis=rows_axis, keepdims=1),
                _F64, hint=hint + '_pickf')
    p_col = cast(g, g.add('Equal', [row_ids, pick], hint=hint + '_at_pivot'), _F64,
                 hint=hint + '_p_col')
    row_j = reduce(g, 'ReduceSum', g.add('Mul', [m, e_col], hint=hint + '_mj'), [rows_axis],
                   keepdims=True, hint=hint + '_row_j')
    row_p = reduce(g, 'ReduceSum', g.add('Mul', [m, p_col], hint=hint + '_mp'), [rows_axis],
                   keepdims=True, hint=hint + '_row_p')
    gap = g.add('Sub', [row_p, row_j], hint=hint + '_gap')
    swapped = g.add('Sub', [g.add('Add', [m, g.add('Mul', [e_col, gap], hint=hint + '_up')],
                                  hint=hint + '_s1'),
                            g.add('Mul', [p_col, gap], hint=hint + '_down')], hint=hint + '_sw')
    return pick, row_p, swapped
