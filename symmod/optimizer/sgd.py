"""SGD (with momentum, weight decay, mixed precision), ccSGD and NAG.

SGD follows MXNet's aggregated path (``multi_sgd_update`` / ``multi_sgd_mom_update``,
which its Updater uses for dense arrays): parameters are grouped by dtype and their
counts and learning rates advance in chunks of ``MXNET_OPTIMIZER_AGGREGATION_SIZE``
(default 4). NAG updates per index with ``nag_mom_update``.

:class:`MomentumSGDBase` holds what SGD, NAG and LARS share: the momentum state, the
float32 master copy of float16 weights, and the choice among MXNet's sgd / sgd_mom /
nag_mom kernels and their ``mp_`` variants (:func:`sgd_kernel`).
"""
import warnings
from collections import OrderedDict

import numpy

from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch, sparse_rows
from .sparse import (rows_view, row_sparse_parts, position_of, dense_fallback,
                     lazy_rows_fallback, log_lazy_update)
from .optimizer import aggregation_size, register

__all__ = ['SGD', 'ccSGD', 'NAG']


def sgd_kernel(weights, grads, moms, masters, hp, momentum, rescale, clip, dtype,
               cache=False, nesterov=False, multi_form=True):
    """One call of MXNet's SGD update kernels on raw arrays.

    ``sgd_update`` without momentum arrays (``moms`` None), ``sgd_mom_update`` or
    ``nag_mom_update`` (``nesterov``) with them; the ``mp_`` variant, in float32, when
    float32 ``masters`` are given. ``multi_form`` picks multi_sgd_update's arithmetic
    for the plain step. ``hp`` rows are ``(lr, wd)``.
    """
    ops = [weights, grads]
    if moms is None:
        rule, scalars = 'sgd', (rescale, clip, multi_form)
    else:
        rule, scalars = 'sgd_mom', (momentum, rescale, clip, nesterov)
        ops.append(moms)
    if masters is not None:
        rule, dtype = 'mp_' + rule, numpy.float32
        ops.append(masters)
    elif moms is not None:
        scalars += (True,)      # in_place: the weight is its own output (NAG reads it)
    dispatch.run(rule, ops, hp, scalars, dtype, cache)


def warn_fp16(name):
    """MXNet's warning for float16 weights updated without multi_precision."""
    warnings.warn("Accumulating with float16 in optimizer can lead to "
                  "poor accuracy or slow convergence. "
                  "Consider using multi_precision=True option of the "
                  "%s optimizer" % name)


class MomentumSGDBase(FusedOptimizer):
    """Base of SGD, NAG and LARS: a momentum state and kernel-side mixed precision.

    The state of a weight is its momentum (None when ``momentum`` is 0); with
    ``multi_precision`` a float16 weight's state is ``(momentum, float32 master)``,
    which the ``mp_`` kernels update and round back in one pass.
    """

    _mp_calls_update = False
    _fp16_warning_name = 'SGD'

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == numpy.float16:
            master = weight.astype(numpy.float32)
            return (self.create_state(index, master), master)
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warn_fp16(self._fp16_warning_name)
        return self.create_state(index, weight)

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _uses_master_copy(self, weight, state):
        return self.multi_precision and weight.dtype == numpy.float16

    def _launch_multi_precision(self, weights, grads, states, hp, cache):
        self._launch([w._data for w in weights], [g._data for g in grads], states, hp,
                     numpy.float32, cache, masters=state_arrays(states, 1))

    @staticmethod
    def _moms(states, masters):
        """The raw momentum arrays: the states, or their first items beside master copies."""
        return state_arrays(states) if masters is None else state_arrays(states, 0)


