"""Gemm, MatMul, Conv, ConvTranspose, pooling, normalizations, activations, softmax."""
import math

import numpy as np

from ....base import MXNetError
from ..registry import translator


def _sym():
    from .... import symbol
    return symbol


def _spatial(node, key, count, default):
    values = node.attrs.get(key)
    return tuple(values) if values else (default,) * count


def _symmetric_pads(node, count):
    pads = list(node.attrs.get('pads', [0] * (2 * count)))
    begin, end = pads[:count], pads[count:]
    return tuple(begin), tuple(end)


def _check_auto_pad(node):
    auto_pad = node.attrs.get('auto_pad', 'NOTSET')
    if auto_pad not in ('NOTSET', 'VALID'):
        node.fail('auto_pad=%s (give explicit pads)' % auto_pad)


# ---- dense products ---------------------------------------------------------------------
@translator('Gemm')
def gemm(g, node):
    S = _sym()
    alpha, beta = node.attrs.get('alpha', 1.0), node.attrs.get('beta', 1.0)
    trans_a, trans_b = node.attrs.get('transA', 0), node.attrs.get('transB', 0)
    weight = node.const(1)
    bias = node.const(2) if node.has(2) else None
    if weight is not None and not trans_a and alpha == 1.0 and beta == 1.0 \
            and (bias is None or bias.ndim == 1 or bias.size == weight.shape[1 - trans_b]):
        # y = x W^T + b: MXNet's FullyConnected
        w = node.sym(1) if trans_b else g.new_param(node.inputs[1] + '_T', weight.T)
        num_hidden = weight.shape[0] if trans_b else weight.shape[1]
        if bias is None:
            return S.FullyConnected(node.sym(0), w, num_hidden=num_hidden, no_bias=True,
                                    flatten=False, name=node.name)
        b = node.sym(2) if bias.ndim == 1 else g.new_param(node.inputs[2] + '_flat',
                                                           bias.reshape(-1))
        return S.FullyConnected(node.sym(0), w, b, num_hidden=num_hidden, flatten=False,
                                name=node.name)
    product = S.dot(node.sym(0), node.sym(1), transpose_a=bool(trans_a),
                    transpose_b=bool(trans_b))
    if alpha != 1.0:
        product = product * alpha
    if not node.has(2):
        return S.identity(product, name=node.name)
    c = node.sym(2)
    if beta != 1.0:
        c = c * beta
    return S.broadcast_add(product, c, name=node.name)


@translator('MatMul')
def matmul(g, node):
    S = _sym()
    weight = node.const(1)
    shape_a = node.shape(0)
    if weight is not None and weight.ndim == 2:
        return S.FullyConnected(node.sym(0), g.new_param(node.inputs[1] + '_T', weight.T),
                                num_hidden=weight.shape[1], no_bias=True, flatten=False,
                                name=node.name)
    rank_b = len(node.shape(1)) if node.shape(1) is not None else None
    rank_a = len(shape_a) if shape_a is not None else None
    left = node.const(0)
    if left is not None and left.ndim == 2 and rank_b is not None and rank_b >= 2:
        # A @ B = (B^T A^T)^T on the last two axes of B: a FullyConnected with weight A
        swapped = S.swapaxes(node.sym(1), dim1=rank_b - 2, dim2=rank_b - 1)
        product = S.FullyConnected(swapped, g.new_param(node.inputs[0] + '_left', left),
                                   num_hidden=left.shape[0], no_bias=True, flatten=False)
        return S.swapaxes(product, dim1=rank_b - 2, dim2=rank_b - 1, name=node.name)
    if rank_b == 2:
        return S.dot(node.sym(0), node.sym(1), name=node.name)
    if rank_a is not None and rank_a == rank_b and rank_a >= 3:
        return S.linalg.gemm2(node.sym(0), node.sym(1), name=node.name)
    node.fail('MatMul of ranks %s and %s' % (rank_a, rank_b))


# ---- convolutions ----------------------------------------------------------------------
def _filter_geometry(node):
    """(weight shape, spatial dims, begin pads, end pads) of a Conv / ConvTranspose."""
    _check_auto_pad(node)
    weight_shape = node.shape(1)
    if weight_shape is None:
        node.fail('the weight shape is unknown')
    count = len(weight_shape) - 2
    begin, end = _symmetric_pads(node, count)
    return weight_shape, count, begin, end


