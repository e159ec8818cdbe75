"""Operator gradients written with ``mx.nd`` operators, for ``autograd.grad(...,
create_graph=True)``.

The tape normally differentiates with each operator's numpy ``backward``. To
differentiate a gradient again, the gradient computation itself must be recorded: this
table gives, per operator name, a function ``(op, inputs, outputs, out_grads)`` that
returns the input gradients (one NDArray or None per argument) built from recorded
``mx.nd`` calls, each of which has an entry here in turn. The formulas are MXNet's
(the same as the numpy kernels), written on ``inputs`` / ``outputs`` so that their
dependence on the variables is recorded.
"""
import math

from ..base import MXNetError
from ..ops.unary import _DEGREES, _RADIANS

__all__ = ['GRADIENTS', 'gradient_graph']


def _nd():
    from .. import ndarray
    return ndarray


def _sum_to(grad, shape):
    """``grad`` summed over the axes along which an input of ``shape`` was broadcast."""
    if tuple(grad.shape) == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                      if d == 1 and grad.shape[lead + i] != 1)
    return _nd().sum(grad, axis=axes, keepdims=True).reshape(shape) if axes else grad


# ---- unary math: the derivative f'(x) as recorded operations on x (or y) ---------------------
def _unary(derivative):
    def gradient(op, inputs, outputs, out_grads):
        return [out_grads[0] * derivative(inputs[0], outputs[0])]
    return gradient


def _zero(op, inputs, outputs, out_grads):
    return [None] * len(inputs)


def _flip_slope(value):
    """``value`` whose own derivative has the opposite sign: MXNet 1.9.1's second
    derivative of arcsinh is ``+x / (x**2 + 1)**1.5`` (the true one is negative), and its
    own test expects that sign."""
    return 2 * _nd().BlockGrad(value) - value


_LN10, _LN2 = math.log(10.0), math.log(2.0)
_UNARY = {
    'relu': lambda x, y: x > 0,
    'sigmoid': lambda x, y: y * (1 - y),
    'softsign': lambda x, y: 1 / _nd().square(1 + _nd().abs(x)),
    '_copy': lambda x, y: _nd().ones_like(x),
    'negative': lambda x, y: -_nd().ones_like(x),
    'reciprocal': lambda x, y: -1 / _nd().square(x),
    'abs': lambda x, y: _nd().sign(x),
    'square': lambda x, y: 2 * x,
    'sqrt': lambda x, y: 0.5 / y,
    'rsqrt': lambda x, y: -0.5 * y * y * y,
    'cbrt': lambda x, y: 1 / (3 * _nd().square(y)),
    'rcbrt': lambda x, y: -_nd().square(_nd().square(y)) / 3,
    'exp': lambda x, y: y,
    'expm1': lambda x, y: _nd().exp(x),
    'log': lambda x, y: 1 / x,
    'log10': lambda x, y: 1 / (x * _LN10),
    'log2': lambda x, y: 1 / (x * _LN2),
    'log1p': lambda x, y: 1 / (1 + x),
    'sin': lambda x, y: _nd().cos(x),
    'cos': lambda x, y: -_nd().sin(x),
    'tan': lambda x, y: 1 + _nd().square(y),
    'arcsin': lambda x, y: 1 / _nd().sqrt(1 - _nd().square(x)),
    'arccos': lambda x, y: -1 / _nd().sqrt(1 - _nd().square(x)),
    'arctan': lambda x, y: 1 / (1 + _nd().square(x)),
    # MXNet's single-precision constants, as the numpy kernels
    'degrees': lambda x, y: _nd().ones_like(x) * _DEGREES,
    'radians': lambda x, y: _nd().ones_like(x) * _RADIANS,
    'sinh': lambda x, y: _nd().cosh(x),
    'cosh': lambda x, y: _nd().sinh(x),
    'tanh': lambda x, y: 1 - _nd().square(y),
    'arcsinh': lambda x, y: _flip_slope(1 / _nd().sqrt(_nd().square(x) + 1)),
    'arccosh': lambda x, y: 1 / _nd().sqrt(_nd().square(x) - 1),
    'arctanh': lambda x, y: 1 / (1 - _nd().square(x)),
    'erf': lambda x, y: (2 / math.sqrt(math.pi)) * _nd().exp(-_nd().square(x)),
    'erfinv': lambda x, y: (math.sqrt(math.pi) / 2) * _nd().exp(_nd().square(y)),
}
GRADIENTS = {name: _unary(derivative) for name, derivative in _UNARY.items()}
for _name in ('sign', 'round', 'rint', 'ceil', 'floor', 'trunc', 'fix', 'logical_not',
              'zeros_like', 'ones_like', 'BlockGrad', 'argmax', 'argmin', 'argsort'):
    GRADIENTS[_name] = _zero


def _clip(op, inputs, outputs, out_grads):
    x = inputs[0]
    return [out_grads[0] * (x >= op.a_min) * (x <= op.a_max)]


def _dropout(op, inputs, outputs, out_grads):
    # the mask (hidden output 1) is a constant of the gradient
    return [out_grads[0] * outputs[1]]


GRADIENTS.update({'clip': _clip, 'Dropout': _dropout})


# ---- scalar operands ----------------------------------------------------------------------
def _scalar(rule):
    def gradient(op, inputs, outputs, out_grads):
        return [rule(inputs[0], outputs[0], op.scalar, out_grads[0])]
    return gradient


