"""_linalg_inverse: Gauss-Jordan elimination with partial pivoting on ``[A | I]`` as an
ONNX Loop over the columns, in float64.

Step j picks the row at or below j with the largest ``|M[i, j]|`` (ArgMax, first on
ties), swaps it with row j, scales it to a unit pivot and subtracts its multiples from
every other row; after n steps the right half is ``A^-1``. Rows are selected with
one-hot vectors and products written as broadcast multiply-sums, so leading batch axes
follow. LAPACK (getrf/getri) rounds differently in the last bits; a singular matrix
gives inf/NaN (symmod raises LAPACK's error; an ONNX graph cannot).
"""
import numpy as np

from ..registry import translator
from .cholesky import loop_signature
from .common import cast, reduce, scalar, slice_axes

__all__ = []

_F64 = np.float64


def _elimination_graph(g, shape, hint):
    """Loop body: (iteration, condition, j, M) -> (condition, j + 1, M after column j)."""
    n, rank = shape[-2], len(shape)
    width = shape[-1]
    rows_axis, cols_axis = rank - 2, rank - 1
    names = [g.fresh(hint + s) for s in ('_i', '_cond', '_j', '_m')]
    _, cond_in, j_in, m_in = names
    row_ids = g.constant(np.arange(n, dtype=_F64).reshape(n, 1), hint + '_row_ids')
    col_ids = g.constant(np.arange(width, dtype=_F64).reshape(1, width), hint + '_col_ids')
    e_col = cast(g, g.add('Equal', [row_ids, j_in], hint=hint + '_at_row'), _F64,
                 hint=hint + '_e_col')                                          # n 1
    e_wide = cast(g, g.add('Equal', [col_ids, j_in], hint=hint + '_at_col'), _F64,
                  hint=hint + '_e_wide')                                        # 1 2n
    column = reduce(g, 'ReduceSum', g.add('Mul', [m_in, e_wide], hint=hint + '_mc'),
                    [cols_axis], keepdims=True, hint=hint + '_column')         # ... n 1
    eligible = g.add('GreaterOrEqual', [row_ids, j_in], hint=hint + '_eligible')
    size = g.add('Where', [eligible, g.add('Abs', [column], hint=hint + '_abs'),
                           scalar(g, -1, _F64, 'minus_one')], hint=hint + '_size')
    pick = cast(g, g.add('ArgMax', [size], hint=hint + '_pick', axis=rows_axis, keepdims=1),
                _F64, hint=hint + '_pickf')                                    # ... 1 1
    p_col = cast(g, g.add('Equal', [row_ids, pick], hint=hint + '_at_pivot'), _F64,
                 hint=hint + '_p_col')                                          # ... n 1
    row_j = reduce(g, 'ReduceSum', g.add('Mul', [m_in, e_col], hint=hint + '_mj'),
                   [rows_axis], keepdims=True, hint=hint + '_row_j')           # ... 1 2n
    row_p = reduce(g, 'ReduceSum', g.add('Mul', [m_in, p_col], hint=hint + '_mp'),
                   [rows_axis], keepdims=True, hint=hint + '_row_p')
    gap = g.add('Sub', [row_p, row_j], hint=hint + '_gap')
    swapped = g.add('Sub', [g.add('Add', [m_in, g.add('Mul', [e_col, gap], hint=hint + '_up')],
                                  hint=hint + '_s1'),
                            g.add('Mul', [p_col, gap], hint=hint + '_down')],
                    hint=hint + '_swapped')
    pivot = reduce(g, 'ReduceSum', g.add('Mul', [row_p, e_wide], hint=hint + '_pv'),
                   [cols_axis], keepdims=True, hint=hint + '_pivot')           # ... 1 1
    unit = g.add('Div', [row_p, pivot], hint=hint + '_unit')                   # ... 1 2n
    factors = reduce(g, 'ReduceSum', g.add('Mul', [swapped, e_wide], hint=hint + '_f'),
                     [cols_axis], keepdims=True, hint=hint + '_factors')       # ... n 1
    reduced = g.add('Sub', [swapped, g.add('Mul', [factors, unit], hint=hint + '_fu')],
                    hint=hint + '_reduced')
    m_out = g.add('Add', [reduced, g.add('Mul', [e_col, unit], hint=hint + '_pr')],
                  hint=hint + '_m_out')
    j_out = g.add('Add', [j_in, scalar(g, 1, _F64, 'one')], hint=hint + '_j_out')
    cond_out = g.add('Identity', [cond_in], hint=hint + '_cond_out')
    return loop_signature(names[0], cond_in, cond_out, [(j_in, j_out, [1], _F64),
                                                       (m_in, m_out, shape, _F64)])


@translator('_linalg_inverse')
def inverse(g, node):
    name = node.name
    if node.in_varying(0):
        node.fail('dimensions that vary')
    shape = list(node.in_shape(0))
    n = shape[-1]
    augmented_shape = shape[:-1] + [2 * n]
    identity = g.constant(np.broadcast_to(np.eye(n), shape).copy(), name + '_identity')
    augmented = g.add('Concat', [cast(g, node.input(0), _F64, hint=name + '_a64'), identity],
                      hint=name + '_augmented', axis=len(shape) - 1)
    outer_nodes, g.onnx_nodes = g.onnx_nodes, []
    inputs, outputs = _elimination_graph(g, augmented_shape, name + '_step')
    body_nodes, g.onnx_nodes = g.onnx_nodes, outer_nodes
    from ... import _deps
    body = _deps.onnx().helper.make_graph(body_nodes, name + '_columns', inputs, outputs)
    trips = g.add('Reshape', [g.int64s([n], name + '_n'), g.int64s([], name + '_scalar')],
                  hint=name + '_trips')
    _, reduced = g.add('Loop', [trips, '', g.constant(np.zeros(1, _F64), name + '_j0'),
                                augmented], 2, hint=name + '_loop', body=body)
    reduced = g.add('Reshape', [reduced, g.int64s(augmented_shape, name + '_shape')],
                    hint=name + '_reduced')
    result = slice_axes(g, reduced, [n], [2 * n], [len(shape) - 1], hint=name + '_right')
    cast(g, result, node.out_dtype(), out=node.outputs[0])