@translator('Conv')
def conv(g, node):
    S = _sym()
    weight_shape, count, begin, end = _filter_geometry(node)
    kernel = tuple(node.attrs.get('kernel_shape') or weight_shape[2:])
    data = node.sym(0)
    if begin != end:
        data = _explicit_pad(S, data, begin, end, 0.0, count)
        begin = (0,) * count
    group = node.attrs.get('group', 1)
    args = [data, node.sym(1)] + ([node.sym(2)] if node.has(2) else [])
    return S.Convolution(*args, kernel=kernel, stride=_spatial(node, 'strides', count, 1),
                         dilate=_spatial(node, 'dilations', count, 1), pad=begin,
                         num_filter=weight_shape[0], num_group=group,
                         no_bias=not node.has(2), name=node.name)


def _explicit_pad(S, data, begin, end, value, count):
    """Pad the spatial axes (MXNet's Pad takes 4-D or 5-D data: 1-D data is padded as
    an image of height 1)."""
    if count not in (1, 2, 3):
        raise MXNetError('ONNX import: asymmetric padding needs 1-D, 2-D or 3-D data')
    widths = [0, 0, 0, 0] + ([0, 0] if count == 1 else [])
    for b, e in zip(begin, end):
        widths += [b, e]
    if count == 1:
        data = S.expand_dims(data, axis=2)
    padded = S.Pad(data, mode='constant', pad_width=tuple(widths), constant_value=value)
    return S.squeeze(padded, axis=(2,)) if count == 1 else padded


@translator('ConvTranspose')
def conv_transpose(g, node):
    S = _sym()
    weight_shape, count, begin, end = _filter_geometry(node)
    if begin != end:
        node.fail('asymmetric pads %s / %s' % (begin, end))
    group = node.attrs.get('group', 1)
    kwargs = dict(kernel=tuple(node.attrs.get('kernel_shape') or weight_shape[2:]),
                  stride=_spatial(node, 'strides', count, 1),
                  dilate=_spatial(node, 'dilations', count, 1), pad=begin,
                  adj=_spatial(node, 'output_padding', count, 0),
                  num_filter=weight_shape[1] * group, num_group=group,
                  no_bias=not node.has(2), name=node.name)
    if node.attrs.get('output_shape'):
        kwargs['target_shape'] = tuple(node.attrs['output_shape'][-count:])
    args = [node.sym(0), node.sym(1)] + ([node.sym(2)] if node.has(2) else [])
    return S.Deconvolution(*args, **kwargs)


# ---- pooling -----------------------------------------------------------------------------
def _pool(g, node, pool_type):
    S = _sym()
    _check_auto_pad(node)
    kernel = tuple(node.attrs['kernel_shape'])
    count = len(kernel)
    stride = _spatial(node, 'strides', count, 1)
    if any(d != 1 for d in node.attrs.get('dilations', ())):
        node.fail('dilated pooling')
    begin, end = _symmetric_pads(node, count)
    ceil_mode = node.attrs.get('ceil_mode', 0)
    convention = 'full' if ceil_mode else 'valid'
    if ceil_mode and any(begin + end):
        node.fail('ceil_mode with padding (ONNX and MXNet place the last window differently)')
    include_pad = bool(node.attrs.get('count_include_pad', 0))
    data = node.sym(0)
    if begin != end and pool_type == 'avg' and include_pad:
        # every window divides by its full size: pool the zero-padded data
        data = _explicit_pad(S, data, begin, end, 0.0, count)
        begin = (0,) * count
    elif begin != end:
        # MXNet's 'full' (or 1-D 'same') convention is ONNX's extra end padding when the
        # output sizes agree; otherwise the data are padded explicitly
        convention = _convention_of_end_padding(node, kernel, stride, begin, end)
        if convention is None:
            return _padded_pool(S, node, data, kernel, stride, begin, end, pool_type)
    kwargs = dict(kernel=kernel, stride=stride, pad=begin, pool_type=pool_type,
                  pooling_convention=convention, name=node.name)
    if pool_type == 'avg':
        kwargs['count_include_pad'] = include_pad
    if pool_type == 'lp':
        kwargs['p_value'] = node.attrs.get('p', 2)
    return S.Pooling(data, **kwargs)


