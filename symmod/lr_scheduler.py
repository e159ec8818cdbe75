"""Learning-rate schedules: the rate as a function of the number of updates.

An optimizer calls its scheduler with ``num_update``, the largest update count of any
parameter (already 1 at the first update). Factor and MultiFactor schedules keep state
(the decays applied so far) and never undo a decay; Poly and Cosine schedules return the
last rate they computed once ``num_update`` passes ``max_update``.
"""
import logging
from math import cos, pi

from ._suggest import did_you_mean, missing_attribute

_LOGGER = logging.getLogger(__name__)

__all__ = ['LRScheduler', 'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler',
           'CosineScheduler']


class LRScheduler:
    """Base class of the schedulers, with optional warmup.

    Parameters
    ----------
    base_lr : float, optional, default 0.01
        The learning rate after warmup.
    warmup_steps : int, optional, default 0
        Number of updates of warmup.
    warmup_begin_lr : float, optional, default 0
        The rate warmup starts from.
    warmup_mode : {'linear', 'constant'}
        'linear' rises in equal steps to ``base_lr``; 'constant' stays at
        ``warmup_begin_lr``.
    """

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        self.base_lr = base_lr
        assert isinstance(warmup_steps, int)
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if self.warmup_begin_lr > self.warmup_final_lr:
            raise ValueError("Base lr has to be higher than warmup_begin_lr")
        if self.warmup_steps < 0:
            raise ValueError("Warmup steps has to be positive or 0")
        if warmup_mode not in ['linear', 'constant']:
            raise ValueError("Supports only linear and constant modes of warmup, not %r.%s"
                             % (warmup_mode, did_you_mean(warmup_mode, ['linear', 'constant'])))
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The warmup rate at ``num_update`` (< warmup_steps)."""
        assert num_update < self.warmup_steps
        if self.warmup_mode == 'linear':
            increase = (self.warmup_final_lr - self.warmup_begin_lr) \
                * float(num_update) / float(self.warmup_steps)
            return self.warmup_begin_lr + increase
        if self.warmup_mode == 'constant':
            return self.warmup_begin_lr
        raise ValueError("Invalid warmup mode %s" % self.warmup_mode)

    def __call__(self, num_update):
        """Return the learning rate after ``num_update`` updates (defined by subclasses)."""
        raise TypeError('%s is a base class: use FactorScheduler, MultiFactorScheduler, '
                        'PolyScheduler or CosineScheduler' % type(self).__name__)


class FactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` every ``step`` updates, down to ``stop_factor_lr``.

    The rate changes when ``num_update`` exceeds a multiple of ``step`` (strictly), so
    with ``step=10`` the first decay is at update 11.

    Parameters
    ----------
    step : int
        Updates between decays (>= 1).
    factor : float, optional, default 1
        The decay factor (<= 1).
    stop_factor_lr : float, optional, default 1e-8
        The rate never goes below this.

    Examples
    --------
    >>> sched = mx.lr_scheduler.FactorScheduler(step=10, factor=0.5, base_lr=0.1)
    >>> sched(10), sched(11)
    (0.1, 0.05)
    """

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # a loop, not an if: a resumed run may be several steps ahead
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                _LOGGER.info("Update[%d]: now learning rate arrived at %0.5e, will not "
                             "change in the future", num_update, self.base_lr)
            else:
                _LOGGER.info("Update[%d]: Change learning rate to %0.5e",
                             num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` each time ``num_update`` passes a listed step.

    Parameters
    ----------
    step : list of int
        Increasing update counts; the rate decays once ``num_update`` exceeds each.
    factor : float, optional, default 1
        The decay factor (<= 1).
    """

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        assert isinstance(step, list) and len(step) >= 1
        for i, _step in enumerate(step):
            if i != 0 and step[i] <= step[i - 1]:
                raise ValueError("Schedule step must be an increasing integer list")
            if _step < 1:
                raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind <= len(self.step) - 1:
            if num_update > self.step[self.cur_step_ind]:
                self.count = self.step[self.cur_step_ind]
                self.cur_step_ind += 1
                self.base_lr *= self.factor
                _LOGGER.info("Update[%d]: Change learning rate to %0.5e",
                             num_update, self.base_lr)
            else:
                return self.base_lr
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """After warmup, a decay from ``base_lr`` to ``final_lr`` over the updates up to
    ``max_update``; constant afterwards. Subclasses give its shape: ``_decay(steps)``, the
    fraction of ``base_lr - final_lr`` left after ``steps`` updates past warmup."""

    def __init__(self, max_update, base_lr=0.01, final_lr=0,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        assert isinstance(max_update, int)
        if max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * \
                self._decay(num_update - self.warmup_steps)
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """Polynomial decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates.

    After warmup: ``final_lr + (base_lr - final_lr) * (1 - n / max_steps) ** pwr`` with
    ``n`` counted from the end of warmup and ``max_steps = max_update - warmup_steps``.

    Parameters
    ----------
    max_update : int
        Updates until the rate reaches ``final_lr``.
    pwr : int, optional, default 2
        The power of the decay.
    final_lr : float, optional, default 0
        The last rate.
    """

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0,
                 warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def _decay(self, steps):
        return pow(1 - float(steps) / float(self.max_steps), self.power)


class CosineScheduler(_DecayToFinal):
    """Cosine decay from ``base_lr`` to ``final_lr`` over ``max_update`` updates.

    After warmup: ``final_lr + (base_lr - final_lr) * (1 + cos(pi * n / max_steps)) / 2``.

    Parameters
    ----------
    max_update : int
        Updates until the rate reaches ``final_lr``.
    final_lr : float, optional, default 0
        The last rate.
    """

    def _decay(self, steps):
        return (1 + cos(pi * steps / self.max_steps)) / 2


__getattr__ = missing_attribute(__name__)     # mx.lr_scheduler.<typo>: the closest class
