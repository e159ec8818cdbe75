"""LARS: SGD with layer-wise adaptive learning rates (You et al.)."""
import os

import numpy

from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch
from .optimizer import register
from .sgd import master_copy_state

__all__ = ['LARS']


def _skips_lars(name):
    return name.endswith('gamma') or name.endswith('beta') or name.endswith('bias')


@register
class LARS(FusedOptimizer):
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

    _mp_calls_update = False

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', "4"))
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        lrs = [lr for _ in indices]
        for i, index in enumerate(indices):
            if index in self.param_dict:
                lrs[i] *= self.param_dict[index].lr_mult
            elif index in self.lr_mult:
                lrs[i] *= self.lr_mult[index]
            elif index in self.idx2name:
                lrs[i] *= self.lr_mult.get(self.idx2name[index], 1.0)
        return lrs

    def set_wd_mult(self, args_wd_mult):
        """Like :meth:`Optimizer.set_wd_mult`, but only ``*_weight`` names keep decay."""
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not name.endswith('_weight'):
                self.wd_mult[name] = 0.0
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and '__wd_mult__' in attr[name]:
                    self.wd_mult[name] = float(attr[name]['__wd_mult__'])
        self.wd_mult.update(args_wd_mult)

    def create_state_multi_precision(self, index, weight):
        return master_copy_state(self, index, weight, 'SGD')

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _uses_master_copy(self, weight, state):
        return self.multi_precision and weight.dtype == numpy.float16

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
            w_sq = dispatch.run('sum_sq', [[weights[i] for i in lars]], numpy.zeros((lars.size, 1)),
                                ()).astype(numpy.float32)[:, 0]
            g_sq = dispatch.run('sum_sq', [[grads[i] for i in lars]], numpy.zeros((lars.size, 1)),
                                ()).astype(numpy.float32)[:, 0]
            w_norm = numpy.sqrt(w_sq)
            valid = (w_norm > 0) & (g_sq > 0)
            f32 = numpy.float32
            scaled = (lrs[lars] * f32(self.eta) * w_norm
                      / (numpy.sqrt(g_sq) * f32(self.rescale_grad) + wds[lars] * w_norm
                         + f32(self.eps)))
            lrs[lars] = numpy.where(valid, scaled, lrs[lars])
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
            ops = [weights[part], grads[part]]
            if self.momentum > 0:
                moms = state_arrays(states[part], 0) if masters is not None \
                    else state_arrays(states[part])
                ops.append(moms)
            if masters is not None:
                ops.append(masters[part])
            rule = ('mp_' if masters is not None else '') + \
                ('sgd_mom' if self.momentum > 0 else 'sgd')
            if self.momentum > 0:
                scalars = (float(momenta[start]), self.rescale_grad, clip, False)
                if masters is None:
                    scalars += (True,)
            else:
                scalars = (self.rescale_grad, clip, True)
            dispatch.run(rule, ops, lr_wd[part], scalars,
                         numpy.float32 if masters is not None else dtype,
                         cache and part == slice(0, len(weights)))
            start = stop

    def _launch_multi_precision(self, weights, grads, states, hp, cache):
        self._launch([w._data for w in weights], [g._data for g in grads], states, hp,
                     numpy.float32, cache, masters=state_arrays(states, 1))

    def _extra_resume_state(self):
        return {'last_lr': self.last_lr, 'cur_lr': self.cur_lr}

    def _load_extra_resume_state(self, extra):
        self.last_lr = extra.get('last_lr', self.last_lr)
        self.cur_lr = extra.get('cur_lr', self.cur_lr)
