"""softmax, log_softmax, softmin and the legacy SoftmaxActivation.

All subtract the maximum along the reduced axis before exponentiating, so large
inputs never overflow. Gradients are computed from the outputs alone.
"""
import math

import numba
import numpy as np

from ..base import MXNetError, parse_bool, parse_dtype, parse_float, parse_int
from ..base import parse_optional
from .common import choice, data_shape, scratch, store_from, work_buffer, zero_grad
from .registry import Operator, Param, ShapeError, register, unify

__all__ = ['softmax_into']


# Up to this many elements one numba pass beats numpy's five calls (1x10: 0.3 vs 5.1 us,
# 64x10: 2.6 vs 10 us); above, numpy's vectorised exp wins (32x200: 26 vs 15 us).
_SMALL = 1024
_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


@numba.njit(cache=True, error_model='numpy')
def _softmax_small(x3, out3, zero):
    """Softmax over axis 1 of (lead, classes, trail) arrays, in ``x3``'s float type:
    the row's maximum, ``exp(x - max)`` and its running sum, then one division per
    element (``zero`` is 0 of that type, so the sum is not widened)."""
    for r in range(x3.shape[0]):
        for t in range(x3.shape[2]):
            peak = x3[r, 0, t]
            for c in range(1, x3.shape[1]):
                if peak < x3[r, c, t]:
                    peak = x3[r, c, t]
            total = zero
            for c in range(x3.shape[1]):
                e = math.exp(x3[r, c, t] - peak)
                out3[r, c, t] = e
                total += e
            for c in range(x3.shape[1]):
                out3[r, c, t] /= total


def softmax_into(x3, out3):
    """Softmax over axis 1 of a 3-D view ``x3``, written into ``out3`` (may alias x3)."""
    dtype = x3.dtype
    if x3.size <= _SMALL and dtype in _KERNEL_DTYPES and out3.dtype == dtype \
            and x3.size > 0:
        _softmax_small(x3, out3, dtype.type(0))
        return
    if x3.shape[2] == 1:            # 2-D reductions are faster than 3-D ones
        x3, out3 = x3[:, :, 0], out3[:, :, 0]
    peak = x3.max(axis=1, keepdims=True)
    np.subtract(x3, peak, out=out3)
    np.exp(out3, out=out3)
    total = out3.sum(axis=1, keepdims=True)
    np.divide(out3, total, out=out3)


def _softmax_grad(dy, y, axis, work):
    """The softmax backward ``y * (dy - sum(dy * y))`` along ``axis``, into ``work``."""
    np.multiply(dy, y, out=work)
    total = np.sum(work, axis=axis, keepdims=True)
    np.subtract(dy, total, out=work)
    work *= y


def _positions(shape, axis):
    """Indices along ``axis`` shaped to broadcast against an array of ``shape``."""
    pos = np.arange(shape[axis])
    return pos.reshape((-1,) + (1,) * (len(shape) - axis - 1))


def _parse_float_dtype(value):
    dtype = parse_dtype(value)
    if dtype is not None and dtype.name not in ('float16', 'float32', 'float64'):
        raise ValueError("expected one of {'float16', 'float32', 'float64'}, found %r" % value)
    return dtype


