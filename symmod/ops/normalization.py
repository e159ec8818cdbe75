"""Normalization operators with per-sample statistics: LayerNorm, InstanceNorm, GroupNorm,
L2Normalization and LRN (BatchNorm, which keeps running statistics, is in ``norm.py``).

Each keeps what its backward pass needs in hidden outputs, named as in MXNet 1.9.1:
LayerNorm and GroupNorm ``mean`` and ``std`` (``sqrt(var + eps)``, visible with
``output_mean_var``), InstanceNorm ``mean`` and ``var`` (the biased variance),
L2Normalization ``norm`` and LRN ``tmp_norm``. No gradient flows through them.

float16 data is reduced in float32; other dtypes stay in their own precision.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int
from .common import choice, data_shape, expect_shape, int_shape, scratch, store_from
from .registry import Operator, Param, ShapeError, register

__all__ = []


def _acc(dtype):
    """The dtype reductions accumulate in."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _standardize(x, axis, eps, mean_out, stat_out, stat='std'):
    """``(x - mean) / sqrt(var + eps)`` along ``axis`` (kept), also storing the mean and
    either the std ``sqrt(var + eps)`` or (``stat='var'``) the biased variance."""
    acc = _acc(x.dtype)
    mean = np.mean(x, axis=axis, keepdims=True, dtype=acc)
    xhat = np.subtract(x, mean, dtype=acc)
    std = np.mean(np.square(xhat), axis=axis, keepdims=True)
    np.copyto(mean_out, mean.reshape(mean_out.shape), casting='unsafe')
    if stat == 'var':
        np.copyto(stat_out, std.reshape(stat_out.shape), casting='unsafe')
    std += eps
    np.sqrt(std, out=std)
    if stat == 'std':
        np.copyto(stat_out, std.reshape(stat_out.shape), casting='unsafe')
    xhat /= std
    return xhat


def _normalized_grad(dy, x, scale, mean, std, axis):
    """Gradient of ``(x - mean(x)) / std(x) * scale`` along ``axis``.

    ``mean``/``std`` broadcast against ``x``; returns ``(dx, xhat)`` in the
    accumulation dtype. With ``xhat = (x - mean) / std`` and ``w = dy * scale / std``:
    ``dx = w - mean(w) - xhat * mean(w * xhat)``.
    """
    acc = _acc(x.dtype)
    xhat = np.subtract(x, mean, dtype=acc)
    xhat /= std
    w = np.multiply(dy, scale, dtype=acc)
    w /= std
    proj = np.mean(w * xhat, axis=axis, keepdims=True)
    dx = w
    dx -= np.mean(w, axis=axis, keepdims=True)
    dx -= xhat * proj
    return dx, xhat


def _check_param_shapes(opname, in_shapes, expected, reason):
    return [expect_shape(s, expected, opname, what, reason)
            for s, what in zip(in_shapes[1:], ('gamma', 'beta'))]


def _store_affine(dst, req, xhat, gamma, beta):
    """``dst (req)= xhat * gamma + beta``, computed in ``xhat``'s buffer."""
    if req == 'null':
        return
    xhat *= gamma
    xhat += beta
    store_from(dst, req, xhat)


def _store_affine_grads(req, in_grad, dx_dst, dx, xhat, dy, axes):
    """Store the gradients of ``xhat * gamma + beta``: ``dx`` into ``dx_dst`` (a view of
    ``in_grad[0]``), and gamma's and beta's, summed over ``axes``. ``xhat`` is
    overwritten."""
    if req[0] != 'null':
        store_from(dx_dst, req[0], dx)
    # gamma's and beta's sums run over every row: numpy adds rows one after another (no
    # pairwise summation across the leading axis), so a float32 sum of 4096 rows is off
    # by ~1e-4 relative; they accumulate in float64
    if req[1] != 'null':
        xhat *= dy
        store_from(in_grad[1], req[1], np.sum(xhat, axis=axes, dtype=np.float64))
    if req[2] != 'null':
        store_from(in_grad[2], req[2], np.sum(dy, axis=axes, dtype=np.float64))


