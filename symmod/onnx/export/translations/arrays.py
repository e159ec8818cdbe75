"""Array construction and array math: eye / linspace / arange, diag, cumsum, moments.

Operators without inputs (eye, linspace, arange) are computed by symmod at export time
and stored as initializers, like every node whose inputs are all constants.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, squeeze


@translator('_eye', '_linspace', '_arange')
def computed_at_export(g, node):
    """Reached only when the output's shape follows a dynamic input (arange's
    ``infer_range``): the values are computed at export time for fixed shapes."""
    node.fail('its output shape varies with the dynamic inputs; it is computed at export '
              'time, which needs a fixed shape')


# ---- diag ------------------------------------------------------------------------------
@translator('diag')
def diag(g, node):
    """Gathers with constant indices: the k-th diagonal of the (axis1, axis2) planes, or
    a 1-D input placed on the k-th diagonal of a zero matrix."""
    op, shape = node.op, node.in_shape(0)
    if len(shape) == 1:
        if node.in_varying(0):
            node.fail('a 1-D input whose length varies (the matrix size is fixed at export)')
        n, side = shape[0], node.out_shape(0)[0]
        index = np.full((side, side), n, np.int64)       # n: the appended zero
        rows = np.arange(n)
        cols = rows + op.k
        if op.k < 0:
            rows, cols = rows - op.k, np.arange(n)
        index[rows, cols] = np.arange(n)
        zero = g.constant(np.zeros(1, node.in_dtype(0)), 'zero')
        padded = g.add('Concat', [node.input(0), zero], hint=node.name + '_padded', axis=0)
        g.add('Gather', [padded, g.constant(index, 'index')], [node.outputs[0]])
        return
    rank = len(shape)
    a1, a2 = op._axes(rank)
    if {a1, a2} & set(node.in_varying(0)):
        node.fail('the diagonal planes vary in size (indices are fixed at export)')
    rest = [a for a in range(rank) if a not in (a1, a2)]
    planes = g.add('Transpose', [node.input(0)], hint=node.name + '_planes',
                   perm=rest + [a1, a2])
    rows, cols = shape[a1], shape[a2]
    flat = reshape_to(g, planes, [0] * len(rest) + [rows * cols], hint=node.name + '_flat')
    r, c = op._diag_index(rows, cols)
    g.add('Gather', [flat, g.int64s(r * cols + c, 'diagonal')], [node.outputs[0]],
          axis=len(rest))


# ---- cumsum ----------------------------------------------------------------------------
@translator('_np_cumsum')
def cumsum(g, node):
    op, x = node.op, node.input(0)
    if node.in_dtype(0) != node.out_dtype():
        x = cast(g, x, node.out_dtype(), hint=node.name + '_typed')
    axis = op.axis
    if axis is None:
        x, axis = reshape_to(g, x, [-1], hint=node.name + '_flat'), 0
    g.add('CumSum', [x, g.constant(np.asarray(axis, np.int64), 'axis')], [node.outputs[0]])


# ---- moments ---------------------------------------------------------------------------
@translator('moments')
def moments(g, node):
    """Mean and variance computed in double, as symmod, then cast back."""
    op, dtype = node.op, node.out_dtype(0)
    axes = list(op._axes(len(node.in_shape(0))))
    x = cast(g, node.input(0), np.float64, hint=node.name + '_double')
    mean = reduce(g, 'ReduceMean', x, axes, True, hint=node.name + '_mean')
    centred = g.add('Sub', [x, mean], hint=node.name + '_centred')
    var = reduce(g, 'ReduceMean', g.add('Mul', [centred, centred], hint=node.name + '_sq'),
                 axes, op.keepdims, hint=node.name + '_var')
    if not op.keepdims:
        mean = squeeze(g, mean, axes, hint=node.name + '_mean_squeezed')
    cast(g, mean, dtype, node.outputs[0])
    cast(g, var, dtype, node.outputs[1])
