"""Activation, LeakyReLU, the softmax family, output layers and elementwise math."""
import math

import numpy as np

from ..registry import translator
from .common import cast, passthrough, reshape_to, softmax, unary, unsqueeze

# symmod's names -> one ONNX operator of the same meaning
_DIRECT = {
    'relu': 'Relu', 'sigmoid': 'Sigmoid', 'tanh': 'Tanh', 'softsign': 'Softsign',
    'negative': 'Neg', 'reciprocal': 'Reciprocal', 'abs': 'Abs', 'sign': 'Sign',
    'ceil': 'Ceil', 'floor': 'Floor', 'sqrt': 'Sqrt', 'exp': 'Exp', 'log': 'Log',
    'sin': 'Sin', 'cos': 'Cos', 'tan': 'Tan', 'arcsin': 'Asin', 'arccos': 'Acos',
    'arctan': 'Atan', 'sinh': 'Sinh', 'cosh': 'Cosh', 'arcsinh': 'Asinh',
    'arccosh': 'Acosh', 'arctanh': 'Atanh', 'erf': 'Erf',
}
for _name, _onnx_op in _DIRECT.items():
    translator(_name)(unary(_onnx_op))

translator('_copy', 'BlockGrad', 'MakeLoss', 'make_loss', 'LinearRegressionOutput',
           'MAERegressionOutput', 'SVMOutput', 'IdentityAttachKLSparseReg',
           '_identity_with_attr_like_rhs')(passthrough)
translator('LogisticRegressionOutput')(unary('Sigmoid'))

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def _const(g, node, value, hint='c'):
    return g.constant(np.asarray(value, dtype=node.in_dtype(0)), hint)


@translator('Activation')
def activation(g, node):
    act = node.op.act_type
    onnx_op = {'relu': 'Relu', 'sigmoid': 'Sigmoid', 'tanh': 'Tanh', 'softrelu': 'Softplus',
               'softsign': 'Softsign'}.get(act)
    if onnx_op is None:
        node.fail('act_type %s' % act)
    g.add(onnx_op, [node.input(0)], [node.outputs[0]])


@translator('LeakyReLU')
def leaky_relu(g, node):
    op, x, out = node.op, node.input(0), node.outputs[0]
    if op.act_type == 'leaky':
        g.add('LeakyRelu', [x], [out], alpha=op.slope)
    elif op.act_type == 'rrelu':
        # inference uses the mean slope, which the (visible) mask output holds everywhere
        slope = float(op._rrelu_mean_slope())
        g.add('LeakyRelu', [x], [out], alpha=slope)
        from ... import _deps
        fill = _deps.onnx().helper.make_tensor('value', _deps.tensor_type(node.out_dtype(1)),
                                               [1], [slope])
        g.add('ConstantOfShape', [g.add('Shape', [x], hint=node.name + '_shape')],
              [node.outputs[1]], value=fill)
    elif op.act_type == 'elu':
        g.add('Elu', [x], [out], alpha=op.slope)
    elif op.act_type == 'selu':
        g.add('Selu', [x], [out], alpha=_SELU_ALPHA, gamma=_SELU_LAMBDA)
    elif op.act_type == 'prelu':
        from ....ops.activation import prelu_gamma_shape
        shape = prelu_gamma_shape(node.in_shape(1), node.in_shape(0))
        gamma = g.add('Reshape', [node.input(1), g.int64s(shape, 'shape')],
                      hint=node.name + '_gamma')
        g.add('PRelu', [x, gamma], [out])
    elif g.opset >= 20:
        g.add('Gelu', [x], [out])
    else:
        gelu(g, node, x, out)


def gelu(g, node, x, out):
    """0.5 * x * (1 + erf(x / sqrt(2)))."""
    scaled = g.add('Div', [x, _const(g, node, math.sqrt(2.0), 'sqrt2')], hint=node.name + '_s')
    erf1 = g.add('Add', [g.add('Erf', [scaled], hint=node.name + '_erf'),
                         _const(g, node, 1.0, 'one')], hint=node.name + '_erf1')
    half = g.add('Mul', [x, _const(g, node, 0.5, 'half')], hint=node.name + '_half')
    g.add('Mul', [half, erf1], [out])


def _softmax_common(g, node, op_type, x=None):
    """softmax / log_softmax of ``x`` (default: the node's input) with the node's
    axis, temperature and dtype."""
    op = node.op
    x = node.input(0) if x is None else x
    rank = len(node.in_shape(0))
    if op.temperature is not None and op.temperature != 1.0:
        x = g.add('Div', [x, _const(g, node, op.temperature, 'temperature')],
                  hint=node.name + '_t')
    dtype = op.dtype
    out = node.outputs[0]
    valid = None
    if getattr(op, 'use_length', False):
        valid = _length_mask(g, node, rank)
        x = g.add('Where', [valid, x, _const(g, node, -np.inf, 'minus_inf')],
                  hint=node.name + '_masked')
    if valid is None and (dtype is None or np.dtype(dtype) == node.in_dtype(0)):
        softmax(g, x, op.axis, rank, out, op_type=op_type)
        return
    y = softmax(g, x, op.axis, rank, hint=node.name + '_sm', op_type=op_type)
    if valid is not None:       # past the length (and rows of length 0): 0, as MXNet
        y = g.add('Where', [valid, y, _const(g, node, 0, 'zero')], hint=node.name + '_kept')
    if dtype is not None and np.dtype(dtype) != node.in_dtype(0):
        cast(g, y, dtype, out)
    else:
        g.add('Identity', [y], [out])


