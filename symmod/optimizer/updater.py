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

    def get_states(self, dump_optimizer=False, mxnet_format=False):
        """Serialize the states (and the counters exact resume needs) to bytes.

        Parameters
        ----------
        dump_optimizer : bool, default False
            Also save the optimizer's settings (learning rate, weight decay, ...), so
            :meth:`set_states` can rebuild it.
        mxnet_format : bool, default False
            With ``dump_optimizer``: write MXNet's pickle of ``(states, optimizer)``
            (what gluon's ``Trainer.save_states`` writes and MXNet reads) when MXNet has
            the optimizer's and scheduler's classes; symmod's format otherwise.

        Returns
        -------
        bytes
            symmod's states format (see ``symmod.formats.states``), or MXNet's pickle.
        """
        from ..formats import states as states_format
        from . import mxnet_objects, resume
        if dump_optimizer and mxnet_format:
            pickled = mxnet_objects.pickled_optimizer(self.optimizer)
            if pickled is not None:
                return states_format.dumps_mxnet((dict(self.states), pickled))
        payload = {'format': _FORMAT, 'version': 1,
                   'states': dict(self.states),
                   'optimizer_state': self.optimizer._resume_state()}
        if dump_optimizer:
            payload['optimizer'] = {'name': type(self.optimizer).__name__.lower(),
                                    'attrs': resume.declared_attrs(self.optimizer)}
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
        from . import mxnet_objects
        loaded = states_format.loads(states, where=where,
                                     objects=mxnet_objects.ALLOWED_CLASSES)
        if isinstance(loaded, dict) and loaded.get('format') == _FORMAT:
            loaded = self._restore_symmod(loaded, where)
        elif isinstance(loaded, tuple) and len(loaded) == 2:
            loaded = self._restore_mxnet(loaded, where)
        if not isinstance(loaded, dict):
            raise MXNetError('%s: expected a dict of optimizer states by parameter index, '
                             'found %s' % (where, type(loaded).__name__))
        _check_leaves(loaded, where)
        self.states = dict(loaded)
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def _restore_mxnet(self, pair, where):
        """MXNet's ``(states, optimizer)``: the file's optimizer replaces this one, as in
        MXNet; returns the per-index states."""
        from . import mxnet_objects
        from ..formats.pickle_reader import PickledObject
        states, optimizer = pair
        if not isinstance(states, dict) or not isinstance(optimizer, PickledObject):
            raise MXNetError('%s: expected (states, optimizer) as MXNet pickles them, found '
                             '(%s, %s)' % (where, type(states).__name__,
                                           type(optimizer).__name__))
        self.optimizer = mxnet_objects.optimizer_from_pickle(optimizer, where,
                                                             _unpickled_ndarray)
        self.aggregate_updates = self.optimizer.aggregate_num > 0
        return states

    def _restore_symmod(self, payload, where):
        """Apply symmod's payload to the optimizer; returns the per-index states."""
        for key, kind in (('states', dict), ('optimizer_state', dict)):
            if not isinstance(payload.get(key), kind):
                raise MXNetError('%s: the states file has no %r %s'
                                 % (where, key, kind.__name__))
        file_wins = 'optimizer' in payload
        if file_wins:
            self.optimizer = _rebuild_optimizer(payload['optimizer'], self.optimizer, where)
        self.optimizer._load_resume_state(payload['optimizer_state'], where, file_wins)
        return payload['states']


def _unpickled_ndarray(obj):
    from ..context import cpu
    from ..formats import mxnet_pickle
    return NDArray(mxnet_pickle.ndarray_data(obj), cpu())


def _check_leaves(states, where):
    """Per-index states hold arrays, None and numbers in tuples or lists; no objects."""
    from ..formats.pickle_reader import PickledObject, map_leaves

    def refuse(obj):
        raise MXNetError('%s: the optimizer states hold a pickled %s.%s where arrays are '
                         'expected' % (where, obj.module, obj.name))
    map_leaves(states, PickledObject, refuse)


def load_states_file(updater, fname):
    """Read ``fname`` into ``updater`` (what Module, KVStore and Trainer do); errors name it."""
    with open(fname, 'rb') as fin:
        data = fin.read()
    updater._set_states(data, str(fname))


def _rebuild_optimizer(saved, current, where):
    """The optimizer a dump_optimizer file names (the current one when the class matches),
    with the file's declared settings."""
    from . import resume
    if not isinstance(saved, dict) or not isinstance(saved.get('name'), str) \
            or not isinstance(saved.get('attrs'), dict):
        raise MXNetError('%s: the saved optimizer must be {"name": str, "attrs": {...}}'
                         % where)
    if type(current).__name__.lower() == saved['name']:
        optimizer = current
    elif saved['name'] in Optimizer.opt_registry:
        optimizer = Optimizer.create_optimizer(saved['name'])
    else:
        raise MXNetError('%s: the file names the optimizer %r, which symmod does not have'
                         % (where, saved['name']))
    # older symmod files also listed these; they are not settings a file may set
    attrs = {k: v for k, v in saved['attrs'].items() if k not in resume.NOT_SETTINGS}
    resume.set_declared(optimizer, attrs, where, type(optimizer).__name__)
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
