"""MXNet's interleaved multi-head attention products (contrib transformer operators).

Projections are (seq_length, batch, heads * parts * head_dim) with each head's query /
key / value side by side; the ONNX graph reshapes them to (L, B, heads, parts, head_dim),
picks a part, and multiplies per (batch, head) with MatMul on (B, heads, L, head_dim)
tensors. Scores leave as (B * heads, Lq, Lk), values as (Lq, B, heads * head_dim), as
symmod's operators give them; sequence lengths and batch may vary (dynamic export).
"""
import numpy as np

from ..registry import translator
from .common import reshape_to, scalar


def _heads_of(g, node, index, parts, part, hint):
    """Part ``part`` of input ``index`` as (B, heads, L, head_dim)."""
    heads = node.op.heads
    split = reshape_to(g, node.input(index), [0, 0, heads, parts, -1], hint=hint + '_heads')
    picked = g.add('Gather', [split, g.int64s([part], 'part')], hint=hint + '_part', axis=3)
    moved = g.add('Transpose', [picked], hint=hint + '_moved', perm=[1, 2, 0, 3, 4])
    return reshape_to(g, moved, [0, 0, 0, -1], hint=hint)


def _scaled_queries(g, node, queries, width, parts):
    dtype = node.out_dtype()
    head_dim = width // (node.op.heads * parts)
    factor = dtype.type(1) / np.sqrt(dtype.type(head_dim))
    return g.add('Mul', [queries, scalar(g, factor, dtype, 'scale')], hint=node.name + '_q')


def _fixed(node):
    return not any(node.in_varying(i) for i in range(node.num_inputs))


def _flatten_heads(g, node, x, out, hint):
    """(B, heads, Lq, Lk) -> (B * heads, Lq, Lk), the last two sizes read at run time
    when they vary."""
    if _fixed(node):
        reshape_to(g, x, list(node.out_shape(0)), out=out)
        return
    tail = g.add('Slice', [g.add('Shape', [x], hint=hint + '_shape'), g.int64s([2], 'two'),
                           g.int64s([4], 'four')], hint=hint + '_tail')
    shape = g.add('Concat', [g.int64s([-1], 'minus_one'), tail], hint=hint + '_target', axis=0)
    g.add('Reshape', [x, shape], [out])


def _scores(g, node, queries, keys):
    product = g.add('MatMul', [queries, g.add('Transpose', [keys], hint=node.name + '_kT',
                                               perm=[0, 1, 3, 2])], hint=node.name + '_qk')
    _flatten_heads(g, node, product, node.outputs[0], node.name)


@translator('_contrib_interleaved_matmul_selfatt_qk')
def selfatt_qk(g, node):
    width = node.in_shape(0)[2]
    q = _heads_of(g, node, 0, 3, 0, node.name + '_query')
    k = _heads_of(g, node, 0, 3, 1, node.name + '_key')
    _scores(g, node, _scaled_queries(g, node, q, width, 3), k)


@translator('_contrib_interleaved_matmul_encdec_qk')
def encdec_qk(g, node):
    heads = node.op.heads
    q = g.add('Transpose', [reshape_to(g, node.input(0), [0, 0, heads, -1],
                                       hint=node.name + '_qheads')],
              hint=node.name + '_query', perm=[1, 2, 0, 3])
    k = _heads_of(g, node, 1, 2, 0, node.name + '_key')
    _scores(g, node, _scaled_queries(g, node, q, node.in_shape(0)[2], 1), k)


def _values(parts):
    def translate(g, node):
        heads = node.op.heads
        v = _heads_of(g, node, 0, parts, parts - 1, node.name + '_value')
        att = node.input(1)
        if _fixed(node):
            shape = g.int64s([-1, heads] + list(node.in_shape(1)[1:]), 'att_shape')
        else:
            tail = g.add('Slice', [g.add('Shape', [att], hint=node.name + '_att_shape'),
                                   g.int64s([1], 'one'), g.int64s([3], 'three')],
                         hint=node.name + '_att_tail')
            shape = g.add('Concat', [g.int64s([-1, heads], 'batch_heads'), tail],
                          hint=node.name + '_att_target', axis=0)
        att = g.add('Reshape', [att, shape], hint=node.name + '_att')
        mixed = g.add('MatMul', [att, v], hint=node.name + '_mixed')
        moved = g.add('Transpose', [mixed], hint=node.name + '_moved', perm=[2, 0, 1, 3])
        reshape_to(g, moved, [0, 0, -1], out=node.outputs[0])
    return translate


translator('_contrib_interleaved_matmul_selfatt_valatt')(_values(3))
translator('_contrib_interleaved_matmul_encdec_valatt')(_values(2))
