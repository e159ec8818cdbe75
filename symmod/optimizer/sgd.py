"""SGD (with momentum, weight decay, mixed precision), ccSGD and NAG.

SGD follows MXNet's aggregated path (``multi_sgd_update`` / ``multi_sgd_mom_update``,
which its Updater uses for dense arrays): parameters are grouped by dtype and their
counts and learning rates advance in chunks of ``MXNET_OPTIMIZER_AGGREGATION_SIZE``
(default 4). NAG updates per index with ``nag_mom_update``.
"""
import os
import warnings
from collections import OrderedDict

import numpy

from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch
from .optimizer import register

__all__ = ['SGD', 'ccSGD', 'NAG']


def _warn_fp16(name):
    warnings.warn("Accumulating with float16 in optimizer can lead to "
                  "poor accuracy or slow convergence. "
                  "Consider using multi_precision=True option of the "
                  "%s optimizer" % name)


def master_copy_state(optimizer, index, weight, name):
    """State layout of SGD-like optimizers: ``(momentum or None, float32 master weight)``."""
    if optimizer.multi_precision and weight.dtype == numpy.float16:
        master = weight.astype(numpy.float32)
        return (optimizer.create_state(index, master), master)
    if weight.dtype == numpy.float16 and not optimizer.multi_precision:
        _warn_fp16(name)
    return optimizer.create_state(index, weight)


@register
class SGD(FusedOptimizer):
    """Stochastic gradient descent with momentum and weight decay.

    The update (MXNet's ``sgd_mom_update``)::

        state = momentum * state - lr * wd * weight - lr * clip(rescale_grad * grad)
        weight = weight + state

    Parameters
    ----------
    momentum : float, optional, default 0.0
        The momentum value; 0 keeps no state.
    lazy_update : bool, optional, default True
        Accepted for MXNet compatibility (lazy updates apply to sparse gradients, which
        symmod does not have).
    multi_precision : bool, optional
        Update a float32 master copy of float16 weights.

    Examples
    --------
    >>> opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=1e-4)
    >>> upd = mx.optimizer.get_updater(opt)
    >>> w, g = mx.nd.ones((2,)), mx.nd.ones((2,))
    >>> upd(0, g, w)
    """

    _mp_calls_update = False

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', "4"))

    def create_state_multi_precision(self, index, weight):
        return master_copy_state(self, index, weight, 'SGD')

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _hyper_params(self, indices, weights):
        # MXNet's Updater groups by dtype, then counts and reads lrs chunk by chunk.
        step = max(1, self.aggregate_num)
        if len({w._data.dtype for w in weights}) < 2:
            return list(zip(*self._counted_rates(indices, step)[:2]))
        groups = OrderedDict()
        for pos, weight in enumerate(weights):
            groups.setdefault(weight._data.dtype, []).append(pos)
        rows = [None] * len(indices)
        for positions in groups.values():
            lrs, wds, _ = self._counted_rates([indices[p] for p in positions], step)
            for p, lr, wd in zip(positions, lrs, wds):
                rows[p] = (lr, wd)
        return rows

    def _uses_master_copy(self, weight, state):
        return self.multi_precision and weight.dtype == numpy.float16

    def _launch(self, weights, grads, states, hp, dtype, cache):
        clip = self._clip_arg()
        if self.momentum > 0:
            dispatch.run('sgd_mom', [weights, grads, state_arrays(states)], hp,
                         (self.momentum, self.rescale_grad, clip, False, True), dtype, cache)
        else:
            dispatch.run('sgd', [weights, grads], hp, (self.rescale_grad, clip, True),
                         dtype, cache)

    def _launch_multi_precision(self, weights, grads, states, hp, cache):
        raw_w = [w._data for w in weights]
        raw_g = [g._data for g in grads]
        masters = state_arrays(states, 1)
        clip = self._clip_arg()
        if self.momentum > 0:
            dispatch.run('mp_sgd_mom', [raw_w, raw_g, state_arrays(states, 0), masters], hp,
                         (self.momentum, self.rescale_grad, clip, False), numpy.float32, cache)
        else:
            dispatch.run('mp_sgd', [raw_w, raw_g, masters], hp,
                         (self.rescale_grad, clip, True), numpy.float32, cache)


@register
class ccSGD(SGD):  # pylint: disable=invalid-name
    """Deprecated alias of :class:`SGD`, kept for MXNet compatibility."""


@register
class NAG(FusedOptimizer):
    """Nesterov accelerated gradient (MXNet's ``nag_mom_update``).

    The update::

        state = momentum * state
        weight = weight - state + (momentum + 1) * (state - lr * (grad + wd * weight))
        state = state - lr * (grad + wd * weight)

    where ``grad`` is ``clip(rescale_grad * grad)``.

    Parameters
    ----------
    momentum : float, optional, default 0.0
        The momentum value; 0 makes NAG plain SGD.
    multi_precision : bool, optional
        Update a float32 master copy of float16 weights.
    """

    _mp_calls_update = False

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state_multi_precision(self, index, weight):
        return master_copy_state(self, index, weight, 'NAG')

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _scalars(self):
        return (self.momentum if self.momentum > 0 else 0.0, self.rescale_grad,
                self._clip_arg(), True)

    def _launch(self, weights, grads, states, hp, dtype, cache):
        if states[0] is not None:
            dispatch.run('sgd_mom', [weights, grads, state_arrays(states)], hp,
                         self._scalars() + (True,), dtype, cache)
        else:
            dispatch.run('sgd', [weights, grads], hp,
                         (self.rescale_grad, self._clip_arg(), False), dtype, cache)

    def _launch_multi_precision(self, weights, grads, states, hp, cache):
        raw_w = [w._data for w in weights]
        raw_g = [g._data for g in grads]
        masters = state_arrays(states, 1)
        if states[0][0] is not None:
            dispatch.run('mp_sgd_mom', [raw_w, raw_g, state_arrays(states, 0), masters], hp,
                         self._scalars(), numpy.float32, cache)
        else:
            dispatch.run('mp_sgd', [raw_w, raw_g, masters], hp,
                         (self.rescale_grad, self._clip_arg(), False), numpy.float32, cache)