def _length_mask(g, node, rank):
    """bool, broadcastable against the data: position along the softmax axis < the
    length given for its row (``use_length``)."""
    axis = node.op.axis % rank
    if axis in node.in_varying(0):
        node.fail('use_length=True along an axis whose size varies')
    size = node.in_shape(0)[axis]
    positions = g.int64s(np.arange(size), node.name + '_positions')
    positions = reshape_to(g, positions, [1] * axis + [size] + [1] * (rank - axis - 1),
                           hint=node.name + '_along')
    lengths = unsqueeze(g, cast(g, node.input(1), np.int64, hint=node.name + '_len64'),
                        [axis], hint=node.name + '_lengths')
    return g.add('Less', [positions, lengths], hint=node.name + '_valid')


@translator('softmax')
def softmax_op(g, node):
    _softmax_common(g, node, 'Softmax')


@translator('log_softmax')
def log_softmax(g, node):
    _softmax_common(g, node, 'LogSoftmax')


def _flat_softmax(g, node, x, out):
    """Softmax over everything but axis 0 (MXNet's per-instance softmax of N-d data)."""
    flat = g.add('Flatten', [x], hint=node.name + '_flat', axis=1)
    y = g.add('Softmax', [flat], hint=node.name + '_sm', axis=1)
    g.add('Reshape', [y, g.add('Shape', [x], hint=node.name + '_shape')], [out])


@translator('SoftmaxOutput')
def softmax_output(g, node):
    op, x, out = node.op, node.input(0), node.outputs[0]
    rank = len(node.in_shape(0))
    if op.multi_output:
        softmax(g, x, 1, rank, out)
    elif op.preserve_shape or rank == 2:
        softmax(g, x, rank - 1, rank, out)
    else:
        _flat_softmax(g, node, x, out)


@translator('SoftmaxActivation')
def softmax_activation(g, node):
    rank = len(node.in_shape(0))
    axis = rank - 1 if node.op.mode == 'instance' else 1
    softmax(g, node.input(0), axis, rank, node.outputs[0])


@translator('hard_sigmoid')
def hard_sigmoid(g, node):
    g.add('HardSigmoid', [node.input(0)], [node.outputs[0]], alpha=node.op.alpha,
          beta=node.op.beta)


# ---- math that ONNX spells differently -------------------------------------------------
def _emit_chain(g, node, steps):
    """Apply ``steps`` (each ``(op_type, constant or None)``) to the input in turn."""
    x = node.input(0)
    for i, (op_type, value) in enumerate(steps):
        inputs = [x] if value is None else [x, _const(g, node, value)]
        out = [node.outputs[0]] if i == len(steps) - 1 else None
        x = g.add(op_type, inputs, out, hint='%s_%d' % (node.name, i))


_CHAINS = {
    'square': None,     # x * x, below
    'rsqrt': [('Sqrt', None), ('Reciprocal', None)],
    'log10': [('Log', None), ('Div', math.log(10.0))],
    'log2': [('Log', None), ('Div', math.log(2.0))],
    'log1p': [('Add', 1.0), ('Log', None)],
    'expm1': [('Exp', None), ('Sub', 1.0)],
    'degrees': [('Mul', 180.0 / math.pi)],
    'radians': [('Mul', math.pi / 180.0)],
    'rint': [('Sub', 0.5), ('Ceil', None)],      # MXNet's rint: ties go down
}


def _chain_translator(steps):
    def translate(g, node):
        _emit_chain(g, node, steps)
    return translate


for _name, _steps in _CHAINS.items():
    if _steps is not None:
        translator(_name)(_chain_translator(_steps))


@translator('square')
def square(g, node):
    g.add('Mul', [node.input(0), node.input(0)], [node.outputs[0]])


def _signed(g, node, magnitude_steps):
    """sign(x) * f(|x|) for f given as chain steps on |x|."""
    x = node.input(0)
    y = g.add('Abs', [x], hint=node.name + '_abs')
    for op_type, value in magnitude_steps:
        y = g.add(op_type, [y] if value is None else [y, _const(g, node, value)],
                  hint=node.name + '_m')
    sign = g.add('Sign', [x], hint=node.name + '_sign')
    return sign, y


@translator('round')
def round_away(g, node):
    """Halves go away from zero."""
    sign, y = _signed(g, node, [('Add', 0.5), ('Floor', None)])
    g.add('Mul', [sign, y], [node.outputs[0]])


@translator('trunc', 'fix')
def trunc(g, node):
    sign, y = _signed(g, node, [('Floor', None)])
    g.add('Mul', [sign, y], [node.outputs[0]])


@translator('cbrt')
def cbrt(g, node):
    sign, y = _signed(g, node, [('Pow', 1.0 / 3.0)])
    g.add('Mul', [sign, y], [node.outputs[0]])


@translator('rcbrt')
def rcbrt(g, node):
    sign, y = _signed(g, node, [('Pow', -1.0 / 3.0)])
    g.add('Mul', [sign, y], [node.outputs[0]])


@translator('logical_not')
def logical_not(g, node):
    is_zero = g.add('Equal', [node.input(0), _const(g, node, 0)], hint=node.name + '_zero')
    cast(g, is_zero, node.out_dtype(), node.outputs[0])
