"""Activation functions: Activation (relu, sigmoid, tanh, softrelu, softsign) and
LeakyReLU (leaky, prelu, rrelu, elu, selu, gelu), with MXNet 1.9.1's formulas.

Gradients are computed from the output wherever the function allows it (so the
input buffer can be reused once the forward pass is done); softsign, prelu and gelu
read the input, as MXNet's do.
"""
import math

import numba
import numpy as np

from ..base import MXNetError, parse_float
from .. import random as _random
from .common import choice, data_shape, scratch, store_from, work_buffer
from .registry import Operator, Param, ShapeError, register
from .unary import relu_values, sigmoid

__all__ = ['prelu_gamma_shape']


# ---- Activation -------------------------------------------------------------------------
def _sigmoid(x, out):
    with np.errstate(over='ignore'):
        sigmoid(x, out)


def _softrelu(x, out):
    # MXNet returns x itself above 20, where log1p(exp(x)) == x in float32
    with np.errstate(over='ignore'):
        np.exp(x, out=out)
    np.log1p(out, out=out)
    np.copyto(out, x, where=x > 20)


def _softsign(x, out):
    np.abs(x, out=out)
    out += 1
    np.divide(x, out, out=out)


_ACTIVATIONS = {
    'relu': relu_values,
    'sigmoid': _sigmoid,
    'tanh': lambda x, out: np.tanh(x, out=out),
    'softrelu': _softrelu,
    'softsign': _softsign,
}


def _activation_slope(act_type, x, y, g):
    """Write the derivative of the activation into ``g`` (from ``y``, or ``x`` for softsign)."""
    if act_type == 'relu':
        np.greater(y, 0, out=g)
    elif act_type == 'sigmoid':
        np.subtract(1, y, out=g)
        g *= y
    elif act_type == 'tanh':
        np.square(y, out=g)
        np.subtract(1, g, out=g)
    elif act_type == 'softrelu':
        np.negative(y, out=g)
        np.expm1(g, out=g)
        np.negative(g, out=g)
    else:
        np.abs(x, out=g)
        g += 1
        np.square(g, out=g)
        np.reciprocal(g, out=g)


_SLOPE_KINDS = {'relu': 0, 'sigmoid': 1, 'tanh': 2}
_PARALLEL_MIN = 1 << 16
_BLOCK = 1 << 14


@numba.njit(cache=True, nogil=True, error_model='numpy', fastmath=True)
def _times_slope(kind, y, dy, dx, add, lo, hi):
    """``dx[i] (=|+=) dy[i] * f'(x[i])`` from the output ``y`` for i in [lo, hi)
    (kinds: 0 relu, 1 sigmoid, 2 tanh); one loop per case so that each vectorizes."""
    y, dy, dx = y[lo:hi], dy[lo:hi], dx[lo:hi]
    one = y.dtype.type(1)
    if kind == 0 and add:
        for i in range(y.size):
            dx[i] += dy[i] * (y[i] > 0)
    elif kind == 0:
        for i in range(y.size):
            dx[i] = dy[i] * (y[i] > 0)
    elif kind == 1 and add:
        for i in range(y.size):
            dx[i] += dy[i] * (one - y[i]) * y[i]
    elif kind == 1:
        for i in range(y.size):
            dx[i] = dy[i] * (one - y[i]) * y[i]
    elif add:
        for i in range(y.size):
            dx[i] += dy[i] * (one - y[i] * y[i])
    else:
        for i in range(y.size):
            dx[i] = dy[i] * (one - y[i] * y[i])


