"""The Adam family: Adam, AdamW (decoupled weight decay), Adamax and Nadam."""
import math

import numpy

from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch, sparse_rows
from .sparse import (rows_view, row_sparse_parts, position_of, dense_fallback,
                     lazy_rows_fallback, log_lazy_update)
from .optimizer import aggregation_size, register

__all__ = ['Adam', 'AdamW', 'Adamax', 'Nadam']


class MomentsOptimizer(FusedOptimizer):
    """Base of the Adam-like optimizers: decay rates ``beta1`` and ``beta2`` and a state
    of two moment arrays (zeros like the weight) per parameter."""

    def __init__(self, learning_rate, beta1, beta2, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context, dtype=weight.dtype),
                zeros(weight.shape, weight.context, dtype=weight.dtype))

    @staticmethod
    def _moments(states):
        """The raw first- and second-moment arrays of ``states``."""
        return state_arrays(states, 0), state_arrays(states, 1)


@register
class Adam(MomentsOptimizer):
    """Adam (MXNet's ``adam_update``), with bias correction folded into the rate.

    The update at step ``t``::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad**2
        lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)
        weight = weight - lr_t * m / (sqrt(v) + epsilon)

    Parameters
    ----------
    beta1, beta2 : float, optional
        Decay rates of the first and second moment estimates.
    epsilon : float, optional
        Added to the denominator.
    lazy_update : bool, optional
        With a row_sparse gradient, update only its rows (mean, variance and weight);
        False updates every row, a missing row having gradient zero.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def _hyper_params(self, indices, weights):
        rows = []
        for lr, wd, t in zip(*self._counted_rates(indices)):
            coef1 = 1. - self.beta1 ** t
            coef2 = 1. - self.beta2 ** t
            rows.append((lr * math.sqrt(coef2) / coef1, wd))
        return rows

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('adam', [weights, grads, *self._moments(states)], hp,
                     (self.beta1, self.beta2, self.epsilon, self.rescale_grad,
                      self._clip_arg()), dtype, cache)

    def create_state(self, index, weight):
        stype = weight.stype if self.lazy_update else 'default'
        return (zeros(weight.shape, weight.context, dtype=weight.dtype, stype=stype),
                zeros(weight.shape, weight.context, dtype=weight.dtype, stype=stype))

    def _row_sparse_step(self, weight, grad, state, hp):
        """adam_update with a row_sparse gradient: lazy, or standard on every row."""
        if self.lazy_update:
            log_lazy_update()
        if weight.dtype not in (numpy.float32, numpy.float64):
            if self.lazy_update:
                return lazy_rows_fallback(self, weight, grad, state, hp)
            return dense_fallback(self, weight, grad, state, hp)
        w = rows_view(weight)
        mean, var = rows_view(state[0], 'state'), rows_view(state[1], 'state')
        rows, g = row_sparse_parts(grad, w.dtype)
        scalars = self._sparse_scalars(w.dtype, self.beta1, self.beta2, hp[0], hp[1],
                                       self.epsilon, self.rescale_grad, self._clip_arg())
        if self.lazy_update:
            sparse_rows.adam_rows(w, mean, var, rows, g, *scalars)
        else:
            sparse_rows.adam_all(w, mean, var, position_of(rows, w.shape[0]), g, *scalars)
        return None


@register
class AdamW(MomentsOptimizer):
    """Adam with decoupled weight decay (Loshchilov & Hutter), on ``adamw_update``.

    symmod's addition to the 1.9.1 registry, with the semantics of MXNet's fused AdamW
    (``multi_adamw_update`` with ``eta`` = the bias-corrected learning rate)::

        grad = clip(grad * rescale_grad, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad**2
        eta = lr * sqrt(1 - beta2**t) / (1 - beta1**t)     (lr when correct_bias=False)
        weight = weight - eta * (m / (sqrt(v) + epsilon) + wd * weight)

    Parameters
    ----------
    beta1, beta2 : float, optional
        Decay rates of the moment estimates.
    epsilon : float, optional, default 1e-6
        Added to the denominator.
    correct_bias : bool, optional, default True
        Apply Adam's bias correction to the step size.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 correct_bias=True, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.correct_bias = correct_bias
        self.aggregate_num = aggregation_size(4, most=50)

    def _hyper_params(self, indices, weights):
        rows = []
        for start in range(0, len(indices), self.aggregate_num):
            chunk = indices[start:start + self.aggregate_num]
            self._update_count(chunk)
            for index, lr, wd in zip(chunk, self._get_lrs(chunk), self._get_wds(chunk)):
                if self.correct_bias:
                    t = self._index_update_count[index]
                    lr = lr * math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
                rows.append((1.0, wd, lr))
        return rows

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('adamw', [weights, grads, *self._moments(states)], hp,
                     (self.beta1, self.beta2, self.epsilon, self.rescale_grad,
                      self._clip_arg(), self.aggregate_num > 1), dtype, cache)


@register
class Adamax(MomentsOptimizer):
    """AdaMax, Adam's infinity-norm variant (written as NDArray code in MXNet).

    The update at step ``t``::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad
        u = maximum(beta2 * u, abs(grad))
        weight = weight - lr / (1 - beta1**t) * m / u

    Parameters
    ----------
    beta1, beta2 : float, optional
        Decay rates of the moment estimates.
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)

    def _hyper_params(self, indices, weights):
        return [(lr / (1. - self.beta1 ** t), wd)
                for lr, wd, t in zip(*self._counted_rates(indices))]

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('adamax', [weights, grads, *self._moments(states)], hp,
                     (self.beta1, 1. - self.beta1, self.beta2, self.rescale_grad,
                      self._clip_arg(truthy=False)), dtype, cache)


@register
class Nadam(MomentsOptimizer):
    """Nesterov Adam (written as NDArray code in MXNet).

    As in MXNet, the momentum schedule ``m_schedule`` is one number for the whole
    optimizer, advanced by every update of every parameter.

    Parameters
    ----------
    beta1, beta2 : float, optional
        Decay rates of the moment estimates.
    epsilon : float, optional
        Added to the denominator.
    schedule_decay : float, optional
        Decay rate of the momentum schedule.
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def _hyper_params(self, indices, weights):
        rows = []
        for lr, wd, t in zip(*self._counted_rates(indices)):
            momentum_t = self.beta1 * (1. - 0.5 * (pow(0.96, t * self.schedule_decay)))
            momentum_t_1 = self.beta1 * (1. - 0.5 * (pow(0.96, (t + 1) * self.schedule_decay)))
            self.m_schedule = self.m_schedule * momentum_t
            m_schedule_next = self.m_schedule * momentum_t_1
            rows.append((lr, wd, 1. - self.m_schedule, 1. - m_schedule_next,
                         1. - pow(self.beta2, t), 1. - momentum_t, momentum_t_1))
        return rows

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('nadam', [weights, grads, *self._moments(states)], hp,
                     (self.beta1, 1. - self.beta1, self.beta2, 1. - self.beta2, self.epsilon,
                      self.rescale_grad, self._clip_arg(truthy=False)), dtype, cache)

    def _extra_resume_state(self):
        return {'m_schedule': self.m_schedule}

    def _load_extra_resume_state(self, extra):
        self.m_schedule = extra.get('m_schedule', self.m_schedule)
