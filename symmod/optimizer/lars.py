"""LARS: SGD with layer-wise adaptive learning rates (You et al.)."""
import numpy

from .kernels import dispatch
from .optimizer import aggregation_size, register
from .sgd import MomentumSGDBase, sgd_kernel

__all__ = ['LARS']


def sums_of_squares(arrays):
    """The sum of squares of each raw array, as float32 (MXNet's multi_sum_sq)."""
    sums = dispatch.run('sum_sq', [arrays], numpy.zeros((len(arrays), 1)), ())
    return sums[:, 0].astype(numpy.float32)


def lars_rates(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad):
    """``lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps)`` in float32, or ``lr``
    where a norm is 0 (MXNet's multi_lars)."""
    f32 = numpy.float32
    w_norm = numpy.sqrt(weights_sum_sq)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        scaled = lrs * f32(eta) * w_norm / (numpy.sqrt(grads_sum_sq) * f32(rescale_grad)
                                            + wds * w_norm + f32(eps))
    return numpy.where((w_norm > 0) & (grads_sum_sq > 0), scaled, lrs).astype(f32)


def _skips_lars(name):
    return name.endswith('gamma') or name.endswith('beta') or name.endswith('bias')


@register
class LARS(MomentumSGDBase):
    """LARS: momentum SGD whose rate is scaled per layer by ``|w| / |g|``.

    For each parameter not named like a bias or a norm (``*gamma``, ``*beta``,
    ``*bias``)::

        lr_layer = lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps)

    (just ``lr`` when either norm is 0), then MXNet's ``preloaded_multi_sgd_mom_update``.
    With ``momentum_correction`` the momentum is scaled by the ratio of the current to
    the previous global learning rate.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    lazy_update : bool, optional
        Accepted for MXNet compatibility.
    eta : float, optional, default 0.001
        LARS coefficient.
    eps : float, optional, default 0
        Added to the denominator.
    momentum_correction : bool, optional, default True
        Scale the momentum when the global learning rate changes.
    """

    _decayed_suffixes = ('_weight',)

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = aggregation_size(4)
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        # MXNet's LARS remembers the previous global rate for the momentum correction
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self._base_lr()
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return self._times_mults([lr] * len(indices), indices, 'lr_mult', self.lr_mult)

    def _hyper_params(self, indices, weights):
        # rows: (lr, wd, momentum of the chunk, lars applies); chunks as MXNet's Updater
        rows = []
        step = max(1, self.aggregate_num)
        for start in range(0, len(indices), step):
            chunk = indices[start:start + step]
            self._update_count(chunk)
            lrs = self._get_lrs(chunk)
            wds = self._get_wds(chunk)
            momentum = self.momentum
            if self.momentum > 0 and self.momentum_correction and self.last_lr != 0:
                momentum = self.momentum * (self.cur_lr / self.last_lr)
            for index, lr, wd in zip(chunk, lrs, wds):
                name = self.idx2name[index] if index in self.idx2name else str(index)
                rows.append((lr, wd, momentum, 0.0 if _skips_lars(name) else 1.0))
        return rows

    def _layer_lrs(self, weights, grads, hp):
        """float32 learning rates after the LARS scaling (MXNet's multi_lars)."""
        hp = numpy.asarray(hp, dtype=numpy.float64)
        lrs = hp[:, 0].astype(numpy.float32)
        wds = hp[:, 1].astype(numpy.float32)
        lars = numpy.flatnonzero(hp[:, 3])
        if lars.size:
            lrs[lars] = lars_rates(lrs[lars], sums_of_squares([weights[i] for i in lars]),
                                   sums_of_squares([grads[i] for i in lars]), wds[lars],
                                   self.eta, self.eps, self.rescale_grad)
        return numpy.stack([lrs, wds], axis=1), hp[:, 2]

    def _launch(self, weights, grads, states, hp, dtype, cache, masters=None):
        lr_wd, momenta = self._layer_lrs(weights, grads, hp)
        clip = self._clip_arg()
        # one kernel call per run of equal momentum (they differ only when lr changed)
        start = 0
        while start < len(weights):
            stop = start + 1
            while stop < len(weights) and momenta[stop] == momenta[start]:
                stop += 1
            part = slice(start, stop)
            moms = self._moms(states[part], masters) if self.momentum > 0 else None
            sgd_kernel(weights[part], grads[part], moms,
                       None if masters is None else masters[part], lr_wd[part],
                       float(momenta[start]), self.rescale_grad, clip, dtype,
                       cache and part == slice(0, len(weights)))
            start = stop

    def _extra_resume_state(self):
        return {'last_lr': self.last_lr, 'cur_lr': self.cur_lr}

    def _load_extra_resume_state(self, extra):
        self.last_lr = extra.get('last_lr', self.last_lr)
        self.cur_lr = extra.get('cur_lr', self.cur_lr)
