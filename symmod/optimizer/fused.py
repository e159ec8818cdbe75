"""FusedOptimizer: the driver shared by every built-in optimizer.

A fused optimizer splits an update into two steps. First, in Python and in MXNet's
order, it advances the update counts and computes each parameter's hyper-parameters
(``_hyper_params``: one row per parameter, e.g. learning rate and weight decay).
Then it hands all parameters of one dtype and device to a single compiled kernel
(``_launch``). A single-parameter ``update`` is the same path with a list of one.

float16 weights with ``multi_precision`` update their float32 master copy (state
``(master, inner_state)``, MXNet's generic layout) and are then rounded back; SGD and
NAG override this with their dedicated mixed-precision kernels.
"""
from collections import OrderedDict

import numpy

from ..base import MXNetError
from ..ndarray import device as _device
from .kernels import dispatch
from .optimizer import Optimizer
from .sparse import has_sparse, sparse_update

__all__ = ['FusedOptimizer']


# (optimizer class, its update / create_state methods) -> whether they are all symmod's
_FUSABLE = {}


def _raw(nd):
    return nd._data


class FusedOptimizer(Optimizer):
    """Base class of optimizers whose arithmetic is one fused kernel per update call."""

    # MXNet's SGD, NAG, LARS and LAMB define update_multi_precision without going
    # through update(); the others inherit the base one, which calls update().
    _mp_calls_update = True

    def update(self, index, weight, grad, state):
        self._fused_update([index], [weight], [grad], [state], allow_mp=False)

    def update_multi_precision(self, index, weight, grad, state):
        if self._mp_calls_update and not self._owned('update'):
            Optimizer.update_multi_precision(self, index, weight, grad, state)
        elif isinstance(index, (list, tuple)):
            self._fused_update(list(index), list(weight), list(grad), list(state))
        else:
            self._fused_update([index], [weight], [grad], [state])

    def _owned(self, name):
        """True when method ``name`` is symmod's own (not replaced by a user subclass)."""
        owner = next(k for k in type(self).__mro__ if name in k.__dict__)
        return owner.__module__.startswith('symmod.optimizer')

    def _can_fuse(self):
        """False when a user subclass replaced an update method: then MXNet's Updater
        loop runs, calling the replaced methods where MXNet would."""
        cls = type(self)
        key = (cls, cls.update, cls.update_multi_precision, cls.create_state,
               cls.create_state_multi_precision)
        known = _FUSABLE.get(key)
        if known is None:
            known = _FUSABLE[key] = all(
                self._owned(name) for name in ('update', 'update_multi_precision',
                                               'create_state', 'create_state_multi_precision'))
        return known

    # ---- the two steps ----------------------------------------------------------------------
    def _hyper_params(self, indices, weights):
        """Count the updates of ``indices`` and return one row of hyper-parameters each.

        The default is MXNet's per-index order: count, then learning rate, then weight
        decay of each index in turn.
        """
        lrs, wds, _ = self._counted_rates(indices)
        return list(zip(lrs, wds))

    def _launch(self, weights, grads, states, hp, dtype, cache):
        """Run the kernel on raw arrays of one dtype and device (defined per optimizer)."""
        raise MXNetError('%s defines no fused kernel launch' % type(self).__name__)

    # ---- grouping, mixed precision ----------------------------------------------------------
    def _uses_master_copy(self, weight, state):
        return (self.multi_precision and weight.dtype == numpy.float16
                and isinstance(state, (tuple, list)))

    def _fused_update(self, indices, weights, grads, states, allow_mp=True, cache=False):
        """Update all ``weights``: hyper-parameters first, then a kernel per dtype/device."""
        rows = self._hyper_params(indices, weights)
        if has_sparse(weights, grads):
            # MXNet updates one weight at a time when a chunk holds sparse arrays
            sparse_update(self, weights, grads, states, rows)
            return
        check_mp = allow_mp and self.multi_precision
        if not check_mp and len({(w._data.dtype, w._ctx.device_typeid) for w in weights}) < 2:
            groups = {(weights[0]._data.dtype if weights else None, False, 0): None}
        else:
            groups = OrderedDict()
            for pos, (w, s) in enumerate(zip(weights, states)):
                key = (w._data.dtype, check_mp and self._uses_master_copy(w, s),
                       w._ctx.device_typeid)
                groups.setdefault(key, []).append(pos)
        for (dtype, mp, _), positions in groups.items():
            if positions is None or len(groups) == 1:
                ws, gs, ss, hp = weights, grads, states, rows
            else:
                ws = [weights[p] for p in positions]
                gs = [grads[p] for p in positions]
                ss = [states[p] for p in positions]
                hp = [rows[p] for p in positions]
            if not ws:
                continue
            if mp:
                self._launch_multi_precision(ws, gs, ss, hp, cache)
            else:
                self._launch([w._data for w in ws], [g._data for g in gs], ss, hp,
                             dispatch.compute_dtype(dtype), cache)

    def _dense_single_update(self, weight, grad, state, hp):
        """One weight's dense update (MXNet's per-weight operator, outside aggregation)."""
        if self.multi_precision and self._uses_master_copy(weight, state):
            self._launch_multi_precision([weight], [grad], [state], [hp], False)
        else:
            self._launch([weight._data], [grad._data], [state], [hp],
                         dispatch.compute_dtype(weight._data.dtype), False)

    def _sparse_scalars(self, dtype, *values):
        """Hyper-parameters as MXNet's sparse kernels see them: parsed as C floats, then
        cast to the weight's type."""
        return tuple(dtype.type(numpy.float32(v)) for v in values)

    def _launch_multi_precision(self, weights, grads, states, hp, cache):
        """Generic master-copy update: float32 gradient copies, then round the weights."""
        masters = [s[0] for s in states]
        inner = [s[1] for s in states]
        grads32 = [_raw(g.astype(numpy.float32)) for g in grads]
        self._launch([_raw(m) for m in masters], grads32, inner, hp, numpy.float32, False)
        for weight, master in zip(weights, masters):
            _device.copy_into(weight._data, master._data)


def one_minus_pow(beta, t):
    """``1 - beta**t`` in float32, the way MXNet's kernels compute their bias corrections."""
    f32 = numpy.float32
    return f32(1) - f32(beta) ** f32(t)


def state_arrays(states, position=None):
    """Raw arrays of one state component across tensors (``position`` into tuples)."""
    if position is None:
        return [_raw(s) for s in states]
    return [_raw(s[position]) for s in states]
