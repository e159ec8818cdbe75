"""BatchNorm (inference form), LayerNorm, InstanceNorm, GroupNorm, LRN, L2Normalization."""
import numpy as np

from ..registry import translator
from .common import reduce, reshape_to


def _broadcast_along(g, param, axis, rank, hint):
    """A (C,) parameter reshaped to broadcast along ``axis`` of rank-``rank`` data."""
    shape = [1] * rank
    shape[axis] = -1
    return reshape_to(g, param, shape, hint=hint)


def _no_mean_var(node):
    if node.op.output_mean_var:
        node.fail('output_mean_var=True (ONNX exports the inference form only)')


@translator('BatchNorm', '_contrib_SyncBatchNorm')
def batch_norm(g, node):
    op = node.op
    _no_mean_var(node)
    rank = len(node.in_shape(0))
    axis = op.axis % rank
    channels = node.in_shape(0)[axis]
    dtype = node.in_dtype(1)
    gamma = g.constant(np.ones(channels, dtype), node.name + '_gamma_fixed') \
        if op.fix_gamma else node.input(1)
    beta, mean, var = node.input(2), node.input(3), node.input(4)
    if axis == 1:
        g.add('BatchNormalization', [node.input(0), gamma, beta, mean, var], [node.outputs[0]],
              epsilon=op.eps)
        return
    # another channel axis: (x - mean) / sqrt(var + eps) * gamma + beta, broadcast there
    b = [_broadcast_along(g, p, axis, rank, node.name + suffix) for p, suffix in
         ((gamma, '_gamma'), (beta, '_beta'), (mean, '_mean'), (var, '_var'))]
    eps = g.constant(np.asarray(op.eps, dtype), 'eps')
    std = g.add('Sqrt', [g.add('Add', [b[3], eps], hint=node.name + '_vareps')],
                hint=node.name + '_std')
    centered = g.add('Sub', [node.input(0), b[2]], hint=node.name + '_centered')
    scaled = g.add('Mul', [g.add('Div', [centered, std], hint=node.name + '_norm'), b[0]],
                   hint=node.name + '_scaled')
    g.add('Add', [scaled, b[1]], [node.outputs[0]])


def normalize(g, x, axes, eps, dtype, hint):
    """(x - mean) / sqrt(var + eps) over ``axes`` (kept as size 1)."""
    mean = reduce(g, 'ReduceMean', x, axes, True, hint=hint + '_mean')
    centered = g.add('Sub', [x, mean], hint=hint + '_centered')
    var = reduce(g, 'ReduceMean', g.add('Mul', [centered, centered], hint=hint + '_sq'),
                 axes, True, hint=hint + '_var')
    std = g.add('Sqrt', [g.add('Add', [var, g.constant(np.asarray(eps, dtype), 'eps')],
                               hint=hint + '_vareps')], hint=hint + '_std')
    return g.add('Div', [centered, std], hint=hint + '_norm')


@translator('LayerNorm')
def layer_norm(g, node):
    op = node.op
    _no_mean_var(node)
    rank = len(node.in_shape(0))
    axis = op.axis % rank
    x, gamma, beta = node.input(0), node.input(1), node.input(2)
    if axis == rank - 1 and g.opset >= 17:
        g.add('LayerNormalization', [x, gamma, beta], [node.outputs[0]], axis=-1,
              epsilon=op.eps)
        return
    norm = normalize(g, x, [axis], op.eps, node.in_dtype(0), node.name)
    if axis != rank - 1:
        gamma = _broadcast_along(g, gamma, axis, rank, node.name + '_gamma')
        beta = _broadcast_along(g, beta, axis, rank, node.name + '_beta')
    scaled = g.add('Mul', [norm, gamma], hint=node.name + '_scaled')
    g.add('Add', [scaled, beta], [node.outputs[0]])


@translator('InstanceNorm')
def instance_norm(g, node):
    g.add('InstanceNormalization', [node.input(0), node.input(1), node.input(2)],
          [node.outputs[0]], epsilon=node.op.eps)


@translator('GroupNorm')
def group_norm(g, node):
    op = node.op
    _no_mean_var(node)
    # MXNet's gamma and beta are per group: InstanceNormalization over (N, groups, rest)
    grouped = reshape_to(g, node.input(0), [0, op.num_groups, -1], hint=node.name + '_groups')
    norm = g.add('InstanceNormalization', [grouped, node.input(1), node.input(2)],
                 hint=node.name + '_norm', epsilon=op.eps)
    shape = g.add('Shape', [node.input(0)], hint=node.name + '_shape')
    g.add('Reshape', [norm, shape], [node.outputs[0]])


@translator('LRN')
def lrn(g, node):
    op = node.op
    g.add('LRN', [node.input(0)], [node.outputs[0]], alpha=op.alpha, beta=op.beta,
          bias=op.knorm, size=op.nsize)


@translator('L2Normalization')
def l2_normalization(g, node):
    op = node.op
    rank = len(node.in_shape(0))
    axes = {'instance': list(range(1, rank)), 'channel': [1],
            'spatial': list(range(2, rank))}[op.mode]
    x = node.input(0)
    total = reduce(g, 'ReduceSumSquare', x, axes, True, hint=node.name + '_sumsq')
    eps = g.constant(np.asarray(op.eps, node.in_dtype(0)), 'eps')
    norm = g.add('Sqrt', [g.add('Add', [total, eps], hint=node.name + '_eps')],
                 hint=node.name + '_norm')
    g.add('Div', [x, norm], [node.outputs[0]])