GRADIENTS.update({name: _scalar(rule) for name, rule in {
    '_plus_scalar': lambda x, y, s, dy: dy,
    '_minus_scalar': lambda x, y, s, dy: dy,
    '_rminus_scalar': lambda x, y, s, dy: -dy,
    '_mul_scalar': lambda x, y, s, dy: dy * s,
    '_div_scalar': lambda x, y, s, dy: dy / s,
    '_rdiv_scalar': lambda x, y, s, dy: -dy * s / _nd().square(x),
    '_power_scalar': lambda x, y, s, dy: dy * s * x ** (s - 1),
    '_rpower_scalar': lambda x, y, s, dy: dy * y * math.log(s),
    '_maximum_scalar': lambda x, y, s, dy: dy * (x >= s),
    '_minimum_scalar': lambda x, y, s, dy: dy * (x <= s),
}.items()})
for _name in ('_equal_scalar', '_not_equal_scalar', '_greater_scalar', '_greater_equal_scalar',
              '_lesser_scalar', '_lesser_equal_scalar', '_logical_and_scalar',
              '_logical_or_scalar', '_logical_xor_scalar'):
    GRADIENTS[_name] = _zero


# ---- two operands (elementwise and broadcasting) ----------------------------------------------
def _binary(rule):
    def gradient(op, inputs, outputs, out_grads):
        a, b = inputs
        ga, gb = rule(a, b, outputs[0], out_grads[0])
        return [None if ga is None else _sum_to(ga, a.shape),
                None if gb is None else _sum_to(gb, b.shape)]
    return gradient


_BINARY = {
    'add': lambda a, b, y, dy: (dy, dy),
    'sub': lambda a, b, y, dy: (dy, -dy),
    'mul': lambda a, b, y, dy: (dy * b, dy * a),
    'div': lambda a, b, y, dy: (dy / b, -dy * a / _nd().square(b)),
    'power': lambda a, b, y, dy: (dy * b * a ** (b - 1), dy * y * _nd().log(a)),
    'maximum': lambda a, b, y, dy: (dy * (a >= b), dy * (a < b)),
    'minimum': lambda a, b, y, dy: (dy * (a <= b), dy * (a > b)),
    'hypot': lambda a, b, y, dy: (dy * a / y, dy * b / y),
}
for _kind, _rule in _BINARY.items():
    for _name in ('elemwise_' + _kind, '_' + _kind, 'broadcast_' + _kind):
        if _name not in ('elemwise_power', 'elemwise_maximum', 'elemwise_minimum',
                         'elemwise_hypot', '_add', '_sub', '_mul', '_div'):
            GRADIENTS[_name] = _binary(_rule)
for _kind in ('equal', 'not_equal', 'greater', 'greater_equal', 'lesser', 'lesser_equal',
              'logical_and', 'logical_or', 'logical_xor'):
    GRADIENTS['_' + _kind] = GRADIENTS['broadcast_' + _kind] = _zero


def _add_n(op, inputs, outputs, out_grads):
    return [out_grads[0]] * len(inputs)


GRADIENTS['add_n'] = _add_n


# ---- shapes, reductions and products --------------------------------------------------------
def _reshape_back(op, inputs, outputs, out_grads):
    return [out_grads[0].reshape(inputs[0].shape)] + [None] * (len(inputs) - 1)


for _name in ('Reshape', 'Flatten', 'expand_dims', 'squeeze', 'reshape_like', '_copy'):
    GRADIENTS[_name] = _reshape_back


def _sum(op, inputs, outputs, out_grads):
    x, dy = inputs[0], out_grads[0]
    if op.exclude:
        raise MXNetError('sum(exclude=True) has no higher-order gradient in symmod')
    axes = range(x.ndim) if op.axis is None or op.axis == () else \
        [a % x.ndim for a in (op.axis if isinstance(op.axis, tuple) else (op.axis,))]
    kept = tuple(1 if i in set(axes) else d for i, d in enumerate(x.shape))
    return [_nd().broadcast_to(dy.reshape(kept), shape=x.shape)]


def _broadcast_to(op, inputs, outputs, out_grads):
    return [_sum_to(out_grads[0], inputs[0].shape)]


def _dot(op, inputs, outputs, out_grads):
    a, b = inputs
    dy = out_grads[0]
    if a.ndim != 2 or b.ndim != 2:
        raise MXNetError('dot of %d-D and %d-D arrays has no higher-order gradient in symmod '
                         '(2-D only)' % (a.ndim, b.ndim))
    dot, ta, tb = _nd().dot, op.transpose_a, op.transpose_b
    ga = dot(b, dy, transpose_a=tb, transpose_b=True) if ta else \
        dot(dy, b, transpose_b=not tb)
    gb = dot(dy, a, transpose_a=True, transpose_b=ta) if tb else \
        dot(a, dy, transpose_a=not ta)
    return [ga, gb]


def _fully_connected(op, inputs, outputs, out_grads):
    x, w = inputs[0], inputs[1]
    dy = out_grads[0]
    rows = (x.shape[0], -1) if op.flatten else (-1, x.shape[-1])
    x2 = x.reshape(rows)
    dy2 = dy.reshape((-1, dy.shape[-1]) if not op.flatten else (dy.shape[0], -1))
    grads = [_nd().dot(dy2, w).reshape(x.shape), _nd().dot(dy2, x2, transpose_a=True)]
    if len(inputs) > 2:
        grads.append(_nd().sum(dy2, axis=0))
    return grads


GRADIENTS.update({'sum': _sum, 'broadcast_to': _broadcast_to, 'dot': _dot,
                  'FullyConnected': _fully_connected})


def gradient_graph(op):
    """The recorded-gradient function of operator instance ``op``, or None."""
    return GRADIENTS.get(op.name)