class _AffineNorm(Operator):
    """Normalizations followed by a learnt scale and shift: data, gamma and beta in; the
    output and two statistics out, the statistics visible with ``output_mean_var``."""

    def list_arguments(self):
        return ['data', 'gamma', 'beta']

    def list_outputs(self):
        return ['output', 'mean', 'std']

    def num_visible_outputs(self):
        return 3 if self.output_mean_var else 1


@register
class LayerNorm(_AffineNorm):
    """Layer normalization along one axis:
    ``out = (x - mean(x, axis)) / sqrt(var(x, axis) + eps) * gamma + beta``.

    ``gamma`` and ``beta`` have the length of ``axis`` (the last one by default).
    With ``output_mean_var=True`` the mean and standard deviation (``sqrt(var + eps)``),
    shaped like the data with ``axis`` of size 1, are visible outputs too.

    Examples
    --------
    >>> ln = mx.sym.LayerNorm(mx.sym.Variable('data'), name='ln')
    >>> ln.list_arguments()
    ['data', 'ln_gamma', 'ln_beta']
    >>> ln.infer_shape(data=(2, 5))[0]
    [(2, 5), (5,), (5,)]
    """
    name = 'LayerNorm'
    aliases = ('_npx_layer_norm',)
    params = (Param('axis', parse_int, -1, 'The axis to normalize along.'),
              Param('eps', parse_float, 1e-5, 'Added to the variance.'),
              Param('output_mean_var', parse_bool, False,
                    'Also output the mean and standard deviation.'))

    def _axis(self, ndim):
        if not -ndim <= self.axis < ndim:
            raise ShapeError('LayerNorm: Channel axis out of range: axis=%d for %dD data'
                             % (self.axis, ndim))
        return self.axis % ndim

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(data_shape(self.name, in_shapes[0], out_shapes[0]))
        if data is None:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        axis = self._axis(len(data))
        reason = 'data %s with axis=%d' % (data, self.axis)
        params = _check_param_shapes(self.name, in_shapes, (data[axis],), reason)
        moments = data[:axis] + (1,) + data[axis + 1:]
        stats = [expect_shape(s, moments, self.name, what, reason)
                 for s, what in zip(out_shapes[1:], ('mean', 'std'))]
        return [data] + params, [data] + stats, []

    def _param_view(self, p, ndim, axis):
        shape = [1] * ndim
        shape[axis] = -1
        return p.reshape(shape)

    def forward(self, is_train, req, in_data, out_data, aux):
        x, gamma, beta = in_data
        out, mean, std = out_data
        axis = self._axis(x.ndim)
        xhat = _standardize(x, axis, self.eps, mean, std)
        _store_affine(out, req[0], xhat, self._param_view(gamma, x.ndim, axis),
                      self._param_view(beta, x.ndim, axis))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, gamma = in_data[0], in_data[1]
        dy = out_grad[0]
        axis = self._axis(x.ndim)
        others = tuple(i for i in range(x.ndim) if i != axis)
        dx, xhat = _normalized_grad(dy, x, self._param_view(gamma, x.ndim, axis),
                                    out_data[1], out_data[2], axis)
        _store_affine_grads(req, in_grad, in_grad[0], dx, xhat, dy, others)


