"""Reductions (sum, mean, prod, max, min, nansum, nanprod, norm), argmax / argmin, and
the ordering operators topk, sort, argsort."""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to

_REDUCE = {'sum': 'ReduceSum', 'mean': 'ReduceMean', 'prod': 'ReduceProd',
           'max': 'ReduceMax', 'min': 'ReduceMin', 'nansum': 'ReduceSum',
           'nanprod': 'ReduceProd'}


def _reduce_node(g, node, onnx_op, x, axes, keepdims, out):
    rank = len(node.in_shape(0))
    if not axes:
        g.add('Identity', [x], [out])
    elif not keepdims and len(axes) == rank:
        # MXNet's full reduction has shape (1,), ONNX's shape ()
        kept = reduce(g, onnx_op, x, axes, True, hint=node.name + '_all')
        reshape_to(g, kept, [1], out)
    else:
        reduce(g, onnx_op, x, axes, keepdims, out)


def _reduction(onnx_op):
    def translate(g, node):
        op, x = node.op, node.input(0)
        if op.name in ('nansum', 'nanprod'):
            fill = 0.0 if op.name == 'nansum' else 1.0
            x = g.add('Where', [g.add('IsNaN', [x], hint=node.name + '_nan'),
                                g.constant(np.asarray(fill, node.in_dtype(0)), 'fill'), x],
                      hint=node.name + '_clean')
        axes = sorted(op.axes_for(node.in_shape(0)))
        _reduce_node(g, node, onnx_op, x, axes, op.keepdims, node.outputs[0])
    return translate


for _name, _onnx_op in _REDUCE.items():
    translator(_name)(_reduction(_onnx_op))


@translator('norm')
def norm(g, node):
    op = node.op
    onnx_op = {1: 'ReduceL1', 2: 'ReduceL2'}.get(op.ord)
    if onnx_op is None:
        node.fail('ord=%s' % op.ord)
    rank = len(node.in_shape(0))
    axes = list(range(rank)) if op.axis is None else sorted(a % rank for a in op.axis)
    out = node.outputs[0]
    if op.out_dtype is not None and np.dtype(op.out_dtype) != node.in_dtype(0):
        y = g.fresh(node.name + '_norm')
        _reduce_node(g, node, onnx_op, node.input(0), axes, op.keepdims, y)
        cast(g, y, op.out_dtype, out)
    else:
        _reduce_node(g, node, onnx_op, node.input(0), axes, op.keepdims, out)


def _search(onnx_op):
    def translate(g, node):
        op, x = node.op, node.input(0)
        rank = len(node.in_shape(0))
        if op.axis is None:
            x = reshape_to(g, x, [-1], hint=node.name + '_flat')
            found = g.add(onnx_op, [x], hint=node.name + '_idx', axis=0, keepdims=1)
            if op.keepdims and rank > 1:
                found = reshape_to(g, found, [1] * rank, hint=node.name + '_kept')
        else:
            found = g.add(onnx_op, [x], hint=node.name + '_idx', axis=op.axis % rank,
                          keepdims=int(op.keepdims or rank == 1))
        cast(g, found, node.out_dtype(), node.outputs[0])
    return translate


translator('argmax')(_search('ArgMax'))
translator('argmin')(_search('ArgMin'))


@translator('argmax_channel')
def argmax_channel(g, node):
    rank = len(node.in_shape(0))
    found = g.add('ArgMax', [node.input(0)], hint=node.name + '_idx', axis=rank - 1,
                  keepdims=0)
    cast(g, found, node.out_dtype(), node.outputs[0])


def _top(g, node, k, largest):
    """(values, int64 indices) of the top ``k`` along the operator's axis (flattened data
    for axis None)."""
    op, x = node.op, node.input(0)
    if op.axis is None:
        x = reshape_to(g, x, [-1], hint=node.name + '_flat')
        axis = 0
    else:
        axis = op.axis % len(node.in_shape(0))
        if axis in node.in_varying(0) and k is None:
            node.fail('sorting along an axis whose size varies')
    if k is None:
        k = node.in_shape(0)[axis] if op.axis is not None else int(np.prod(node.in_shape(0)))
    return g.add('TopK', [x, g.int64s([k], 'k')], 2, hint=node.name + '_top', axis=axis,
                 largest=int(largest), sorted=1)


@translator('topk')
def topk(g, node):
    op = node.op
    if op.ret_typ == 'mask':
        node.fail("ret_typ='mask'")
    rank_axis = None if op.axis is None else op.axis % len(node.in_shape(0))
    length = int(np.prod(node.in_shape(0))) if rank_axis is None else \
        node.in_shape(0)[rank_axis]
    k = op.k if op.k > 0 else length
    values, indices = _top(g, node, k, not op.is_ascend)
    if op.ret_typ == 'indices':
        cast(g, indices, node.out_dtype(0), node.outputs[0])
    elif op.ret_typ == 'value':
        g.add('Identity', [values], [node.outputs[0]])
    else:
        g.add('Identity', [values], [node.outputs[0]])
        cast(g, indices, node.out_dtype(1), node.outputs[1])


@translator('sort')
def sort(g, node):
    values, _ = _top(g, node, None, not node.op.is_ascend)
    g.add('Identity', [values], [node.outputs[0]])


@translator('argsort')
def argsort(g, node):
    _, indices = _top(g, node, None, not node.op.is_ascend)
    cast(g, indices, node.out_dtype(0), node.outputs[0])
