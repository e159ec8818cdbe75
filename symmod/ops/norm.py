"""Batch normalization with MXNet 1.9.1's CPU semantics.

Training normalizes with the batch's mean and biased variance and keeps them in
the hidden outputs ``mean`` and ``var`` (which holds the *inverse standard
deviation*, as MXNet's does). Like MXNet on CPU, the moving averages are updated
in the backward pass: ``moving = moving * momentum + batch * (1 - momentum)``, with
the biased batch variance. Inference (or ``use_global_stats``) uses the moving
statistics. With ``fix_gamma`` the forward pass sets ``gamma`` to 1 and its
gradient is 0.
"""
import math

import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_optional
from . import norm_kernels
from .common import data_shape, expect_shape, scratch, store_from, work_buffer, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []

_MODES = {'null': 0, 'write': 1, 'add': 2}


@register
class BatchNorm(Operator):
    """Batch normalization: ``out = (x - mean) / sqrt(var + eps) * gamma + beta``.

    Statistics are per channel (``axis``, 1 by default) over all other axes.
    ``moving_mean`` and ``moving_var`` are auxiliary states updated during training
    (in the backward pass, as MXNet does on CPU); ``output_mean_var=True`` also
    exposes the batch mean and inverse standard deviation.

    Examples
    --------
    >>> bn = mx.sym.BatchNorm(mx.sym.Variable('data'), name='bn')
    >>> bn.list_arguments(), bn.list_auxiliary_states()
    (['data', 'bn_gamma', 'bn_beta'], ['bn_moving_mean', 'bn_moving_var'])
    """
    name = 'BatchNorm'
    aliases = ('_npx_batch_norm',)
    params = (Param('eps', parse_float, 1e-3, 'Epsilon added to the variance.'),
              Param('momentum', parse_float, 0.9, 'Momentum of the moving averages.'),
              Param('fix_gamma', parse_bool, True, 'Fix gamma to 1 while training.'),
              Param('use_global_stats', parse_bool, False,
                    'Normalize with the moving statistics in training too.'),
              Param('output_mean_var', parse_bool, False,
                    'Also output the batch mean and inverse std.'),
              Param('axis', parse_int, 1, 'The channel axis.'),
              Param('cudnn_off', parse_bool, False, 'Ignored.'),
              Param('min_calib_range', parse_optional(parse_float), None,
                    'Quantization calibration (ignored).'),
              Param('max_calib_range', parse_optional(parse_float), None,
                    'Quantization calibration (ignored).'))

    def check_params(self):
        # whether the forward pass that produced a given ``mean`` output used batch
        # statistics, keyed by that output's address: operator instances can be shared
        # by several executors, and backward (like MXNet's) depends on the mode
        self._modes = {}

    @staticmethod
    def _key(mean):
        return mean.__array_interface__['data'][0]

    def list_arguments(self):
        return ['data', 'gamma', 'beta']

    def list_outputs(self):
        return ['output', 'mean', 'var']

    def list_auxiliary_states(self):
        return ['moving_mean', 'moving_var']

    def num_visible_outputs(self):
        return 3 if self.output_mean_var else 1

    def input_var_attrs(self, index):
        if index == 3:
            return {'__init__': '["zero", {}]'}
        if index == 4:
            return {'__init__': '["one", {}]'}
        return None

    def _axis(self, ndim):
        axis = self.axis + ndim if self.axis < 0 else self.axis
        if not 0 <= axis < ndim:
            raise ShapeError('BatchNorm: channel axis %d out of range for %dD data'
                             % (self.axis, ndim))
        return axis

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = data_shape('BatchNorm', in_shapes[0], out_shapes[0])
        if data is None:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        channels = (data[self._axis(len(data))],)
        reason = 'data %s with channel axis %d' % (tuple(data), self.axis)
        params = [expect_shape(s, channels, self.name, what, reason)
                  for s, what in zip(in_shapes[1:], ('gamma', 'beta'))]
        aux = [expect_shape(s, channels, self.name, what, reason)
               for s, what in zip(aux_shapes, ('moving_mean', 'moving_var'))]
        stats = [expect_shape(s, channels, self.name, what, reason)
                 for s, what in zip(out_shapes[1:], ('mean', 'var'))]
        return [data] + params, [data] + stats, aux

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        if dtype is None:
            return list(in_types), list(out_types), list(aux_types)
        # half-precision data keeps its parameters and statistics in float32 (as MXNet)
        param = np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)
        names = ('gamma', 'beta', 'moving_mean', 'moving_var')
        for given, what in zip(list(in_types[1:]) + list(aux_types), names):
            if given is not None and np.dtype(given) != param:
                raise MXNetError('BatchNorm: %s has dtype %s, expected %s for %s data'
                                 % (what, np.dtype(given).name, param.name,
                                    np.dtype(dtype).name))
        return [dtype, param, param], [dtype, param, param], [param, param]

    # ---- compute ------------------------------------------------------------------------
    def _view3(self, a):
        """``a`` as (outer, channels, inner) around the channel axis."""
        axis = self._axis(a.ndim)
        # math.prod: numpy's prod of a shape tuple costs several microseconds per call
        return a.reshape(math.prod(a.shape[:axis]), a.shape[axis], -1)

    def _stats(self, x3, mean, invstd):
        """Batch mean and inverse std per channel (biased variance, two passes)."""
        acc = np.float32 if x3.dtype == np.float16 else x3.dtype
        count = x3.shape[0] * x3.shape[2]
        np.copyto(mean, np.sum(x3, axis=(0, 2), dtype=acc) / count, casting='unsafe')
        centered = scratch('centered', x3.shape, np.dtype(acc))
        np.subtract(x3, mean.reshape(1, -1, 1).astype(acc, copy=False), out=centered)
        np.square(centered, out=centered)
        var = np.sum(centered, axis=(0, 2)) / count
        if self.eps == 0:
            var = np.where(var == 0, np.inf, var)      # MXNet's invstd is 0 then
        np.copyto(invstd, 1.0 / np.sqrt(var + self.eps), casting='unsafe')

    def forward(self, is_train, req, in_data, out_data, aux, relu=False, residual=None):
        """The operator's forward pass; with ``relu`` (a BatchNorm fused with the relu that
        alone reads its output, ``executor/fusion.py``) ``out_data[0]`` takes the relu's
        output, the positive part of the normalized data; with ``residual`` too (fused with
        the residual addition that alone reads it and the addition's relu) the positive
        part of its sum with ``residual``."""
        x, gamma, beta = in_data
        out, mean, invstd = out_data
        batch_stats = is_train and not self.use_global_stats
        if len(self._modes) > 64:
            self._modes.clear()
        self._modes[self._key(mean)] = batch_stats
        x3 = self._view3(x)
        fast = norm_kernels.supports(x3, out)
        if batch_stats and fast:
            norm_kernels.moments(x3, self.eps, mean, invstd)
        elif batch_stats:
            self._stats(x3, mean, invstd)
        else:
            np.copyto(mean, aux[0])
            np.copyto(invstd, 1.0 / np.sqrt(aux[1] + self.eps), casting='unsafe')
        if self.fix_gamma:
            gamma.fill(1)
            scale = invstd
        else:
            scale = gamma * invstd
        if req[0] == 'null':
            return
        res3 = None if residual is None else self._view3(residual)
        if fast and (res3 is None or norm_kernels.supports(res3)):
            norm_kernels.affine(x3, mean, scale, beta, self._view3(out), req[0] == 'add',
                                relu, res3)
            return
        shift = beta - mean * scale
        scale3, shift3 = scale.reshape(1, -1, 1), shift.reshape(1, -1, 1)
        out3 = self._view3(out)
        dst = work_buffer('fwd', out3, req[0])
        if res3 is not None and np.shares_memory(dst, res3):
            dst = scratch('fwd_residual', out3.shape, out3.dtype)
        np.multiply(x3, scale3.astype(x.dtype, copy=False), out=dst)
        dst += shift3.astype(x.dtype, copy=False)
        if res3 is not None:
            dst += res3         # rounded to the data type first, as the addition's input
        if relu:
            np.maximum(dst, 0, out=dst)
        if res3 is not None and dst is not out3:
            np.copyto(out3, dst)
            return
        if dst is not out3:
            out3 += dst

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux, relu_out=None):
        """The operator's backward pass; with ``relu_out`` (fused with a relu, see
        :meth:`forward`) ``out_grad[0]`` is the relu's output gradient, passed on where
        ``relu_out`` is positive."""
        x, gamma = in_data[0], in_data[1]
        batch_mean, batch_invstd = out_data[1], out_data[2]
        x3, dy3 = self._view3(x), self._view3(out_grad[0])
        batch_stats = self._modes.get(self._key(batch_mean), False)
        if batch_stats:
            mean, invstd = batch_mean, batch_invstd
        else:
            mean = aux[0]
            invstd = (1.0 / np.sqrt(aux[1] + self.eps)).astype(aux[1].dtype)
        if norm_kernels.supports(x3, dy3) and (
                req[0] == 'null' or norm_kernels.supports(in_grad[0])):
            if batch_stats:
                # the moving averages take the batch statistics now, as MXNet's CPU code does
                norm_kernels.update_moving(mean, invstd, self.eps, self.momentum, aux[0],
                                           aux[1])
            # the relu's mask: the forward pass's normalized value, from its own statistics
            # and parameters
            relu = None if relu_out is None else (
                batch_mean, batch_invstd if self.fix_gamma else gamma * batch_invstd,
                in_data[2])
            self._fast_backward(req, x3, dy3, mean, invstd, gamma, batch_stats, in_grad,
                                relu)
            return
        if batch_stats:
            variance = 1.0 / (invstd.astype(np.float64) ** 2) - self.eps
            m = self.momentum
            aux[0][...] = aux[0] * m + mean * (1 - m)
            aux[1][...] = aux[1] * m + variance * (1 - m)
        z3 = None if relu_out is None else self._view3(relu_out)
        count = x3.shape[0] * x3.shape[2]
        acc = np.float32 if x.dtype == np.float16 else x.dtype
        weight = np.ones_like(invstd) if self.fix_gamma else gamma
        if z3 is not None:
            dy3 = np.where(z3 > 0, dy3, np.zeros((), dy3.dtype))
        sum_dy = np.sum(dy3, axis=(0, 2), dtype=acc)
        centered = scratch('centered', x3.shape, np.dtype(acc))
        np.subtract(x3, mean.reshape(1, -1, 1).astype(acc, copy=False), out=centered)
        prod = scratch('prod', x3.shape, np.dtype(acc))
        np.multiply(centered, dy3, out=prod)
        dot = np.sum(prod, axis=(0, 2))
        if req[0] != 'null':
            dx3 = self._view3(in_grad[0])
            iw = (invstd * weight).astype(acc).reshape(1, -1, 1)
            if batch_stats:
                # dx = (dy - mean(dy) - (x - mean) * dot * invstd^2 / count) * invstd * gamma
                k = (dot * invstd * invstd / count).astype(acc).reshape(1, -1, 1)
                centered *= k
                np.subtract(dy3, centered, out=centered)
                centered -= (sum_dy / count).astype(acc).reshape(1, -1, 1)
                centered *= iw
            else:
                np.multiply(dy3, iw, out=centered)
            store_from(dx3, req[0], centered)
        if req[1] != 'null':
            if self.fix_gamma:
                zero_grad(in_grad[1], req[1])
            else:
                store_from(in_grad[1], req[1], dot * invstd)
        if req[2] != 'null':
            store_from(in_grad[2], req[2], sum_dy)

    def _fast_backward(self, req, x3, dy3, mean, invstd, gamma, batch_stats, in_grad, relu):
        """The backward pass in two numba passes (float32 / float64 data) and one call for
        the per-channel arithmetic; with ``relu``, the forward pass's ``(mean, scale,
        shift)``, ``dy3`` counts where the normalized value was positive (the fused relu's
        mask)."""
        channels = x3.shape[1]
        count = x3.shape[0] * x3.shape[2]
        sum_dy, dot, a, b, c = np.empty((5, channels))
        if relu is None:
            norm_kernels.grad_sums(x3, dy3, mean, sum_dy, dot)
        else:
            norm_kernels.relu_grad_sums(x3, dy3, *relu, sum_dy, dot)
        gamma_mode = _MODES[req[1]]
        if self.fix_gamma:
            gamma_mode = -1 if req[1] == 'write' else 0
        norm_kernels.grad_coefficients(
            sum_dy, dot, invstd, gamma, count, batch_stats, self.fix_gamma, a, b, c,
            sum_dy if in_grad[1] is None else in_grad[1], gamma_mode,
            sum_dy if in_grad[2] is None else in_grad[2], _MODES[req[2]])
        if req[0] == 'null':
            return
        dx3 = self._view3(in_grad[0])
        if relu is None:
            norm_kernels.grad_affine(x3, dy3, mean, a, b, c, dx3, req[0] == 'add')
        else:
            # the masked ``dy`` and the centred ``x`` against the forward pass's mean
            # (the batch's, or the moving mean ``mean`` is a copy of)
            norm_kernels.relu_grad_affine(x3, dy3, *relu, a, b, c, dx3, req[0] == 'add')