@register
class GroupNorm(_AffineNorm):
    """Group normalization: the channels (axis 1) of each sample are split into
    ``num_groups`` groups, each normalized over its channels and all spatial positions,
    then scaled and shifted per group.

    ``data`` is ``(batch, channels, ...)`` with at least 3 dimensions; as in MXNet
    1.9.1, ``gamma`` and ``beta`` have shape ``(num_groups,)``, and the mean / std
    outputs ``(batch, num_groups)``.

    Examples
    --------
    >>> gn = mx.sym.GroupNorm(mx.sym.Variable('data'), num_groups=2, name='gn')
    >>> gn.infer_shape(data=(3, 4, 5))[0]
    [(3, 4, 5), (2,), (2,)]
    """
    name = 'GroupNorm'
    params = (Param('num_groups', parse_int, 1, 'Number of channel groups.'),
              Param('eps', parse_float, 1e-5, 'Added to the variance.'),
              Param('output_mean_var', parse_bool, False,
                    'Also output the mean and standard deviation.'))

    def check_params(self):
        if self.num_groups < 1:
            raise MXNetError('GroupNorm: num_groups must be positive, found %d'
                             % self.num_groups)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(data_shape(self.name, in_shapes[0], out_shapes[0]))
        if data is None:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        if len(data) < 3:
            raise ShapeError('GroupNorm: data must have at least 3 dimensions (batch, '
                             'channel, ...), found shape %s' % (data,))
        if data[1] % self.num_groups:
            raise ShapeError('GroupNorm: # of channels must be divisible by # of groups: '
                             '%d channels, num_groups=%d' % (data[1], self.num_groups))
        reason = 'num_groups=%d' % self.num_groups
        params = _check_param_shapes(self.name, in_shapes, (self.num_groups,), reason)
        stats = [expect_shape(s, (data[0], self.num_groups), self.name, what,
                              'data %s and %s' % (data, reason))
                 for s, what in zip(out_shapes[1:], ('mean', 'std'))]
        return [data] + params, [data] + stats, []

    def _grouped(self, a):
        """``a`` (batch, channels, ...) viewed as (batch, groups, channels/groups * rest)."""
        return a.reshape(a.shape[0], self.num_groups, -1)

    def forward(self, is_train, req, in_data, out_data, aux):
        x, gamma, beta = in_data
        out, mean, std = out_data
        xhat = _standardize(self._grouped(x), 2, self.eps, mean, std)
        _store_affine(self._grouped(out), req[0], xhat, gamma.reshape(1, -1, 1),
                      beta.reshape(1, -1, 1))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x3, dy3 = self._grouped(in_data[0]), self._grouped(out_grad[0])
        mean = out_data[1].reshape(x3.shape[0], -1, 1)
        std = out_data[2].reshape(x3.shape[0], -1, 1)
        dx, xhat = _normalized_grad(dy3, x3, in_data[1].reshape(1, -1, 1), mean, std, 2)
        _store_affine_grads(req, in_grad, self._grouped(in_grad[0]), dx, xhat, dy3, (0, 2))


@register
class InstanceNorm(_AffineNorm):
    """Instance normalization: each channel of each sample is normalized over its
    spatial positions, ``out = (x - mean) / sqrt(var + eps) * gamma + beta``.

    ``data`` is ``(batch, channels, ...)`` with at least 3 dimensions; ``gamma`` and
    ``beta`` are ``(channels,)``. The hidden outputs hold the per-instance mean and
    biased variance, ``(batch, channels)``. (MXNet runs it in float32 only; symmod
    also accepts float64 and float16.)

    Examples
    --------
    >>> inorm = mx.sym.InstanceNorm(mx.sym.Variable('data'), name='in')
    >>> inorm.infer_shape(data=(2, 3, 8, 8))[0]
    [(2, 3, 8, 8), (3,), (3,)]
    """
    name = 'InstanceNorm'
    params = (Param('eps', parse_float, 1e-3, 'Added to the variance.'),)

    def list_outputs(self):
        return ['output', 'mean', 'var']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(data_shape(self.name, in_shapes[0], out_shapes[0]))
        if data is None or len(data) < 2:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        reason = 'data %s' % (data,)
        params = _check_param_shapes(self.name, in_shapes, (data[1],), reason)
        stats = [expect_shape(s, data[:2], self.name, what, reason)
                 for s, what in zip(out_shapes[1:], ('mean', 'var'))]
        return [data] + params, [data] + stats, []

    @staticmethod
    def _view3(a):
        if a.ndim < 3:
            raise MXNetError('InstanceNorm only supports input tensors of rank >= 3, '
                             'found shape %s' % (a.shape,))
        return a.reshape(a.shape[0], a.shape[1], -1)

    def forward(self, is_train, req, in_data, out_data, aux):
        x3 = self._view3(in_data[0])
        out, mean, var = out_data
        xhat = _standardize(x3, 2, self.eps, mean, var, stat='var')
        _store_affine(self._view3(out), req[0], xhat, in_data[1].reshape(1, -1, 1),
                      in_data[2].reshape(1, -1, 1))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x3, dy3 = self._view3(in_data[0]), self._view3(out_grad[0])
        acc = _acc(x3.dtype)
        mean = out_data[1].reshape(x3.shape[0], -1, 1)
        std = np.sqrt(out_data[2].astype(acc).reshape(x3.shape[0], -1, 1) + self.eps)
        dx, xhat = _normalized_grad(dy3, x3, in_data[1].reshape(1, -1, 1), mean, std, 2)
        _store_affine_grads(req, in_grad, self._view3(in_grad[0]), dx, xhat, dy3, (0, 2))


