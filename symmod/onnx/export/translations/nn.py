"""FullyConnected, Convolution, Deconvolution, Pooling, UpSampling, Embedding, Dropout."""
import functools

import numpy as np

from ..registry import translator
from .common import cast, reduce

_CHANNEL_FIRST = (None, 'NCW', 'NCHW', 'NCDHW')


@translator('FullyConnected')
def fully_connected(g, node):
    op, x = node.op, node.input(0)
    rank = len(node.in_shape(0))
    weight = node.input(1)
    bias = [] if op.no_bias else [node.input(2)]
    if op.flatten or rank == 2:
        if rank > 2:
            x = g.add('Flatten', [x], hint=node.name + '_flat', axis=1)
        g.add('Gemm', [x, weight] + bias, [node.outputs[0]], transB=1)
        return
    # flatten=False on N-d data: a product over the last axis
    wt = g.add('Transpose', [weight], hint=node.name + '_wT', perm=[1, 0])
    if op.no_bias:
        g.add('MatMul', [x, wt], [node.outputs[0]])
    else:
        y = g.add('MatMul', [x, wt], hint=node.name + '_matmul')
        g.add('Add', [y] + bias, [node.outputs[0]])


def _check_layout(node):
    if node.op.layout not in _CHANNEL_FIRST:
        node.fail('layout %s: ONNX convolutions and pooling are channel-first (NCW, NCHW, '
                  'NCDHW)' % node.op.layout)


@translator('Convolution')
def convolution(g, node):
    op = node.op
    _check_layout(node)
    inputs = [node.input(0), node.input(1)] + ([] if op.no_bias else [node.input(2)])
    g.add('Conv', inputs, [node.outputs[0]], kernel_shape=list(op.kernel),
          strides=list(op.strides), dilations=list(op.dilates), pads=list(op.pads) * 2,
          group=op.num_group)


@translator('Deconvolution')
def deconvolution(g, node):
    op = node.op
    _check_layout(node)
    inputs = [node.input(0), node.input(1)] + ([] if op.no_bias else [node.input(2)])
    spatial_varies = any(a >= 2 for a in node.in_varying(0))
    if op.target and spatial_varies:
        node.fail('target_shape with spatial dimensions that vary')
    pads, adjs = op.padding(node.in_shape(0)[2:])
    deconv(g, inputs, node.outputs[0], op.kernel, op.strides, op.dilates, pads, adjs,
           op.num_group)


def deconv(g, inputs, out, kernel, strides, dilates, pads, adjs, group):
    """ONNX ConvTranspose with MXNet's symmetric pad and end-only adj."""
    g.add('ConvTranspose', inputs, [out], kernel_shape=list(kernel), strides=list(strides),
          dilations=list(dilates), pads=list(pads) * 2, output_padding=list(adjs),
          group=group)


