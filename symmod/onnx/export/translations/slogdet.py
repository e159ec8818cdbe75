"""_linalg_slogdet: LU elimination with partial pivoting as an ONNX Loop over the columns
(float64): each step's pivot adds log|pivot| to the log-determinant and multiplies the
sign by its sign, a row swap flips the sign. A zero pivot (a singular matrix) gives sign
0 and -inf, as symmod; it is replaced by 1 for the division so later steps stay finite.
"""
import numpy as np

from ... import _deps
from .. import subgraph
from ..registry import translator
from .common import cast, reduce, reshape_to, scalar
from .loops import batch_constant, batch_varying, one_hot, pivot_swap

__all__ = []

_F64 = np.float64


def _body(g, shape, hint, varying):
    n, rank = shape[-1], len(shape)
    cols_axis = rank - 1
    one_shape = shape[:-2] + [1, 1]
    names = [g.fresh(hint + s) for s in ('_i', '_cond', '_j', '_m', '_log', '_sign')]
    number, cond_in, j, m, log_in, sign_in = names
    _, e_row, e_col = one_hot(g, n, j, hint)
    zero, one = scalar(g, 0, _F64, 'zero'), scalar(g, 1, _F64, 'one')
    pick, row_p, swapped = pivot_swap(g, m, j, e_col, e_row, n, rank, hint)
    pivot = reduce(g, 'ReduceSum', g.add('Mul', [row_p, e_row], hint=hint + '_pv'),
                   [cols_axis], keepdims=True, hint=hint + '_pivot')            # ... 1 1
    singular = g.add('Equal', [pivot, zero], hint=hint + '_singular')
    safe = g.add('Where', [singular, one, pivot], hint=hint + '_safe')
    factors = reduce(g, 'ReduceSum', g.add('Mul', [swapped, e_row], hint=hint + '_f'),
                     [cols_axis], keepdims=True, hint=hint + '_factors')        # ... n 1
    row_ids = g.constant(np.arange(n, dtype=_F64).reshape(n, 1), hint + '_row_ids')
    below = cast(g, g.add('Greater', [row_ids, j], hint=hint + '_below'), _F64,
                 hint=hint + '_below_f')
    m_out = g.add('Sub', [swapped, g.add('Mul', [g.add('Mul', [factors, below],
                                                       hint=hint + '_fb'),
                                                 g.add('Div', [row_p, safe], hint=hint + '_u')],
                                         hint=hint + '_fu')], hint=hint + '_m_out')
    log_out = g.add('Add', [log_in, g.add('Log', [g.add('Abs', [pivot], hint=hint + '_ap')],
                                          hint=hint + '_lp')], hint=hint + '_log_out')
    flip = g.add('Where', [g.add('Equal', [pick, j], hint=hint + '_stay'), one,
                           scalar(g, -1, _F64, 'minus_one')], hint=hint + '_flip')
    sign_out = g.add('Mul', [g.add('Mul', [sign_in, flip], hint=hint + '_sf'),
                             g.add('Sign', [pivot], hint=hint + '_sp')], hint=hint + '_sign_out')
    j_out = g.add('Add', [j, one], hint=hint + '_j_out')
    cond_out = g.add('Identity', [cond_in], hint=hint + '_cond_out')
    info = subgraph.value_info
    inputs = [info(number, [], np.int64), info(cond_in, [], np.bool_), info(j, [1], _F64),
              info(m, shape, _F64, varying), info(log_in, one_shape, _F64, varying),
              info(sign_in, one_shape, _F64, varying)]
    outputs = [info(cond_out, [], np.bool_), info(j_out, [1], _F64),
               info(m_out, shape, _F64, varying), info(log_out, one_shape, _F64, varying),
               info(sign_out, one_shape, _F64, varying)]
    return inputs, outputs


@translator('_linalg_slogdet')
def slogdet(g, node):
    name = node.name
    varying = batch_varying(node, 0)
    shape = list(node.in_shape(0))
    n = shape[-1]
    outer_nodes, g.onnx_nodes = g.onnx_nodes, []
    inputs, outputs = _body(g, shape, name + '_step', varying)
    body_nodes, g.onnx_nodes = g.onnx_nodes, outer_nodes
    body = _deps.onnx().helper.make_graph(body_nodes, name + '_columns', inputs, outputs)
    trips = g.add('Reshape', [g.int64s([n], name + '_n'), g.int64s([], name + '_0d')],
                  hint=name + '_trips')
    a = cast(g, node.input(0), _F64, hint=name + '_a64')
    results = g.add('Loop', [trips, '', g.constant(np.zeros(1, _F64), name + '_j0'), a,
                             batch_constant(g, [[0.0]], a, shape[:-2], varying, name + '_log0'),
                             batch_constant(g, [[1.0]], a, shape[:-2], varying,
                                            name + '_sign0')], 4,
                    hint=name + '_loop', body=body)
    for k, value in ((0, results[3]), (1, results[2])):
        # the batch axes lead in both shapes: a varying one is copied (0)
        target = [0 if a in varying else size for a, size in enumerate(node.out_shape(k))]
        cast(g, reshape_to(g, value, target, hint=name + '_out'), node.out_dtype(k),
             out=node.outputs[k])