class _SoftmaxBase(Operator):
    """Parameters and shape/type rules shared by softmax and log_softmax."""
    params = (Param('axis', parse_int, -1, 'The axis along which to compute softmax.'),
              Param('temperature', parse_optional(parse_float), None,
                    'Temperature: the input is divided by it (default 1).'),
              Param('dtype', parse_optional(_parse_float_dtype), None,
                    'Output dtype (default: the input dtype).'),
              Param('use_length', parse_optional(parse_bool), False,
                    'Mask the input beyond a per-row length (softmax only).'))
    backward_uses_inputs = False
    log = False
    negate = False      # softmin: softmax of -x

    def check_params(self):
        self.use_length = bool(self.use_length)
        if self.temperature is not None and self.temperature == 0:
            raise MXNetError('%s: temperature must not be 0' % self.name)

    def list_arguments(self):
        return ['data', 'length'] if self.use_length else ['data']

    def _axis(self, ndim):
        axis = self.axis + ndim if self.axis < 0 else self.axis
        if not 0 <= axis < ndim:
            raise ShapeError('%s: axis %d out of range for %dD data'
                             % (self.name, self.axis, ndim))
        return axis

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = data_shape(self.name, in_shapes[0], out_shapes[0])
        ins = [data] + list(in_shapes[1:])
        if data is not None:
            axis = self._axis(len(data))
        if self.use_length and data is not None:
            length = tuple(d for i, d in enumerate(data) if i != axis) or (1,)
            try:
                ins[1] = unify(ins[1], length)
            except ShapeError:
                raise ShapeError('%s: length shape %s does not match data %s without axis '
                                 '%d: expected %s' % (self.name, tuple(ins[1]), tuple(data),
                                                      self.axis, length)) from None
        return ins, [data], list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        ins = list(in_types)
        if self.dtype is not None:
            out = self.dtype
        else:
            out = ins[0] if ins[0] is not None else out_types[0]
            ins[0] = out
        if out_types[0] is not None and out is not None \
                and np.dtype(out_types[0]) != np.dtype(out):
            raise MXNetError('%s: output dtype %s, expected %s' % (
                self.name, np.dtype(out_types[0]).name, np.dtype(out).name))
        return ins, [out], list(aux_types)

    def _scaled(self, x, axis, dst):
        """``(x - max) / temperature`` into ``dst`` (masked rows handled by the caller)."""
        if self.negate:
            np.subtract(np.min(x, axis=axis, keepdims=True), x, out=dst)
        else:
            np.subtract(x, np.max(x, axis=axis, keepdims=True), out=dst)
        if self.temperature is not None and self.temperature != 1:
            dst /= self.temperature

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x, out = in_data[0], out_data[0]
        axis = self._axis(x.ndim)
        dst = work_buffer('fwd', out, req[0])
        if self.use_length:
            self._masked_softmax(x, in_data[1], axis, dst)
        else:
            self._scaled(x, axis, dst)
            if self.log:
                dst -= np.log(np.sum(np.exp(dst), axis=axis, keepdims=True))
            else:
                np.exp(dst, out=dst)
                dst /= np.sum(dst, axis=axis, keepdims=True)
        if dst is not out:
            out += dst

    def _masked_softmax(self, x, length, axis, dst):
        lengths = np.expand_dims(length.reshape(x.shape[:axis] + x.shape[axis + 1:]), axis)
        valid = _positions(x.shape, axis) < lengths.astype(np.int64)
        masked = np.where(valid, x, -np.inf)
        peak = np.max(masked, axis=axis, keepdims=True)
        peak[~np.isfinite(peak)] = 0           # empty rows give all zeros, as MXNet
        np.subtract(x, peak, out=dst)
        if self.temperature is not None and self.temperature != 1:
            dst /= self.temperature
        with np.errstate(over='ignore'):
            np.exp(dst, out=dst)
        dst *= valid
        total = np.sum(dst, axis=axis, keepdims=True)
        total[total == 0] = 1
        dst /= total

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if self.use_length:
            zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        dy, y = out_grad[0], out_data[0]
        axis = self._axis(y.ndim)
        dx = in_grad[0]
        work = scratch('work', y.shape, np.result_type(dy.dtype, y.dtype))
        if self.log:
            # dx = dy - exp(y) * sum(dy)
            np.exp(y, out=work)
            work *= np.sum(dy, axis=axis, keepdims=True)
            np.subtract(dy, work, out=work)
        else:
            _softmax_grad(dy, y, axis, work)
        if self.temperature is not None and self.temperature != 1:
            work /= self.temperature
        if self.negate:
            np.negative(work, out=work)
        store_from(dx, req[0], work)