@translator('Pooling')
def pooling(g, node):
    op, x = node.op, node.input(0)
    _check_layout(node)
    out, rank = node.outputs[0], len(node.in_shape(0))
    if op.global_pool:
        _global_pool(g, node, x, out, rank)
        return
    kernel, strides, pads = list(op.kernel), list(op.strides), list(op.pads)
    # MXNet's 'full' and 'same' conventions add windows past the end that ONNX's
    # ceil_mode would clip differently: pad the end explicitly by what they need
    if op.pooling_convention == 'valid':
        extra = [0] * len(kernel)
    elif any(a >= 2 for a in node.in_varying(0)):
        if any(pads) or op.pool_type in ('sum', 'lp'):
            node.fail("pooling_convention='%s' with padding or %s pooling when the spatial "
                      "dimensions vary" % (op.pooling_convention, op.pool_type))
        # without padding ONNX's ceil_mode windows are MXNet's (avg counts real elements)
        attrs = dict(kernel_shape=kernel, strides=strides, ceil_mode=1)
        if op.pool_type == 'max':
            g.add('MaxPool', [x], [out], **attrs)
        else:
            g.add('AveragePool', [x], [out], count_include_pad=0, **attrs)
        return
    else:
        extra = [(o - 1) * s + k - (size + 2 * p) for o, s, k, size, p in
                 zip(node.out_shape(0)[2:], strides, kernel, node.in_shape(0)[2:], pads)]
        extra = [max(e, 0) for e in extra]
    begin, end = pads, [p + e for p, e in zip(pads, extra)]
    # ONNX wants each pad below the kernel; windows lying wholly past the end (a stride
    # above the kernel with 'full') are the constant MXNet gives empty windows, padded on
    # after the pool
    end = [min(e, k - 1) for e, k in zip(end, kernel)]
    pooled = [(size + b + e - k) // s + 1 for size, b, e, k, s in
              zip(node.in_shape(0)[2:], begin, end, kernel, strides)]
    missing = [o - p for o, p in zip(node.out_shape(0)[2:], pooled)]
    y = out if not any(missing) else g.fresh(node.name + '_pooled')
    attrs = dict(kernel_shape=kernel, strides=strides)
    if op.pool_type == 'max':
        g.add('MaxPool', [x], [y], pads=begin + end, **attrs)
    elif op.pool_type == 'avg':
        include_pad = op.count_include_pad is None or op.count_include_pad
        if include_pad and any(extra) and any(pads):
            # MXNet's divisor counts the pad but not the extra end windows, which no ONNX
            # attribute says: window sums over MXNet's divisors (the shapes are static)
            total = _window_sum(g, node, x, attrs, begin + end)
            divisors = _mxnet_divisors(node.in_shape(0)[2:], pooled, kernel,
                                       strides, pads).astype(node.out_dtype())
            g.add('Div', [total, g.constant(divisors, node.name + '_divisors')], [y])
        else:
            g.add('AveragePool', [x], [y], pads=begin + end,
                  count_include_pad=int(include_pad and not any(extra)), **attrs)
    elif op.pool_type == 'sum':
        _window_sum(g, node, x, attrs, begin + end, y)
    else:
        g.add('LpPool', [x], [y], p=op.p_value, pads=begin + end, **attrs)
    if any(missing):
        empty = np.finfo(node.out_dtype()).min if op.pool_type == 'max' else 0
        g.add('Pad', [y, g.int64s([0] * len(node.out_shape(0)) + [0, 0] + missing, 'pads'),
                      g.constant(np.asarray(empty, node.out_dtype()), node.name + '_empty')],
              [out], mode='constant')


def _window_sum(g, node, x, attrs, pads, out=None):
    """Sum over each window (padding as zeros): AveragePool counting the pads, times the
    window size. (An explicit Pad before the pool would be fused into it by some ONNX
    Runtime versions, which then stop counting it.)"""
    avg = g.add('AveragePool', [x], hint=node.name + '_avg', pads=pads, count_include_pad=1,
                **attrs)
    size = g.constant(np.asarray(np.prod(attrs['kernel_shape']), dtype=node.out_dtype()),
                      'window')
    return g.add('Mul', [avg, size], None if out is None else [out], hint=node.name + '_sum')


def _mxnet_divisors(spatial, out, kernel, strides, pads):
    """MXNet's average-pooling divisor per output position with count_include_pad: the
    window's overlap with the input padded by ``pad`` on both sides."""
    counts = []
    for size, o, k, s, p in zip(spatial, out, kernel, strides, pads):
        start = np.arange(o) * s - p
        counts.append(np.minimum(start + k, size + p) - start)
    return functools.reduce(np.multiply, np.ix_(*counts)).reshape((1, 1) + tuple(out))


def _typed(g, node, value):
    return g.constant(np.asarray(value, dtype=node.in_dtype(0)), 'p')