@register
class L2Normalization(Operator):
    """Divides the data by its L2 norm, ``out = x / sqrt(sum(x ** 2) + eps)``.

    ``mode`` chooses what one norm covers: ``'instance'`` all of a sample,
    ``'channel'`` the channels (axis 1) at each position, ``'spatial'`` the positions
    (axes 2 and up) of each channel; the last two need at least 3 dimensions.

    Examples
    --------
    >>> x = mx.nd.array([[3, 4], [0, 2]])
    >>> mx.nd.L2Normalization(x).asnumpy()
    array([[0.6, 0.8],
           [0. , 1. ]], dtype=float32)
    """
    name = 'L2Normalization'
    params = (Param('eps', parse_float, 1e-10, 'Added to the sum of squares.'),
              Param('mode', choice('instance', 'channel', 'spatial'), 'instance',
                    'What one norm covers: instance, channel or spatial.'))
    backward_uses_inputs = False

    def list_outputs(self):
        return ['output', 'norm']

    def num_visible_outputs(self):
        return 1

    def _norm_shape(self, data):
        if self.mode == 'instance':
            return data[:1]
        if len(data) < 3:
            raise ShapeError('L2Normalization: At least 3 dimensions required in %s mode, '
                             'found shape %s' % (self.mode, data))
        if self.mode == 'channel':
            return data[:1] + (1,) + data[2:]
        return data[:2]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(data_shape(self.name, in_shapes[0], out_shapes[0]))
        if data is None:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        norm = expect_shape(out_shapes[1], self._norm_shape(data), self.name, 'norm',
                            'data %s in %s mode' % (data, self.mode))
        return [data], [data, norm], []

    def _view(self, a):
        """``a`` reshaped so that the norm reduces axis 1 of the view."""
        if self.mode == 'instance':
            return a.reshape(a.shape[0], -1)
        if self.mode == 'channel':
            return a.reshape(a.shape[0], a.shape[1], -1)
        return a.reshape(a.shape[0] * a.shape[1], -1)

    def _norm_view(self, norm, x):
        """The norm output shaped to broadcast against ``self._view(x)``."""
        if self.mode == 'channel':
            return norm.reshape(x.shape[0], 1, -1)
        return norm.reshape(-1, 1)

    def forward(self, is_train, req, in_data, out_data, aux):
        x = self._view(in_data[0])
        acc = _acc(x.dtype)
        norm = np.sum(np.square(x, dtype=acc), axis=1, keepdims=True)
        norm += self.eps
        np.sqrt(norm, out=norm)
        np.copyto(self._norm_view(out_data[1], x), norm, casting='unsafe')
        if req[0] != 'null':
            store_from(self._view(out_data[0]), req[0], np.divide(x, norm, dtype=acc))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        # with y = x / norm: dx = (dy - y * sum(dy * y)) / norm
        y, dy = self._view(out_data[0]), self._view(out_grad[0])
        acc = _acc(y.dtype)
        norm = self._norm_view(out_data[1], y)
        dx = np.multiply(dy, y, dtype=acc)
        proj = np.sum(dx, axis=1, keepdims=True)
        np.multiply(y, proj, out=dx)
        np.subtract(dy, dx, out=dx)
        dx /= norm
        store_from(self._view(in_grad[0]), req[0], dx)


