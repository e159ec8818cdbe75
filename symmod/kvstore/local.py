"""The single-machine KVStore (``'local'`` and ``'device'``), MXNet's ``KVStoreLocal``.

Semantics, as in MXNet 1.9.1:

- ``init`` copies the value into the store; a key can be initialised once.
- ``push`` sums the values given for a key (one per device). Without an optimizer
  the sum replaces the stored value; with one (``set_optimizer``) the store calls
  ``updater(key, sum, stored)``, which updates the stored weight in place.
- ``pull`` copies the stored value into every output array.
- ``pushpull`` is push then pull; ``broadcast`` is init then pull.
- all keys of one store are ints or all are strs.
"""
import numpy as np

from .._suggest import did_you_mean
from ..base import MXNetError
from ..context import cpu
from ..ndarray import NDArray
from ..ndarray import device as _device
from .. import optimizer as opt
from .base import KVStoreBase, key_value_pairs, group_pairs
from .compression import GradientCompression, parse_params
from .sparse import sum_row_sparse, store_pushed, pull_rows, row_sparse_targets, warn_sparse_pull

__all__ = ['KVStore']

# Types this store provides: MXNet creates its local store for these (names holding
# 'device' aggregate on the devices; the rest on the CPU).
LOCAL_TYPES = ('local', 'device', 'local_update_cpu', 'local_allreduce_cpu',
               'local_allreduce_device')


def _check_type(name):
    if name in LOCAL_TYPES:
        return
    if name in ('nccl', 'horovod', 'byteps'):
        raise MXNetError("KVStore type '%s' needs %s on GPUs, which symmod does not "
                         "provide; use 'local' or 'device'"
                         % (name, {'nccl': 'NCCL', 'horovod': 'Horovod',
                                   'byteps': 'BytePS'}[name]))
    from .dist_sync import SYNC_TYPES
    from .dist_async import ASYNC_TYPES
    known = LOCAL_TYPES + SYNC_TYPES + ASYNC_TYPES
    raise MXNetError("Unknown KVStore type '%s'.%s Expected one of %s, or a registered "
                     "store (%s)" % (name, did_you_mean(name, known + tuple(
                         KVStoreBase.kv_registry)), ', '.join("'%s'" % t for t in known),
                                     ', '.join(sorted(KVStoreBase.kv_registry))))