def _convention_of_end_padding(node, kernel, stride, begin, end):
    """'full' or 'same' when MXNet's convention gives ONNX's output sizes, else None."""
    shape, out = node.shape(0), node.out_shape(0)
    if shape is None or out is None or None in shape[2:] or None in out[2:] or any(
            e < b for b, e in zip(begin, end)):
        return None
    sizes = list(zip(shape[2:], begin, kernel, stride, out[2:]))
    if all(1 + math.ceil((n + 2 * b - k) / s) == o for n, b, k, s, o in sizes):
        return 'full'
    if len(kernel) == 1 and not any(begin) and all(math.ceil(n / s) == o
                                                   for n, b, k, s, o in sizes):
        return 'same'
    return None


def _padded_pool(S, node, data, kernel, stride, begin, end, pool_type):
    """Pooling with any pads, ONNX's way (pads never counted, never the maximum): the
    data padded explicitly, then 'valid' windows; an average divides the window sums by
    the number of real elements in each."""
    count = len(kernel)
    kwargs = dict(kernel=kernel, stride=stride, pooling_convention='valid')
    if pool_type == 'max':
        low = float(np.finfo(np.dtype(node.graph.types.get(node.inputs[0], np.float32))).min)
        return S.Pooling(_explicit_pad(S, data, begin, end, low, count), pool_type='max',
                         name=node.name, **kwargs)
    if pool_type == 'lp':
        return S.Pooling(_explicit_pad(S, data, begin, end, 0.0, count), pool_type='lp',
                         p_value=node.attrs.get('p', 2), name=node.name, **kwargs)
    total = S.Pooling(_explicit_pad(S, data, begin, end, 0.0, count), pool_type='sum',
                      **kwargs)
    real = S.Pooling(_explicit_pad(S, S.ones_like(data), begin, end, 0.0, count),
                     pool_type='sum', **kwargs)
    return S.broadcast_div(total, real, name=node.name)


translator('MaxPool')(lambda g, node: _max_pool(g, node))
translator('AveragePool')(lambda g, node: _pool(g, node, 'avg'))
translator('LpPool')(lambda g, node: _pool(g, node, 'lp'))


def _max_pool(g, node):
    if len(node.outputs) > 1 and node.outputs[1]:
        node.fail('the Indices output')
    if node.attrs.get('storage_order', 0):
        node.fail('storage_order=1')
    return _pool(g, node, 'max')


def _global(pool_type):
    def translate(g, node):
        kwargs = {'p_value': node.attrs.get('p', 2)} if pool_type == 'lp' else {}
        return _sym().Pooling(node.sym(0), kernel=(1, 1), global_pool=True,
                              pool_type=pool_type, name=node.name, **kwargs)
    return translate


translator('GlobalMaxPool')(_global('max'))
translator('GlobalAveragePool')(_global('avg'))
translator('GlobalLpPool')(_global('lp'))


# ---- normalization ---------------------------------------------------------------------
@translator('BatchNormalization')
def batch_norm(g, node):
    if node.attrs.get('training_mode', 0) or len([o for o in node.outputs if o]) > 1:
        node.fail('training mode')
    S = _sym()
    return S.BatchNorm(node.sym(0), node.sym(1), node.sym(2), node.sym(3), node.sym(4),
                       eps=node.attrs.get('epsilon', 1e-5),
                       momentum=node.attrs.get('momentum', 0.9), fix_gamma=False,
                       use_global_stats=True, name=node.name)


@translator('InstanceNormalization')
def instance_norm(g, node):
    return _sym().InstanceNorm(node.sym(0), node.sym(1), node.sym(2),
                               eps=node.attrs.get('epsilon', 1e-5), name=node.name)


@translator('LayerNormalization')
def layer_norm(g, node):
    shape = node.shape(0)
    axis = node.attrs.get('axis', -1)
    if shape is None or axis % len(shape) != len(shape) - 1:
        node.fail('normalizing over more than the last axis (axis=%d)' % axis)
    if len([o for o in node.outputs if o]) > 1:
        node.fail('the Mean / InvStdDev outputs')
    beta = node.sym(2) if node.has(2) else g.new_param(
        node.name + '_beta', np.zeros(node.shape(1), np.float32))
    return _sym().LayerNorm(node.sym(0), node.sym(1), beta, axis=-1,
                            eps=node.attrs.get('epsilon', 1e-5), name=node.name)