@register
class softmax(_SoftmaxBase):
    """Softmax along ``axis``: ``exp(x / t) / sum(exp(x / t))`` with temperature ``t``.

    With ``use_length=True`` a second input ``length`` (the data's shape without
    ``axis``) limits each row: entries beyond the length are excluded and output 0.

    Examples
    --------
    >>> mx.nd.softmax(mx.nd.array([[1, 1, 1]])).asnumpy()
    array([[0.33333334, 0.33333334, 0.33333334]], dtype=float32)
    """
    name = 'softmax'
    aliases = ('_npx_softmax',)
    inplace = ((0, 0),)


@register
class log_softmax(_SoftmaxBase):
    """Log of softmax along ``axis``: ``x / t - log(sum(exp(x / t)))``, computed stably.

    Examples
    --------
    >>> mx.nd.log_softmax(mx.nd.array([1, 2, .1])).asnumpy()
    array([-1.41703  , -0.41703  , -2.3170302], dtype=float32)
    """
    name = 'log_softmax'
    aliases = ('_npx_log_softmax',)
    log = True
    inplace = ((0, 0),)

    def check_params(self):
        super().check_params()
        if self.use_length:
            raise MXNetError('log_softmax: use_length=True is not supported (it has no '
                             'length input); use softmax')


@register
class SoftmaxActivation(Operator):
    """Legacy softmax: over the last axis (``mode='instance'``; for the usual
    ``(batch, classes)`` data, per instance) or across channels at every position
    (``mode='channel'``, axis 1, data of 3+ dims).

    The gradient is MXNet 1.9.1's, which always normalizes over axis 1: for
    ``mode='instance'`` on data with more than 2 dims it differs from the exact
    derivative of the forward pass; symmod keeps MXNet's numbers.

    Examples
    --------
    >>> mx.nd.SoftmaxActivation(mx.nd.array([[0, 0]])).asnumpy()
    array([[0.5, 0.5]], dtype=float32)
    """
    name = 'SoftmaxActivation'
    params = (Param('mode', choice('instance', 'channel'), 'instance',
                    'Softmax per instance or per channel.'),)
    backward_uses_inputs = False
    names_inputs = False       # no FListInputNames in MXNet: monitors see input0

    def _view(self, a):
        """``a`` as (rows, classes, positions): the softmax runs over axis 1."""
        if self.mode == 'instance':
            return a.reshape(-1, a.shape[-1], 1)
        if a.ndim < 3:
            raise MXNetError('SoftmaxActivation: input needs at least 3 dimensions when '
                             "mode='channel', found shape %s" % (a.shape,))
        return a.reshape(a.shape[0], a.shape[1], -1)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = super().infer_shape(in_shapes, out_shapes, aux_shapes)
        data = shape[0][0]
        if data is not None and self.mode == 'channel' and len(data) < 3:
            raise ShapeError('SoftmaxActivation: input needs at least 3 dimensions when '
                             "mode='channel', found shape %s" % (tuple(data),))
        return shape

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x, out = self._view(in_data[0]), self._view(out_data[0])
        dst = work_buffer('fwd', out, req[0])
        softmax_into(x, dst)
        if dst is not out:
            out += dst

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        y = out_data[0]
        shape3 = (y.shape[0], y.shape[1] if y.ndim > 1 else 1, -1)
        y3, dy3 = y.reshape(shape3), out_grad[0].reshape(shape3)
        work = scratch('work', y3.shape, y.dtype)
        _softmax_grad(dy3, y3, 1, work)
        store_from(in_grad[0].reshape(y3.shape), req[0], work)


@register
class softmin(_SoftmaxBase):
    """Softmin along ``axis``: ``exp(-x / t) / sum(exp(-x / t))``, the softmax of ``-x``.

    Examples
    --------
    >>> mx.nd.softmin(mx.nd.array([[1, 2, 3]])).asnumpy()
    array([[0.66524094, 0.24472848, 0.09003057]], dtype=float32)
    """
    name = 'softmin'
    negate = True
    inplace = ((0, 0),)

    def check_params(self):
        super().check_params()
        if self.use_length:
            raise MXNetError('softmin: use_length=True is not supported (it has no length '
                             'input); use softmax')
