"""_linalg_potrf: the Cholesky factor as an ONNX Loop over the columns, in float64.

The symmetric matrix is read from the requested triangle, as symmod does. Step j (a
float64 loop variable, selecting with a one-hot vector e_j) computes column j of the
lower factor L from the columns before it, which are the only non-zero ones yet:
``v = A e_j - L (e_j^T L)^T``, ``L[j, j] = sqrt(v_j)``, ``L[i, j] = v_i / L[j, j]`` below
the diagonal. Products are written as broadcast multiplications and sums, so any leading
batch axes follow. LAPACK's rounding differs in the last bits; a matrix that is not
positive definite gives NaN (symmod raises LAPACK's error; an ONNX graph cannot).
"""
import numpy as np

from .. import subgraph
from ..registry import translator
from .common import cast, reduce, scalar

__all__ = []

_F64 = np.float64


def _step_graph(g, node, shape, a, hint):
    """Loop body: (iteration, condition, j, L) -> (condition, j + 1, L with column j)."""
    n = shape[-1]
    rank = len(shape)
    names = [g.fresh(hint + s) for s in ('_i', '_cond', '_j', '_l')]
    _, cond_in, j_in, l_in = names
    positions = g.constant(np.arange(n, dtype=_F64), hint + '_positions')
    e = cast(g, g.add('Equal', [positions, j_in], hint=hint + '_hot'), _F64, hint=hint + '_e')
    e_row = g.add('Reshape', [e, g.int64s([1, n], hint + '_row_shape')], hint=hint + '_e_row')
    e_col = g.add('Reshape', [e, g.int64s([n, 1], hint + '_col_shape')], hint=hint + '_e_col')
    last, before_last = rank - 1, rank - 2
    a_col = reduce(g, 'ReduceSum', g.add('Mul', [a, e_row], hint=hint + '_ae'), [last],
                   keepdims=True, hint=hint + '_a_col')                        # ... n 1
    l_row = reduce(g, 'ReduceSum', g.add('Mul', [l_in, e_col], hint=hint + '_le'),
                   [before_last], keepdims=True, hint=hint + '_l_row')         # ... 1 n
    done = reduce(g, 'ReduceSum', g.add('Mul', [l_in, l_row], hint=hint + '_ll'), [last],
                  keepdims=True, hint=hint + '_done')                          # ... n 1
    v = g.add('Sub', [a_col, done], hint=hint + '_v')
    pivot = g.add('Sqrt', [reduce(g, 'ReduceSum', g.add('Mul', [v, e_col], hint=hint + '_ve'),
                                  [before_last], keepdims=True, hint=hint + '_vj')],
                  hint=hint + '_pivot')                                        # ... 1 1
    below = cast(g, g.add('Greater', [positions, j_in], hint=hint + '_gt'), _F64,
                 hint=hint + '_below')
    below_col = g.add('Reshape', [below, g.int64s([n, 1], hint + '_b_shape')],
                      hint=hint + '_below_col')
    column = g.add('Add', [g.add('Mul', [g.add('Div', [v, pivot], hint=hint + '_scaled'),
                                         below_col], hint=hint + '_lower'),
                           g.add('Mul', [e_col, pivot], hint=hint + '_diag')],
                   hint=hint + '_column')                                      # ... n 1
    l_out = g.add('Add', [l_in, g.add('Mul', [column, e_row], hint=hint + '_place')],
                  hint=hint + '_l_out')
    j_out = g.add('Add', [j_in, scalar(g, 1, _F64, 'one')], hint=hint + '_j_out')
    cond_out = g.add('Identity', [cond_in], hint=hint + '_cond_out')
    inputs = [subgraph.value_info(names[0], [], np.int64),
              subgraph.value_info(cond_in, [], np.bool_),
              subgraph.value_info(j_in, [1], _F64),
              subgraph.value_info(l_in, shape, _F64)]
    outputs = [subgraph.value_info(cond_out, [], np.bool_),
               subgraph.value_info(j_out, [1], _F64),
               subgraph.value_info(l_out, shape, _F64)]
    return inputs, outputs


@translator('_linalg_potrf')
def potrf(g, node):
    if node.in_varying(0):
        node.fail('dimensions that vary')
    name, shape = node.name, list(node.in_shape(0))
    n, rank = shape[-1], len(shape)
    a = cast(g, node.input(0), _F64, hint=name + '_a64')
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    mirrored = g.add('Transpose', [a], hint=name + '_mirrored', perm=perm)
    keep = np.tril(np.ones((n, n), bool)) if node.op.lower else np.triu(np.ones((n, n), bool))
    a = g.add('Where', [g.constant(keep, name + '_triangle'), a, mirrored],
              hint=name + '_symmetric')
    outer_nodes, g.onnx_nodes = g.onnx_nodes, []
    inputs, outputs = _step_graph(g, node, shape, a, name + '_col')
    body_nodes, g.onnx_nodes = g.onnx_nodes, outer_nodes
    from ... import _deps
    body = _deps.onnx().helper.make_graph(body_nodes, name + '_columns', inputs, outputs)
    trips = g.add('Reshape', [g.int64s([n], name + '_n'), g.int64s([], name + '_scalar')],
                  hint=name + '_trips')
    _, factor = g.add('Loop', [trips, '', g.constant(np.zeros(1, _F64), name + '_j0'),
                               g.constant(np.zeros(shape, _F64), name + '_l0')], 2,
                      hint=name + '_loop', body=body)
    if not node.op.lower:
        factor = g.add('Transpose', [factor], hint=name + '_upper', perm=perm)
    cast(g, factor, node.out_dtype(), out=node.outputs[0])
