"""Updater: applies an optimizer to indexed parameters and owns their states.

``Updater(optimizer)(index, grad, weight)`` is what KVStore and Module call. Given
lists of indices, gradients and weights (what ``Module.update`` passes), a built-in
optimizer updates all of them with one compiled kernel per dtype.

States are saved by :meth:`Updater.get_states` in symmod's own format (no pickle),
which also records the update counts, ``num_update`` and the lr scheduler's position,
so that a resumed run continues exactly; :meth:`Updater.set_states` also reads the
pickled ``.states`` files MXNet writes (through a restricted unpickler).
"""
from ..base import MXNetError
from ..ndarray import NDArray
from .optimizer import Optimizer

__all__ = ['Updater', 'get_updater', 'load_states_file']

_FORMAT = 'symmod-updater-states'


class Updater:
    """Updates parameters with an optimizer, creating each parameter's state on first use.

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer to apply.

    Examples
    --------
    >>> updater = mx.optimizer.get_updater(mx.optimizer.create('adam'))
    >>> w, g = mx.nd.ones((3,)), mx.nd.ones((3,))
    >>> updater(0, g, w)                    # one parameter
    >>> updater([0, 1], [g, g], [w, w * 2])  # several at once
    """

    def __init__(self, optimizer):
        if not isinstance(optimizer, Optimizer):
            raise TypeError('Updater needs an Optimizer, found %s' % type(optimizer).__name__)
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        """Update ``weight`` (one NDArray or a list) from ``grad`` for ``index``.

        Note the argument order (index, grad, weight), as in MXNet.
        """
        if not isinstance(index, (list, tuple)):
            indices, grads, weights = [index], [grad], [weight]
        else:
            indices, grads, weights = list(index), list(grad), list(weight)
        if not (len(indices) == len(grads) == len(weights)):
            raise MXNetError('Updater: got %d indices, %d gradients and %d weights'
                             % (len(indices), len(grads), len(weights)))
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        try:    # every step after the first: all states exist and sit on their devices
            states = [self.states[idx] for idx in indices]
            ready = all(map(self.states_synced.__getitem__, indices))
        except (KeyError, TypeError):
            ready = False
        if not ready:
            states = self._prepare_states(indices, weights)
        if self.optimizer._can_fuse():
            self.optimizer._fused_update(indices, weights, grads, states, cache=True)
        elif self.aggregate_updates:
            self._aggregated(indices, weights, grads)
        else:
            for idx, w, g, s in zip(indices, weights, grads, states):
                self.optimizer.update_multi_precision(idx, w, g, s)

    def _prepare_states(self, indices, weights):
        """Create missing states and move loaded ones to their weight's device."""
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode('utf-8')
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        return [self.states[idx] for idx in indices]

    def _aggregated(self, indices, weights, grads):
        """MXNet's path for user optimizers that take lists: by dtype, in chunks."""
        type_map = {}
        for i, w, g in zip(indices, weights, grads):
            type_map.setdefault(w.dtype, []).append((i, w, g))
        step = self.optimizer.aggregate_num
        for entries in type_map.values():
            idx, ws, gs = (list(t) for t in zip(*entries))
            for start in range(0, len(idx), step):
                chunk = idx[start:start + step]
                self.optimizer.update_multi_precision(
                    chunk, ws[start:start + step], gs[start:start + step],
                    [self.states[i] for i in chunk])

    def sync_state_context(self, state, context):
        """Return ``state`` (an NDArray, or nested tuples/lists of them) on ``context``."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def get_states(self, dump_optimizer=False):
        """Serialize the states (and the counters exact resume needs) to bytes.

        Parameters
        ----------
        dump_optimizer : bool, default False
            Also save the optimizer's settings (learning rate, weight decay, ...), so
            :meth:`set_states` can rebuild it.

        Returns
        -------
        bytes
            symmod's states format (see ``symmod.formats.states``).
        """
        from ..formats import states as states_format
        payload = {'format': _FORMAT, 'version': 1,
                   'states': dict(self.states),
                   'optimizer_state': self.optimizer._resume_state()}
        if dump_optimizer:
            payload['optimizer'] = {'name': type(self.optimizer).__name__.lower(),
                                    'attrs': _plain_attrs(self.optimizer)}
        return states_format.dumps(payload)

    def set_states(self, states):
        """Load states written by :meth:`get_states`, or MXNet's pickled states.

        Parameters
        ----------
        states : bytes
            The contents of a ``.states`` file. For MXNet's files the update counts are
            unknown, so the optimizer continues from its current counts, as MXNet does.
        """
        self._set_states(states, 'optimizer states')

    def _set_states(self, states, where):
        """:meth:`set_states`, with errors naming ``where`` (a file name)."""
        from ..formats import states as states_format
        loaded = states_format.loads(states, where=where)
        if isinstance(loaded, dict) and loaded.get('format') == _FORMAT:
            if 'optimizer' in loaded:
                self.optimizer = _rebuild_optimizer(loaded['optimizer'], self.optimizer)
            self.optimizer._load_resume_state(loaded['optimizer_state'])
            loaded = loaded['states']
        elif isinstance(loaded, tuple) and len(loaded) == 2 and isinstance(loaded[0], dict):
            loaded = loaded[0]     # MXNet's (states, optimizer) with dump_optimizer
        if not isinstance(loaded, dict):
            raise MXNetError('%s: expected a dict of optimizer states by parameter index, '
                             'found %s' % (where, type(loaded).__name__))
        self.states = dict(loaded)
        self.states_synced = dict.fromkeys(self.states.keys(), False)


def load_states_file(updater, fname):
    """Read ``fname`` into ``updater`` (what Module, KVStore and Trainer do); errors name it."""
    with open(fname, 'rb') as fin:
        data = fin.read()
    updater._set_states(data, str(fname))


def _plain_attrs(optimizer):
    """The optimizer's settings that are plain values (what can be stored without pickle)."""
    keep = {}
    for key, value in vars(optimizer).items():
        if key in ('param_dict', 'sym_info', 'lr_scheduler') or key.startswith('_'):
            continue
        if isinstance(value, (int, float, str, bool, type(None))):
            keep[key] = value
        elif isinstance(value, dict) and all(isinstance(v, (int, float, str)) for v in
                                             value.values()):
            keep[key] = dict(value)
    return keep


def _rebuild_optimizer(saved, current):
    """Apply saved settings to the current optimizer (same class) or a new one."""
    if type(current).__name__.lower() == saved['name']:
        optimizer = current
    else:
        optimizer = Optimizer.create_optimizer(saved['name'])
    for key, value in saved['attrs'].items():
        setattr(optimizer, key, value)
    return optimizer


def get_updater(optimizer):
    """Return an :class:`Updater` for ``optimizer`` (what KVStore calls).

    Parameters
    ----------
    optimizer : Optimizer
        The optimizer.

    Returns
    -------
    Updater
        Callable as ``updater(index, grad, weight)``.
    """
    return Updater(optimizer)