@register
class LRN(Operator):
    """Local response normalization across channels:
    ``out = x * (knorm + alpha / nsize * sum(x ** 2 over nearby channels)) ** -beta``.

    ``data`` is ``(batch, channels, height, width)``. The window of channel ``c``
    runs from ``c - (nsize - 1) // 2`` to ``c + (nsize - 1) // 2``, clipped to the
    existing channels: the centred ``nsize`` channels for odd ``nsize``; for even
    ``nsize`` one fewer, as MXNet's oneDNN build computes it.

    Examples
    --------
    >>> lrn = mx.sym.LRN(mx.sym.Variable('data'), nsize=5, name='lrn')
    >>> lrn.list_outputs()
    ['lrn_output']
    """
    name = 'LRN'
    params = (Param('alpha', parse_float, 1e-4, 'Scale of the sum of squares.'),
              Param('beta', parse_float, 0.75, 'The exponent.'),
              Param('knorm', parse_float, 2.0, 'The additive constant k.'),
              Param('nsize', parse_int, doc='Width of the channel window.'))

    def check_params(self):
        if self.nsize < 1:
            raise MXNetError('LRN: nsize must be a positive window width, found %d'
                             % self.nsize)

    def list_outputs(self):
        return ['output', 'tmp_norm']

    def num_visible_outputs(self):
        return 1

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = data_shape(self.name, in_shapes[0], out_shapes[0])
        data = data_shape(self.name, data, out_shapes[1])
        return [data], [data, data], []

    def _window_sum(self, a, key):
        """Sum of ``a`` (batch, channels, ...) over each channel's window."""
        half = (self.nsize - 1) // 2
        total = scratch(key, a.shape, a.dtype)
        total[...] = a
        for shift in range(1, min(half, a.shape[1] - 1) + 1):
            total[:, shift:] += a[:, :-shift]       # channel c - shift
            total[:, :-shift] += a[:, shift:]       # channel c + shift
        return total

    @staticmethod
    def _check_4d(x):
        if x.ndim != 4:
            raise MXNetError('LRN expects 4D data (batch, channel, height, width), found '
                             'shape %s' % (x.shape,))

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        self._check_4d(x)
        acc = _acc(x.dtype)
        norm = self._window_sum(np.square(x, dtype=acc), 'lrn_sum')
        norm *= self.alpha / self.nsize
        norm += self.knorm
        np.copyto(out_data[1], norm, casting='unsafe')
        if req[0] != 'null':
            np.power(norm, -self.beta, out=norm)
            norm *= x
            store_from(out_data[0], req[0], norm)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        x, dy = in_data[0], out_grad[0]
        self._check_4d(x)
        acc = _acc(x.dtype)
        norm = out_data[1].astype(acc, copy=False)
        # dx = dy * norm^-b - 2 b alpha / n * x * window_sum(dy * x * norm^(-b-1)): the
        # windows are symmetric, so the windows containing c are c's own window
        scaled = np.power(norm, -self.beta - 1)
        scaled *= x
        scaled *= dy
        dx = self._window_sum(scaled, 'lrn_grad_sum')
        dx *= x
        dx *= -2.0 * self.beta * self.alpha / self.nsize
        scaled = np.power(norm, -self.beta, out=scaled)
        scaled *= dy
        dx += scaled
        store_from(in_grad[0], req[0], dx)
