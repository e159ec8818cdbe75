"""LBSGD: large-batch SGD with learning-rate warmup and gradient accumulation."""
import logging
import math

import numpy

from ..ndarray import NDArray, array, zeros
from ..ndarray import device as _device
from .kernels import dispatch
from .optimizer import Optimizer, register
from .sgd import sgd_kernel, warn_fp16

_LOGGER = logging.getLogger(__name__)

__all__ = ['LBSGD']


def _host_result(values, like):
    return NDArray(_device.to_context(values, like.context), like.context)


@register
class LBSGD(Optimizer):
    """Large-batch SGD with momentum, weight decay and warmup (MXNet 1.9.1 semantics).

    Gradients are accumulated over ``batch_scale`` calls; every ``batch_scale``-th call
    applies one SGD step (``sgd_mom_update``) with the averaged gradient and the learning
    rate multiplied by a warmup factor that grows, over ``warmup_epochs *
    updates_per_epoch`` updates, from 1 to ``batch_scale``:

    * ``'linear'``: ``1 + (batch_scale - 1) * nup / nwup``
    * ``'power2'``: ``1 + (batch_scale - 1) * (nup / nwup)**2``
    * ``'sqrt'``: ``1 + (batch_scale - 1) * sqrt(nup / nwup)``
    * ``'lars'``: layer-wise ``sqrt(|w|**2 / (|g|**2 + wd * |w|**2))`` clamped to [0.01, 100]
    * anything else: 1

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    multi_precision : bool, optional
        Update a float32 master copy of float16 weights.
    warmup_strategy : str, optional, default 'linear'
        One of the strategies above.
    warmup_epochs : int, optional, default 5
        Length of the warmup in epochs.
    batch_scale : int, optional, default 1
        Number of calls accumulated into one update (and the final lr multiplier).
    updates_per_epoch : int, optional, default 32
        Updates per epoch, to measure the warmup.
    begin_epoch : int, optional, default 0
        The epoch training starts from.
    num_epochs : int, optional, default 60
        Total epochs (kept for MXNet compatibility).
    """

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy='linear',
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        super().__init__(**kwargs)
        _LOGGER.info('Running Large-Batch SGD Algorithm')
        _LOGGER.info('(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, '
                     'updates_per_epoch=%d)', batch_scale, warmup_epochs, warmup_strategy,
                     updates_per_epoch)
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        momentum = None
        if self.multi_precision and weight.dtype == numpy.float16:
            master = array(weight, ctx=weight.context, dtype=numpy.float32)
            if self.momentum != 0.0:
                momentum = zeros(weight.shape, weight.context, dtype=numpy.float32)
            return (momentum, master)
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warn_fp16('SGD')
        if self.momentum != 0.0:
            momentum = zeros(weight.shape, weight.context, dtype=weight.dtype)
        return momentum

    def _get_lbmult(self, nup):
        """The warmup multiplier of the learning rate after ``nup`` updates."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        strategy = self.warmup_strategy
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            mult = maxmult
        elif nwup <= 1:
            mult = 1.0
        elif strategy == 'linear':
            mult = 1.0 + (maxmult - 1) * nup / nwup
        elif strategy == 'power2':
            mult = 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        elif strategy == 'sqrt':
            mult = 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        else:
            mult = 1.0
        return mult

    def _get_lars(self, weight, g, wd):
        """Layer-wise scale ``sqrt(|w|^2 / (|g|^2 + wd |w|^2))`` clamped to [0.01, 100]."""
        weight2 = self._l2norm(weight)
        grad2 = self._l2norm(g)
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _l2norm(self, v):
        """Sum of squares (MXNet's name for it), in the array's precision."""
        host = v._host()
        return numpy.multiply(host, host).sum()

    def _reset_cum_gradient(self, index):
        self.cumgrads[index]['cum_grad'] = 0

    def _get_cum_gradient(self, index):
        return self.cumgrads.get(index, {})

    def _put_cum_gradient(self, index, cgrad):
        self.cumgrads[index] = cgrad

    def _cumulate_gradient(self, grad, index):
        """Add ``grad`` to the accumulated gradient of ``index``; return the record."""
        cgrad = self._get_cum_gradient(index)
        if cgrad and cgrad['num_cums'] > 0:
            previous = cgrad['cum_grad']
            if isinstance(previous, NDArray):
                cum_grad = _host_result(previous._host() + grad._host(), grad)
            else:   # 0 after a reset
                cum_grad = _host_result(grad._host() + grad._host().dtype.type(previous), grad)
            num_cums = cgrad['num_cums'] + 1
        else:
            cum_grad = grad
            num_cums = self.init_updates + 1
        cgrad = {'cum_grad': cum_grad, 'num_cums': num_cums}
        self._put_cum_gradient(index, cgrad)
        return cgrad

    def update(self, index, weight, grad, state):
        assert isinstance(weight, NDArray)
        assert isinstance(grad, NDArray)
        lr = self._get_lr(index)    # MXNet reads the rate before counting this update
        wd = self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if (cgrad['num_cums'] % self.batch_scale) == 0:
            host = cgrad['cum_grad']._host()
            grad = _host_result(host / host.dtype.type(self.batch_scale), weight)
            if self.warmup_strategy == 'lars':
                lbmult = self._get_lars(weight, grad, wd)
            else:
                lbmult = self._get_lbmult(cgrad['num_cums'])
            lr = lr * lbmult
            clip = float(self.clip_gradient) if self.clip_gradient else -1.0
            momentum = self.momentum if self.momentum > 0 else 0.0
            self._sgd(weight, grad, state, lr, wd, momentum, self.rescale_grad, clip)
            self._reset_cum_gradient(index)
        else:
            self._sgd(weight, grad, None, 0.0, wd, 0.0, 1.0, -1.0)

    @staticmethod
    def _sgd(weight, grad, state, lr, wd, momentum, rescale, clip):
        """One single-tensor sgd_update / sgd_mom_update (or their mp_ variants)."""
        moms, masters = state, None
        if isinstance(state, (list, tuple)):
            moms, masters = state[0], [state[1]._data]
        sgd_kernel([weight._data], [grad._data], None if moms is None else [moms._data],
                   masters, [(lr, wd)], momentum, rescale, clip,
                   dispatch.compute_dtype(weight.dtype), multi_form=False)

    def _extra_resume_state(self):
        return {'cumgrads': [[k, v['cum_grad'], v['num_cums']]
                             for k, v in self.cumgrads.items()]}

    def _load_extra_resume_state(self, extra):
        self.cumgrads = {k: {'cum_grad': g, 'num_cums': n}
                         for k, g, n in extra.get('cumgrads', [])}