def _global_pool(g, node, x, out, rank):
    op = node.op
    if op.pool_type == 'max':
        g.add('GlobalMaxPool', [x], [out])
    elif op.pool_type == 'avg':
        g.add('GlobalAveragePool', [x], [out])
    elif op.pool_type == 'lp':
        # (ONNX Runtime lacks GlobalLpPool at newer opsets) the p-norm over the plane
        axes = list(range(2, rank))
        if op.p_value in (1, 2):
            reduce(g, 'ReduceL%d' % op.p_value, x, axes, True, out)
        else:
            cube = g.add('Pow', [g.add('Abs', [x], hint=node.name + '_abs'),
                                 _typed(g, node, op.p_value)], hint=node.name + '_pow')
            total = reduce(g, 'ReduceSum', cube, axes, True, hint=node.name + '_sum')
            g.add('Pow', [total, _typed(g, node, 1.0 / op.p_value)], [out])
    else:
        reduce(g, 'ReduceSum', x, list(range(2, rank)), True, out)


@translator('UpSampling')
def upsampling(g, node):
    op = node.op
    if op.sample_type == 'bilinear':
        if op._deconv is None:
            node.fail('bilinear upsampling needs num_filter')
        d = op._deconv
        deconv(g, [node.input(0), node.input(1)], node.outputs[0], d.kernel, d.strides,
               d.dilates, d.pads, (0,) * len(d.kernel), d.num_group)
        return
    parts = []
    for i in range(op.num_args):
        # every input is repeated up to the first input's size times scale
        scale = op.scale * node.in_shape(0)[2] // node.in_shape(i)[2]
        parts.append(nearest_resize(g, node.input(i), scale, len(node.in_shape(i)),
                                    node.name, node.in_dtype(i)))
    if len(parts) == 1:
        g.add('Identity', parts, [node.outputs[0]])
    elif op.multi_input_mode == 'sum':
        g.add('Sum', parts, [node.outputs[0]])
    else:
        g.add('Concat', parts, [node.outputs[0]], axis=1)


def nearest_resize(g, x, scale, rank, name, dtype):
    """Repeat every spatial element ``scale`` times (ONNX Resize, nearest, asymmetric)."""
    scales = g.constant(np.asarray([1, 1] + [scale] * (rank - 2), dtype=np.float32), 'scales')
    roi = '' if g.opset >= 13 else g.constant(np.zeros(0, np.float32), 'roi')
    return g.add('Resize', [x, roi, scales], hint=name + '_resize', mode='nearest',
                 coordinate_transformation_mode='asymmetric', nearest_mode='floor')


@translator('Embedding')
def embedding(g, node):
    indices = cast(g, node.input(0), np.int64, hint=node.name + '_indices')
    g.add('Gather', [node.input(1), indices], [node.outputs[0]], axis=0)


@translator('Dropout')
def dropout(g, node):
    if node.op.mode == 'always':
        # MXNet drops at inference too in this mode: ONNX Dropout in training mode
        ratio = g.constant(np.asarray(node.op.p, dtype=node.in_dtype(0)), 'ratio')
        g.add('Dropout', [node.input(0), ratio, g.constant(np.asarray(True), 'training')],
              [node.outputs[0]])
    else:
        g.add('Identity', [node.input(0)], [node.outputs[0]])


@translator('_contrib_AdaptiveAvgPooling2D', '_contrib_BilinearResize2D')
def separable_resize(g, node):
    """``A_h @ x @ A_w.T`` in float64 with symmod's own weight matrices (fixed sizes)."""
    if {2, 3} & (set(node.in_varying(0)) | set(node.out_varying(0))):
        node.fail('the spatial size varies (the interpolation weights are fixed at export)')
    a_h, a_w = node.op.matrices(node.in_shape(0)[2:], node.out_shape(0)[2:])
    x = cast(g, node.input(0), np.float64, hint=node.name + '_double')
    rows = g.add('MatMul', [g.constant(a_h, 'rows'), x], hint=node.name + '_rows')
    both = g.add('MatMul', [rows, g.constant(np.ascontiguousarray(a_w.T), 'cols')],
                 hint=node.name + '_both')
    cast(g, both, node.out_dtype(), out=node.outputs[0])
