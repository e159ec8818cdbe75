"""Matrix products of ``mx.sym.linalg`` (gemm, syrk, trmm), sumlogdiag and det, the
flat-index conversions _ravel_multi_index / _unravel_index, and softmax_cross_entropy.

The matrices are the last two axes (``axis`` -2), as ONNX MatMul takes them.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, softmax, unsqueeze
from .elemwise import _swap_last, matrix_product


def _scaled(g, node, x, value, hint, out=None):
    """``x * value`` (``value`` in the output's type), or ``x`` when value is 1."""
    if value == 1.0:
        return x if out is None else g.add('Identity', [x], [out])
    outs = None if out is None else [out]
    return g.add('Mul', [x, scalar(g, value, node.out_dtype(), hint)], outs,
                 hint=node.name + '_' + hint)


@translator('_linalg_gemm')
def gemm(g, node):
    """``alpha * op(A) op(B) + beta * C``."""
    op = node.op
    product = _scaled(g, node, matrix_product(g, node), op.alpha, 'alpha')
    g.add('Add', [product, _scaled(g, node, node.input(2), op.beta, 'beta')],
          [node.outputs[0]])


@translator('_linalg_syrk')
def syrk(g, node):
    """``alpha * A A^T`` (``A^T A`` with transpose)."""
    op, a = node.op, node.input(0)
    at = _swap_last(g, a, len(node.in_shape(0)), node.name + '_aT')
    pair = [at, a] if op.transpose else [a, at]
    _scaled(g, node, g.add('MatMul', pair, hint=node.name + '_aa'), op.alpha, 'alpha',
            out=node.outputs[0])


@translator('_linalg_trmm')
def trmm(g, node):
    """``alpha * op(tri(A)) B`` (``B op(tri(A))`` rightside), tri the lower or upper
    triangle."""
    op, rank = node.op, len(node.in_shape(0))
    n = node.in_shape(0)[-1]
    keep = np.tril(np.ones((n, n))) if op.lower else np.triu(np.ones((n, n)))
    tri = g.add('Mul', [node.input(0), g.constant(keep.astype(node.in_dtype(0)), 'triangle')],
                hint=node.name + '_tri')
    if op.transpose:
        tri = _swap_last(g, tri, rank, node.name + '_triT')
    pair = [node.input(1), tri] if op.rightside else [tri, node.input(1)]
    _scaled(g, node, g.add('MatMul', pair, hint=node.name + '_product'), op.alpha, 'alpha',
            out=node.outputs[0])


@translator('_linalg_sumlogdiag')
def sumlogdiag(g, node):
    n = node.in_shape(0)[-1]
    flat = reshape_to(g, node.input(0), [0] * (len(node.in_shape(0)) - 2) + [n * n],
                      hint=node.name + '_flat')
    diagonal = g.add('Gather', [flat, g.int64s(np.arange(n) * (n + 1), 'diagonal')],
                     hint=node.name + '_diag', axis=len(node.in_shape(0)) - 2)
    logs = g.add('Log', [diagonal], hint=node.name + '_log')
    reduce(g, 'ReduceSum', logs, [-1], False, out=node.outputs[0])


@translator('_linalg_det')
def det(g, node):
    """ONNX Det (symmod's hidden LU outputs are not exported)."""
    g.add('Det', [node.input(0)], [node.outputs[0]])


def _strides(shape):
    return np.cumprod((list(shape[1:]) + [1])[::-1])[::-1].astype(np.int64)


@translator('_ravel_multi_index')
def ravel_multi_index(g, node):
    """``sum_i data[i] * stride_i`` over the (M, ...) index rows."""
    strides = _strides(node.op.shape)
    count = node.in_shape(0)[0]
    column = [count] + [1] * (len(node.in_shape(0)) - 1)
    weights = g.constant(strides[-count:].reshape(column).astype(node.in_dtype(0)), 'strides')
    weighted = g.add('Mul', [node.input(0), weights], hint=node.name + '_weighted')
    reduce(g, 'ReduceSum', weighted, [0], False, out=node.outputs[0])


@translator('_unravel_index')
def unravel_index(g, node):
    """Row i is ``(data // stride_i) mod shape_i``, in int64 (indices are integers)."""
    shape = np.asarray(node.op.shape, np.int64)
    rank = len(node.in_shape(0))
    flat = cast(g, g.add('Floor', [node.input(0)], hint=node.name + '_floor'), np.int64,
                hint=node.name + '_int')
    column = [len(shape)] + [1] * rank
    rows = unsqueeze(g, flat, [0], hint=node.name + '_row')
    quotient = g.add('Div', [rows, g.constant(_strides(shape).reshape(column), 'strides')],
                     hint=node.name + '_quotient')
    digits = g.add('Mod', [quotient, g.constant(shape.reshape(column), 'sizes')],
                   hint=node.name + '_digits')
    cast(g, digits, node.out_dtype(), out=node.outputs[0])


@translator('softmax_cross_entropy')
def softmax_cross_entropy(g, node):
    """``sum_i -log softmax(data_i)[label_i]`` as a (1,) array."""
    rank = len(node.in_shape(0))
    log_p = softmax(g, node.input(0), rank - 1, rank, hint=node.name + '_logp',
                    op_type='LogSoftmax')
    labels = cast(g, reshape_to(g, node.input(1), [-1, 1], hint=node.name + '_col'), np.int64,
                  hint=node.name + '_labels')
    picked = g.add('GatherElements', [log_p, labels], hint=node.name + '_picked', axis=1)
    total = reduce(g, 'ReduceSum', picked, None, False, hint=node.name + '_sum')
    g.add('Neg', [reshape_to(g, total, [1], hint=node.name + '_total')], [node.outputs[0]])


@translator('_gluon_softmax_ce_loss')
def gluon_softmax_ce_loss(g, node):
    """``-log softmax(data_i)[label_i]`` per sample, labels clipped to the classes."""
    classes = node.in_shape(0)[1]
    if 1 in node.in_varying(0):
        node.fail('a class axis whose size varies')
    log_p = softmax(g, node.input(0), 1, 2, hint=node.name + '_logp', op_type='LogSoftmax')
    labels = cast(g, reshape_to(g, node.input(1), [-1, 1], hint=node.name + '_col'), np.int64,
                  hint=node.name + '_labels')
    labels = g.add('Clip', [labels, g.constant(np.asarray(0, np.int64), 'zero'),
                            g.constant(np.asarray(classes - 1, np.int64), 'last_class')],
                   hint=node.name + '_clipped')
    picked = g.add('GatherElements', [log_p, labels], hint=node.name + '_picked', axis=1)
    g.add('Neg', [reshape_to(g, picked, [-1], hint=node.name + '_flat')], [node.outputs[0]])