@translator('LRN')
def lrn(g, node):
    return _sym().LRN(node.sym(0), alpha=node.attrs.get('alpha', 1e-4),
                      beta=node.attrs.get('beta', 0.75), knorm=node.attrs.get('bias', 1.0),
                      nsize=node.attrs['size'], name=node.name)


@translator('Dropout')
def dropout(g, node):
    training = node.const(2) if node.has(2) else None
    if training is not None and bool(training):
        ratio = node.const(1)
        return _sym().Dropout(node.sym(0), p=float(0.5 if ratio is None else ratio),
                              mode='always', name=node.name)
    return _sym().identity(node.sym(0), name=node.name)


# ---- activations ---------------------------------------------------------------------------
_ACTIVATION = {'Relu': 'relu', 'Sigmoid': 'sigmoid', 'Tanh': 'tanh', 'Softplus': 'softrelu',
               'Softsign': 'softsign'}


def _activation(act_type):
    def translate(g, node):
        return _sym().Activation(node.sym(0), act_type=act_type, name=node.name)
    return translate


for _op, _act in _ACTIVATION.items():
    translator(_op)(_activation(_act))


@translator('LeakyRelu')
def leaky_relu(g, node):
    return _sym().LeakyReLU(node.sym(0), act_type='leaky', slope=node.attrs.get('alpha', 0.01),
                            name=node.name)


@translator('Elu')
def elu(g, node):
    return _sym().LeakyReLU(node.sym(0), act_type='elu', slope=node.attrs.get('alpha', 1.0),
                            name=node.name)


@translator('Selu')
def selu(g, node):
    alpha = node.attrs.get('alpha', 1.67326319217681884765625)
    gamma = node.attrs.get('gamma', 1.05070102214813232421875)
    if abs(alpha - 1.6732632) > 1e-6 or abs(gamma - 1.0507010) > 1e-6:
        node.fail('alpha / gamma other than SELU\'s constants')
    return _sym().LeakyReLU(node.sym(0), act_type='selu', name=node.name)


@translator('Gelu')
def gelu(g, node):
    if node.attrs.get('approximate', 'none') != 'none':
        node.fail("approximate='tanh'")
    return _sym().LeakyReLU(node.sym(0), act_type='gelu', name=node.name)


@translator('PRelu')
def prelu(g, node):
    slope = node.const(1)
    shape = node.shape(0)
    if slope is None or shape is None:
        node.fail('the slope must be a constant and the data rank known')
    # ONNX aligns the slope's shape to the data's right end: one slope per channel is a
    # shape whose only non-1 dimension lands on axis 1
    aligned = (1,) * (len(shape) - slope.ndim) + tuple(slope.shape)
    if slope.size == 1:
        gamma = slope.reshape(1)
    elif len(shape) >= 2 and aligned[1] == slope.size == shape[1]:
        gamma = slope.reshape(-1)
    else:
        node.fail('slope of shape %s (MXNet has one slope per channel)' % (slope.shape,))
    return _sym().LeakyReLU(node.sym(0), g.new_param(node.inputs[1] + '_gamma', gamma),
                            act_type='prelu', name=node.name)


@translator('HardSigmoid')
def hard_sigmoid(g, node):
    return _sym().hard_sigmoid(node.sym(0), alpha=node.attrs.get('alpha', 0.2),
                               beta=node.attrs.get('beta', 0.5), name=node.name)


def _softmax(kind):
    def translate(g, node):
        S = _sym()
        shape = node.shape(0)
        func = S.softmax if kind == 'Softmax' else S.log_softmax
        default = -1 if g.opset >= 13 else 1
        axis = node.attrs.get('axis', default)
        if g.opset >= 13:
            return func(node.sym(0), axis=axis, name=node.name)
        if shape is None:
            node.fail('the input rank is unknown (before opset 13 Softmax flattens)')
        axis %= len(shape)
        if axis == len(shape) - 1:
            return func(node.sym(0), axis=-1, name=node.name)
        flat = S.Reshape(node.sym(0), shape=(-1,) if axis == 0 else (0,) * axis + (-1,))
        return S.reshape_like(func(flat, axis=-1), node.sym(0), name=node.name)
    return translate


translator('Softmax')(_softmax('Softmax'))
translator('LogSoftmax')(_softmax('LogSoftmax'))
