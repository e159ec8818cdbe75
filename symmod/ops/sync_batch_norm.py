"""_contrib_SyncBatchNorm: batch normalization whose statistics span ``ndev`` devices.

Each device's forward pass computes its per-channel mean and mean of squares; the
``ndev`` calls sharing one ``key`` meet at a rendezvous and all normalize with the
average of those moments (so the whole mini-batch is normalized as one, as
MXNet 1.9.1's SyncBatchNorm does). Backward averages the per-device sums of ``dy`` and
``dy * (x - mean)`` the same way. The moving averages are updated in backward, with
the (biased) variance; the hidden outputs hold the mean and the variance.

The calls of the ``ndev`` devices must run concurrently: the executor group of Module
runs its devices on threads, all at once when its graph has such an operator
(``synchronizes_devices``); a single thread stepping through the devices one after the
other cannot meet the others, and gets an MXNetError after :data:`RENDEZVOUS_TIMEOUT`
seconds instead of hanging. With ``ndev=1`` (the default)
there is nothing to wait for.
"""
import threading

import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int
from .common import store_from, zero_grad
from .norm import BatchNorm
from .registry import Param, register

__all__ = ['RENDEZVOUS_TIMEOUT']

RENDEZVOUS_TIMEOUT = 60.0       # seconds a device waits for the others

_RENDEZVOUS = {}
_RENDEZVOUS_LOCK = threading.Lock()


class _Rendezvous:
    """Where ``ndev`` participants each leave a list of arrays and all take back the
    element-wise averages, once everyone has arrived."""

    def __init__(self, ndev):
        self.ndev = ndev
        self._cond = threading.Condition()
        self._pending = []
        self._round = 0
        self._result = None

    def average(self, arrays, what):
        with self._cond:
            my_round = self._round
            self._pending.append(arrays)
            if len(self._pending) == self.ndev:
                self._result = [sum(parts) / self.ndev for parts in zip(*self._pending)]
                self._pending = []
                self._round += 1
                self._cond.notify_all()
                return self._result
            if not self._cond.wait_for(lambda: self._round != my_round,
                                       timeout=RENDEZVOUS_TIMEOUT):
                self._pending.remove(arrays)
                raise MXNetError(
                    'SyncBatchNorm %s: waited %gs for %d devices, %d arrived; the devices '
                    'sharing a key must run their passes concurrently (e.g. the executor '
                    'group of Module), not one after the other in one thread'
                    % (what, RENDEZVOUS_TIMEOUT, self.ndev, len(self._pending) + 1))
            return self._result


def _rendezvous(key, phase, ndev):
    with _RENDEZVOUS_LOCK:
        point = _RENDEZVOUS.get((key, phase))
        if point is None or point.ndev != ndev:
            point = _RENDEZVOUS[(key, phase)] = _Rendezvous(ndev)
        return point


def _averaged(key, phase, ndev, arrays):
    if ndev == 1:
        return arrays
    return _rendezvous(key, phase, ndev).average(arrays, '%s (key %r)' % (phase, key))