@numba.njit(cache=True, nogil=True, error_model='numpy', parallel=True)
def _times_slope_parallel(kind, y, dy, dx, add):
    blocks = -(-y.size // _BLOCK)
    for b in numba.prange(blocks):
        _times_slope(kind, y, dy, dx, add, b * _BLOCK, min(y.size, (b + 1) * _BLOCK))


def _fused_slope(act_type, y, dy, dx, req):
    """The backward pass of relu / sigmoid / tanh in one numba pass; False where it does
    not apply (other activations, float16, non-contiguous arrays)."""
    kind = _SLOPE_KINDS.get(act_type)
    arrays = (y, dy, dx)
    if kind is None or any(a.dtype not in (np.float32, np.float64) or a.dtype != y.dtype
                           or not a.flags.c_contiguous for a in arrays):
        return False
    y, dy, dx = (a.reshape(-1) for a in arrays)
    if y.size >= _PARALLEL_MIN:
        _times_slope_parallel(kind, y, dy, dx, req == 'add')
    else:
        _times_slope(kind, y, dy, dx, req == 'add', 0, y.size)
    return True


def _store_times_slope(dst, req, dy, g):
    """``dst (req)= dy * g`` for a slope ``g`` in a scratch buffer (req is not 'null')."""
    if req == 'write':
        np.multiply(dy, g, out=dst)
    else:
        g *= dy
        dst += g


@register
class Activation(Operator):
    """Applies an activation function elementwise.

    ``relu``: ``max(x, 0)``; ``sigmoid``: ``1 / (1 + exp(-x))``; ``tanh``;
    ``softrelu`` (softplus): ``log(1 + exp(x))``; ``softsign``: ``x / (1 + |x|)``.
    The gradient is computed from the output (from the input for softsign, as MXNet
    does), so the input buffer can be reused after the forward pass.

    Examples
    --------
    >>> mx.nd.Activation(mx.nd.array([-1, 2]), act_type='relu').asnumpy()
    array([0., 2.], dtype=float32)
    """
    names_inputs = False       # no FListInputNames in MXNet: monitors see input0
    name = 'Activation'
    aliases = ('_npx_activation',)
    params = (Param('act_type', choice(*_ACTIVATIONS), doc='Activation function to apply.'),)

    def check_params(self):
        self.backward_uses_inputs = self.act_type == 'softsign'
        self.backward_uses_outputs = self.act_type != 'softsign'
        self.inplace = ((0, 0),) if self.act_type in ('relu', 'sigmoid', 'tanh') else ()

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        dst = work_buffer('fwd', out_data[0], req[0])
        _ACTIVATIONS[self.act_type](in_data[0], dst)
        if dst is not out_data[0]:
            out_data[0] += dst

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        dy = out_grad[0]
        if _fused_slope(self.act_type, out_data[0], dy, in_grad[0], req[0]):
            return
        g = scratch('slope', dy.shape, dy.dtype)
        _activation_slope(self.act_type, in_data[0], out_data[0], g)
        _store_times_slope(in_grad[0], req[0], dy, g)


# ---- LeakyReLU -------------------------------------------------------------------------
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _gelu_forward(x, out):
    for i in range(x.size):
        a = x[i]
        out[i] = 0.5 * a * (1.0 + math.erf(a / math.sqrt(2.0)))


@numba.njit(cache=True, nogil=True, error_model='numpy')
def _gelu_slope(x, g):
    for i in range(x.size):
        z = x[i] / math.sqrt(2.0)
        g[i] = 0.5 * (1.0 + math.erf(z) + z * (2.0 / math.sqrt(math.pi)) * math.exp(-z * z))


def _run_gelu(kernel, x, out):
    """Run a GELU kernel on flat views (numba has no float16: it goes through float32)."""
    if x.dtype in (np.float32, np.float64):
        kernel(x.reshape(-1), out.reshape(-1))
    else:
        tmp = scratch('gelu16', x.shape, np.dtype(np.float32))
        kernel(x.astype(np.float32).reshape(-1), tmp.reshape(-1))
        np.copyto(out, tmp, casting='unsafe')


def prelu_gamma_shape(gamma_shape, data_shape):
    """Where ``gamma`` broadcasts against the data: its dims align with data axes 0 and 1
    (MXNet's rule: usually one value per channel, axis 1, or a single shared value)."""
    result = [1] * len(data_shape)
    s = len(gamma_shape) - 1
    for i in range(len(data_shape) - 1, -1, -1):
        if s >= 0 and i <= 1 and gamma_shape[s] in (data_shape[i], 1):
            result[i] = gamma_shape[s]
            s -= 1
    if s != -1:
        raise MXNetError('LeakyReLU: cannot broadcast gamma %s to data %s'
                         % (tuple(gamma_shape), tuple(data_shape)))
    return tuple(result)


@register
class LeakyReLU(Operator):
    """Leaky rectified linear units and relatives, elementwise.

    - ``leaky``: ``x > 0 ? x : slope * x``
    - ``prelu``: like leaky with a learnt slope ``gamma`` (one per channel, axis 1)
    - ``rrelu``: like leaky with a random slope from ``U[lower_bound, upper_bound)`` in
      training and ``(lower_bound + upper_bound) / 2`` in inference; outputs the slopes
      too (``mask``)
    - ``elu``: ``x > 0 ? x : slope * (exp(x) - 1)``
    - ``selu``: ``lambda * (x > 0 ? x : alpha * (exp(x) - 1))``. Its gradient is MXNet
      1.9.1's, ``lambda * (alpha + y)`` for ``x <= 0``, which differs from the exact
      derivative ``y + lambda * alpha``; symmod keeps MXNet's numbers.
    - ``gelu``: ``0.5 * x * (1 + erf(x / sqrt(2)))``

    Examples
    --------
    >>> mx.nd.LeakyReLU(mx.nd.array([-2, 3]), act_type='leaky', slope=0.1).asnumpy()
    array([-0.2,  3. ], dtype=float32)
    """
    name = 'LeakyReLU'
    aliases = ('_npx_leaky_relu',)
    params = (Param('act_type', choice('rrelu', 'leaky', 'prelu', 'elu', 'selu', 'gelu'),
                    'leaky', 'Activation function to apply.'),
              Param('slope', parse_float, 0.25, 'Slope for leaky and elu.'),
              Param('lower_bound', parse_float, 0.125, 'Lower bound of the rrelu slope.'),
              Param('upper_bound', parse_float, 0.334, 'Upper bound of the rrelu slope.'))

    def check_params(self):
        reads_input = self.act_type in ('prelu', 'gelu')
        self.backward_uses_inputs = reads_input
        self.backward_uses_outputs = not reads_input

    def list_arguments(self):
        return ['data', 'gamma'] if self.act_type == 'prelu' else ['data']

    def list_outputs(self):
        return ['output', 'mask'] if self.act_type == 'rrelu' else ['output']

    def input_var_attrs(self, index):
        if self.act_type == 'prelu' and index == 1:
            return {'__init__': '["Constant", {"value": 0.25}]'}
        return None

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ins, outs = list(in_shapes), list(out_shapes)
        data = ins[0] = data_shape('LeakyReLU', ins[0], outs[0])
        outs = [data] * len(outs)
        if self.act_type == 'prelu' and data is not None and ins[1] is None:
            if len(data) < 2:
                raise ShapeError('LeakyReLU: prelu needs data with a channel axis (at least '
                                 '2 dims), found shape %s' % (tuple(data),))
            ins[1] = (data[1],)
        return ins, outs, list(aux_shapes)

    def _rrelu_mean_slope(self):
        return (np.float32(self.lower_bound) + np.float32(self.upper_bound)) / np.float32(2)

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x, out = in_data[0], out_data[0]
        dst = work_buffer('fwd', out, req[0])
        act = self.act_type
        if act == 'gelu':
            _run_gelu(_gelu_forward, x, dst)
        else:
            positive = scratch('pos', x.shape, np.dtype(bool))
            np.greater(x, 0, out=positive)
            if act == 'leaky':
                np.multiply(x, self.slope, out=dst)
            elif act == 'prelu':
                gamma = in_data[1].reshape(prelu_gamma_shape(in_data[1].shape, x.shape))
                np.multiply(x, gamma, out=dst)
            elif act == 'rrelu':
                mask = out_data[1]
                if is_train:
                    self._random_slopes(mask)
                else:
                    mask.fill(self._rrelu_mean_slope())
                np.multiply(x, mask, out=dst)
            else:
                with np.errstate(over='ignore'):
                    np.expm1(x, out=dst)
                dst *= self.slope if act == 'elu' else _SELU_ALPHA
            np.copyto(dst, x, where=positive)
            if act == 'selu':
                dst *= _SELU_LAMBDA
        if dst is not out:
            out += dst

    def _random_slopes(self, mask):
        rng = _random.get_rng()
        if mask.dtype in (np.float32, np.float64):
            rng.random(out=mask.reshape(-1), dtype=mask.dtype)
        else:
            mask[...] = rng.random(mask.shape, dtype=np.float32)
        mask *= self.upper_bound - self.lower_bound
        mask += self.lower_bound

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        act, dy = self.act_type, out_grad[0]
        x, y = in_data[0], out_data[0]
        if act == 'prelu':
            self._prelu_backward(req, dy, x, in_data[1], in_grad)
            return
        if req[0] == 'null':
            return
        g = scratch('slope', dy.shape, dy.dtype)
        if act == 'gelu':
            _run_gelu(_gelu_slope, x, g)
        else:
            positive = scratch('pos', dy.shape, np.dtype(bool))
            np.greater(y, 0, out=positive)
            if act == 'leaky':
                g.fill(self.slope)
            elif act == 'rrelu':
                np.copyto(g, out_data[1])
            elif act == 'elu':
                np.add(y, self.slope, out=g)
            else:
                # MXNet 1.9.1's selu gradient: lambda * (alpha + y) on the negative side
                np.add(y, _SELU_ALPHA, out=g)
            np.copyto(g, 1, where=positive)
            if act == 'selu':
                g *= _SELU_LAMBDA
        _store_times_slope(in_grad[0], req[0], dy, g)

    def _prelu_backward(self, req, dy, x, gamma, in_grad):
        positive = scratch('pos', x.shape, np.dtype(bool))
        np.greater(x, 0, out=positive)
        if req[0] != 'null':
            gshape = prelu_gamma_shape(gamma.shape, x.shape)
            dx = work_buffer('dx', in_grad[0], req[0])
            np.multiply(dy, gamma.reshape(gshape), out=dx)
            np.copyto(dx, dy, where=positive)
            if dx is not in_grad[0]:
                in_grad[0] += dx
        if req[1] != 'null':
            gshape = prelu_gamma_shape(gamma.shape, x.shape)
            t = scratch('dgamma', x.shape, x.dtype)
            np.multiply(dy, x, out=t)
            np.copyto(t, 0, where=positive)
            axes = tuple(i for i, d in enumerate(gshape) if d == 1 and x.shape[i] != 1)
            total = t.sum(axis=axes, keepdims=True) if axes else t
            store_from(in_grad[1], req[1], total.reshape(in_grad[1].shape))