@register
class SGD(MomentumSGDBase):
    """Stochastic gradient descent with momentum and weight decay.

    The update (MXNet's ``sgd_mom_update``)::

        state = momentum * state - lr * wd * weight - lr * clip(rescale_grad * grad)
        weight = weight + state

    Parameters
    ----------
    momentum : float, optional, default 0.0
        The momentum value; 0 keeps no state.
    lazy_update : bool, optional, default True
        With a row_sparse gradient, update only the rows it holds (weight decay included);
        False applies the standard update to every row.
    multi_precision : bool, optional
        Update a float32 master copy of float16 weights.

    Examples
    --------
    >>> opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=1e-4)
    >>> upd = mx.optimizer.get_updater(opt)
    >>> w, g = mx.nd.ones((2,)), mx.nd.ones((2,))
    >>> upd(0, g, w)
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = aggregation_size(4)

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

    def _launch(self, weights, grads, states, hp, dtype, cache, masters=None):
        moms = self._moms(states, masters) if self.momentum > 0 else None
        sgd_kernel(weights, grads, moms, masters, hp, self.momentum, self.rescale_grad,
                   self._clip_arg(), dtype, cache)

    def _dense_single_update(self, weight, grad, state, hp):
        # beside sparse arrays MXNet runs sgd_update / sgd_mom_update, not the multi_ form
        if self.multi_precision and self._uses_master_copy(weight, state):
            self._launch_multi_precision([weight], [grad], [state], [hp], False)
            return
        moms = [state._data] if self.momentum > 0 and state is not None else None
        sgd_kernel([weight._data], [grad._data], moms, None, [hp], self.momentum,
                   self.rescale_grad, self._clip_arg(), dispatch.compute_dtype(weight.dtype),
                   multi_form=False)

    def _row_sparse_step(self, weight, grad, state, hp):
        """sgd_update / sgd_mom_update with a row_sparse gradient (lazy or standard)."""
        if self.multi_precision and self._uses_master_copy(weight, state):
            # MXNet's mp_sgd(_mom)_update has no sparse kernel: the storage fallback
            return dense_fallback(self, weight, grad, state, hp)
        if self.lazy_update and (state is not None or hp[1] != 0):
            log_lazy_update()       # MXNet: sgd_mom_update always, sgd_update when wd != 0
        if weight.dtype not in (numpy.float32, numpy.float64):
            if self.lazy_update:
                return lazy_rows_fallback(self, weight, grad, state, hp)
            return dense_fallback(self, weight, grad, state, hp)
        w = rows_view(weight)
        rows, g = row_sparse_parts(grad, w.dtype)
        lr, wd, rescale, clip, momentum = self._sparse_scalars(
            w.dtype, hp[0], hp[1], self.rescale_grad, self._clip_arg(), self.momentum)
        if state is not None:
            mom = rows_view(state, 'state')
            if self.lazy_update:
                sparse_rows.sgd_mom_rows(w, mom, rows, g, momentum, lr, wd, rescale, clip)
            else:
                sparse_rows.sgd_mom_all(w, mom, position_of(rows, w.shape[0]), g, momentum,
                                        lr, wd, rescale, clip)
            return None
        if not self.lazy_update:
            decay = numpy.float32(1) - numpy.float32(hp[0]) * numpy.float32(hp[1])
            sparse_rows.scale_all(w, w.dtype.type(decay))
            wd = w.dtype.type(0)
        sparse_rows.sgd_rows(w, rows, g, lr, wd, rescale, clip)
        return None

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            stype = weight.stype if self.lazy_update else 'default'
            return zeros(weight.shape, weight.context, dtype=weight.dtype, stype=stype)
        return None


@register
class ccSGD(SGD):  # pylint: disable=invalid-name
    """Deprecated alias of :class:`SGD`, kept for MXNet compatibility."""


@register
class NAG(MomentumSGDBase):
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

    _fp16_warning_name = 'NAG'
    # MXNet's NAG also asks for a (momentum, master) tuple before using the master copy
    _uses_master_copy = FusedOptimizer._uses_master_copy

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def _launch(self, weights, grads, states, hp, dtype, cache, masters=None):
        first = states[0] if masters is None else states[0][0]
        moms = self._moms(states, masters) if first is not None else None
        sgd_kernel(weights, grads, moms, masters, hp,
                   self.momentum if self.momentum > 0 else 0.0, self.rescale_grad,
                   self._clip_arg(), dtype, cache, nesterov=True, multi_form=False)