@register
class SyncBatchNorm(BatchNorm):
    """Batch normalization over the channel axis 1 with statistics shared by ``ndev``
    devices (the calls with the same ``key``).

    Inputs ``data``, ``gamma``, ``beta``; auxiliary states ``moving_mean``,
    ``moving_var``. ``output_mean_var=True`` also exposes the batch mean and variance.

    Examples
    --------
    >>> x = mx.nd.array([[1., 2.], [3., 6.]])
    >>> out = mx.nd.contrib.SyncBatchNorm(x, mx.nd.ones(2), mx.nd.zeros(2), mx.nd.zeros(2),
    ...                                   mx.nd.ones(2), key='bn0', eps=0)
    """
    name = '_contrib_SyncBatchNorm'
    aliases = ()
    params = (Param('eps', parse_float, 1e-3, 'Epsilon added to the variance.'),
              Param('momentum', parse_float, 0.9, 'Momentum of the moving averages.'),
              Param('fix_gamma', parse_bool, True, 'Fix gamma to 1 while training.'),
              Param('use_global_stats', parse_bool, False,
                    'Normalize with the moving statistics in training too.'),
              Param('output_mean_var', parse_bool, False,
                    'Also output the batch mean and variance.'),
              Param('ndev', parse_int, 1, 'How many devices share the statistics.'),
              Param('key', str, doc='Names the layer whose devices synchronize.'))

    def check_params(self):
        super().check_params()
        if self.ndev < 1:
            raise MXNetError('SyncBatchNorm: ndev must be positive, found %d' % self.ndev)
        self.axis = 1
        self.cudnn_off = False
        # the executor group must run the devices concurrently for them to meet
        self.synchronizes_devices = self.ndev > 1

    def _acc(self, x):
        return np.float32 if x.dtype == np.float16 else x.dtype

    def forward(self, is_train, req, in_data, out_data, aux):
        x, gamma, beta = in_data
        out, mean, var = out_data
        batch_stats = is_train and not self.use_global_stats
        if len(self._modes) > 64:
            self._modes.clear()
        self._modes[self._key(mean)] = batch_stats
        if self.fix_gamma:
            gamma.fill(1)
        x3 = self._view3(x)
        acc = self._acc(x)
        if batch_stats:
            count = x3.shape[0] * x3.shape[2]
            moments = [np.sum(x3, axis=(0, 2), dtype=acc) / count,
                       np.sum(np.square(x3, dtype=acc), axis=(0, 2)) / count]
            m1, m2 = _averaged(self.key, 'forward', self.ndev, moments)
            np.copyto(mean, m1, casting='unsafe')
            np.copyto(var, m2 - np.square(m1), casting='unsafe')
            center, spread = m1, m2 - np.square(m1)
        else:
            center, spread = aux[0], aux[1]
        if req[0] == 'null':
            return
        scale = gamma / np.sqrt(spread + self.eps)
        shift = beta - center * scale
        y = x3 * scale.astype(acc).reshape(1, -1, 1) + shift.astype(acc).reshape(1, -1, 1)
        store_from(self._view3(out), req[0], y)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, gamma = in_data[0], in_data[1]
        batch_mean, batch_var = out_data[1], out_data[2]
        x3, dy3 = self._view3(x), self._view3(out_grad[0])
        acc = self._acc(x)
        weight = np.ones_like(gamma) if self.fix_gamma else gamma
        batch_stats = self._modes.get(self._key(batch_mean), False)
        mean, var = (batch_mean, batch_var) if batch_stats else (aux[0], aux[1])
        centered = np.subtract(x3, mean.astype(acc).reshape(1, -1, 1), dtype=acc)
        sum_dy = np.sum(dy3, axis=(0, 2), dtype=acc)
        sum_prod = np.sum(centered * dy3, axis=(0, 2))
        invstd = 1.0 / np.sqrt(var.astype(acc) + self.eps)
        if batch_stats:
            m = self.momentum
            aux[0][...] = aux[0] * m + batch_mean * (1 - m)
            aux[1][...] = aux[1] * m + batch_var * (1 - m)
            count = x3.shape[0] * x3.shape[2]
            avg_dy, avg_prod = _averaged(self.key, 'backward', self.ndev, [sum_dy, sum_prod])
            # d/dx of gamma * (x - mean) / sqrt(var + eps) with mean and var over all devices
            grad_var = -avg_prod * weight * invstd ** 3
            grad_mean = -avg_dy * weight * invstd
            dx = (dy3 * (weight * invstd).reshape(1, -1, 1)
                  + (grad_var / count).reshape(1, -1, 1) * centered
                  + (grad_mean / count).reshape(1, -1, 1))
        else:
            dx = dy3 * (weight * invstd).reshape(1, -1, 1)
        if req[0] != 'null':
            store_from(self._view3(in_grad[0]), req[0], dx)
        if req[1] != 'null':
            if self.fix_gamma:
                zero_grad(in_grad[1], req[1])
            else:
                store_from(in_grad[1], req[1], sum_prod * invstd)
        if req[2] != 'null':
            store_from(in_grad[2], req[2], sum_dy)