class KVStore(KVStoreBase):
    """A key-value store on one machine. Create it with :func:`mx.kv.create`.

    Parameters
    ----------
    kv_type : str
        One of ``'local'``, ``'device'``, ``'local_update_cpu'``,
        ``'local_allreduce_cpu'``, ``'local_allreduce_device'``.

    Examples
    --------
    >>> kv = mx.kv.create('local')
    >>> kv.init('w', mx.nd.zeros((2, 3)))
    >>> kv.push('w', [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))])   # two devices: summed
    >>> out = mx.nd.zeros((2, 3))
    >>> kv.pull('w', out=out)
    >>> out.asnumpy()[0, 0]
    2.0
    """

    def __init__(self, kv_type='local'):
        kv_type = kv_type.lower()
        _check_type(kv_type)
        self._setup(kv_type)

    def _setup(self, kv_type):
        self._type = kv_type
        self._device_comm = 'device' in kv_type
        self._store = {}
        self._order = {}            # key -> position used to sort keys as MXNet does
        self._key_type = None       # 'int' or 'str' once the first key is seen
        self._updater = None
        self._compression = None

    # ---- keys ------------------------------------------------------------------------
    def _set_key_type(self, use_str_keys):
        kind = 'str' if use_str_keys else 'int'
        if self._key_type is None:
            self._key_type = kind
        elif self._key_type != kind:
            raise MXNetError('Check failed: key_type_ == key_type: Mixed key types are not '
                             'allowed (this store uses %s keys, found a %s key)'
                             % (self._key_type, kind))

    def _sort_key(self, key):
        return self._order.get(key, key if isinstance(key, int) else 0)

    def _stored(self, key):
        value = self._store.get(key)
        if value is None:
            if isinstance(key, str):
                raise MXNetError("key %s doesn't exist. Did you init?" % key)
            raise MXNetError('key %d has not been inited' % key)
        return value

    def _parse(self, key, value, what):
        pairs, use_str = key_value_pairs(key, value, what)
        if pairs:
            self._set_key_type(use_str)
        return pairs

    # ---- init / push / pull ---------------------------------------------------------
    def init(self, key, value):
        """Initialize one or more keys with values.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray or list of NDArray
            One value per key.

        Examples
        --------
        >>> kv = mx.kv.create('local')
        >>> kv.init('3', mx.nd.ones((2, 3)) * 2)
        >>> kv.init(['5', '7'], [mx.nd.ones((2, 3))] * 2)
        """
        for k, v in self._parse(key, value, 'value'):
            if k in self._store:
                raise MXNetError('duplicate init of key %s. Please double check if you '
                                 'called kv.init or kv.broadcast with this key multiple '
                                 'times' % (k,))
            self._order[k] = len(self._order) if isinstance(k, str) else k
            self._store[k] = self._new_stored(v)

    def _new_stored(self, value):
        """A private copy of ``value``: on its GPU for 'device' stores, else on cpu(0)."""
        ctx = value.context if (self._device_comm and _device.is_gpu(value.context)) \
            else cpu(0)
        return value.copyto(ctx)

    def push(self, key, value, priority=0):
        """Push values into the store: summed per key, then stored or given to the updater.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray, list of NDArray, or list of list of NDArray
            The values; several values for one key (one per device) are summed.
        priority : int, optional
            Scheduling hint; accepted for compatibility (symmod runs synchronously).

        Examples
        --------
        >>> kv.push('3', [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))])
        >>> kv.pull('3', out=a)     # a is now all 2
        """
        pairs = self._parse(key, value, 'value')
        for k, values in group_pairs(pairs, self._sort_key):
            stored = self._stored(k)
            if any(v.stype != 'default' for v in values):
                self._push_sparse(k, values, stored)
                continue
            merged = self._reduce(k, values, stored)
            if self._updater is not None:
                self._updater(k, NDArray(_device.to_context(merged, stored.context),
                                         stored.context), stored)
            else:
                _device.copy_into(stored._data, merged)

    def _push_sparse(self, key, values, stored):
        """Push of row_sparse values: summed as row_sparse (the union of their rows),
        then given to the updater (lazy updates) or stored."""
        store_pushed(self._updater, key, sum_row_sparse(key, values, stored.shape), stored)

    def _reduce(self, key, values, stored):
        """Sum the pushed values of one key on the host (with compression when set)."""
        for v in values:
            if v.shape != stored.shape:
                raise MXNetError('push of key %r: value has shape %s, the stored value has '
                                 'shape %s' % (key, v.shape, stored.shape))
        hosts = [v._host() for v in values]
        if self._compression is not None:
            return self._compression.reduce(key, hosts)
        total = np.array(hosts[0], copy=True)
        for h in hosts[1:]:
            total += h
        return total

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the stored values into ``out``.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        out : NDArray, list of NDArray, or list of list of NDArray
            Destinations; every array of a key's list receives the value.
        priority : int, optional
            Scheduling hint; accepted for compatibility.
        ignore_sparse : bool, default True
            Leave sparse destinations alone (as MXNet does: use ``row_sparse_pull``);
            False copies the stored value into them.
        """
        assert out is not None
        pairs = self._parse(key, out, 'out')
        for k, outs in group_pairs(pairs, self._sort_key):
            stored = self._stored(k)
            for dst in outs:
                if dst.shape != stored.shape:
                    raise MXNetError('pull of key %r: output has shape %s, the stored value '
                                     'has shape %s' % (k, dst.shape, stored.shape))
                if dst.stype != 'default' or stored.stype != 'default':
                    if ignore_sparse and dst.stype != 'default':
                        warn_sparse_pull(self, k)
                        continue
                    stored.copyto(dst)
                    continue
                _device.copy_into(dst._data, stored._data)

    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value``, then pull the result into ``out`` (or back into ``value``).

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray, list of NDArray, or list of list of NDArray
            The values to push (summed per key).
        out : NDArray, list of NDArray, or list of list of NDArray, optional
            Destinations; when None the pushed arrays receive the result.
        priority : int, optional
            Scheduling hint; accepted for compatibility.

        Examples
        --------
        >>> grads = [mx.nd.ones((2, 3)), mx.nd.ones((2, 3))]
        >>> kv.pushpull('3', grads)         # both arrays now hold the sum
        """
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """Initialize ``key`` with ``value`` and copy it into every array of ``out``.

        Parameters
        ----------
        key : str or int, or list of them
            The key (it must not be initialized yet).
        value : NDArray or list of NDArray
            The value per key.
        out : NDArray, list of NDArray, or list of list of NDArray
            Destinations.
        priority : int, optional
            Scheduling hint; accepted for compatibility.

        Examples
        --------
        >>> a = [mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))]
        >>> kv.broadcast('w', mx.nd.ones((2, 3)), out=a)
        """
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull only the given rows of row_sparse values into row_sparse ``out`` arrays.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys; their stored values must be row_sparse.
        out : RowSparseNDArray, or (nested) list of them
            Destinations; each receives the stored rows at its ``row_ids``.
        priority : int, optional
            Scheduling hint; accepted for compatibility.
        row_ids : NDArray or list of NDArray
            Row indices per destination (need not be unique or sorted); a single one
            serves every destination.

        Examples
        --------
        >>> kv.init('emb', mx.nd.ones((4, 2)).tostype('row_sparse'))
        >>> out = mx.nd.sparse.zeros('row_sparse', (4, 2))
        >>> kv.row_sparse_pull('emb', out=out, row_ids=mx.nd.array([3, 1]))
        >>> out.indices.asnumpy()
        array([1, 3])
        """
        triples, copies = row_sparse_targets(self, key, out, row_ids)
        for k, dst, rows in triples:
            pull_rows(k, self._stored(k), dst, rows)
        for src, dst in copies:
            src.copyto(dst)

    # ---- optimizer -------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """Run ``optimizer`` in the store: every push then updates the stored weight.

        Parameters
        ----------
        optimizer : Optimizer
            The optimizer; the store wraps it in ``mx.optimizer.get_updater``.

        Examples
        --------
        >>> kv = mx.kv.create()
        >>> kv.init(3, mx.nd.zeros((2, 2)))
        >>> kv.set_optimizer(mx.optimizer.SGD())
        >>> kv.push(3, mx.nd.ones((2, 2)))
        >>> w = mx.nd.empty((2, 2)); kv.pull(3, out=w)
        >>> w.asnumpy()[0, 0]       # -learning_rate * grad
        -0.01
        """
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """Use ``updater(key, pushed_sum, stored)`` on every push (local store only)."""
        self._updater = updater

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Save the updater's states (momentum etc.) to ``fname`` (atomic write).

        Parameters
        ----------
        fname : str
            Output file.
        dump_optimizer : bool, default False
            Also save the optimizer's settings.
        """
        from ..formats.atomic import atomic_write
        assert self._updater is not None, 'Cannot save states for distributed training'
        atomic_write(fname, self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        """Load states written by :meth:`save_optimizer_states` (or by MXNet).

        Parameters
        ----------
        fname : str
            Input file.
        """
        from ..optimizer.updater import load_states_file
        assert self._updater is not None, 'Cannot load states for distributed training'
        load_states_file(self._updater, fname)

    def set_gradient_compression(self, compression_params):
        """Quantize pushed gradients to 2 bits per value (``'device'`` stores only).

        Parameters
        ----------
        compression_params : dict
            ``{'type': '2bit', 'threshold': 0.5}``; ``threshold`` defaults to 0.5.

        Raises
        ------
        MXNetError
            For a 'local' store, a missing or unknown type, or a threshold <= 0.

        Examples
        --------
        >>> kv = mx.kv.create('device')
        >>> kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        """
        if not self._device_comm:
            raise MXNetError('Gradient compression is not supported for this type of '
                             'kvstore')
        _, threshold = parse_params(compression_params)
        self._compression = GradientCompression(threshold)

    def is_capable(self, capability):
        """Whether the store supports ``capability``; the local store runs optimizers.

        Raises
        ------
        ValueError
            For an unknown capability.
        """
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError('Unknown capability: {}'.format(capability))

    # ---- identity --------------------------------------------------------------------
    @property
    def type(self):
        """The type string given to ``create`` (lower case)."""
        return self._type

    @property
    def rank(self):
        """0: a local store has one worker."""
        return 0

    @property
    def num_workers(self):
        """1: a local store has one worker."""
        return 1

    def _barrier(self):
        """Synchronise all workers: with a single worker there is nothing to wait for."""

    def __repr__(self):
        return '<KVStore %s, %d keys>' % (self._type, len(self._store))
