"""The KVStore interface, its registry, ``create`` and the key/value argument rules.

``KVStoreBase`` is what ``Trainer`` and ``Module`` talk to; ``create(name)`` returns a
registered Python store (``'teststore'``) or the native local store (``local.py``).
The helpers at the bottom turn MXNet's flexible ``key`` / ``value`` arguments (one key
or a list of keys; one array, a list of per-device arrays, or a list of such lists)
into ``(key, array)`` pairs with MXNet's checks.
"""
import abc
import warnings

from ..base import MXNetError
from ..ndarray import NDArray

__all__ = ['KVStoreBase', 'TestStore', 'create']


class KVStoreBase(abc.ABC):
    """The interface of a key-value store for data-parallel training.

    A store keeps one value per key. ``pushpull`` sums the values pushed for a key
    (one per device) and hands the sum back; ``broadcast`` copies one value to many
    arrays. Stores that can run an optimizer (``is_capable('optimizer')``) update the
    stored value with each push instead of keeping the sum.

    New stores subclass this and register with :meth:`register`; ``create`` then finds
    them by their lower-cased class name.
    """
    OPTIMIZER = 'optimizer'
    kv_registry = {}

    @abc.abstractmethod
    def broadcast(self, key, value, out, priority=0):
        """Copy ``value`` (the rank-0 value) into every array of ``out``.

        Parameters
        ----------
        key : str or int
            The key.
        value : NDArray
            The value to broadcast.
        out : NDArray or list of NDArray
            Where the value is written.
        priority : int, optional
            Scheduling hint (higher first); accepted for compatibility.
        """

    @abc.abstractmethod
    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value`` for ``key`` and pull the result into ``out`` (or ``value``).

        Parameters
        ----------
        key : str or int
            The key.
        value : NDArray or list of NDArray
            One value per device; they are summed.
        out : NDArray or list of NDArray, optional
            Where the result goes; the pushed arrays themselves when None.
        priority : int, optional
            Scheduling hint; accepted for compatibility.
        """

    @abc.abstractmethod
    def set_optimizer(self, optimizer):
        """Run ``optimizer`` inside the store on every push.

        Parameters
        ----------
        optimizer : Optimizer
            The optimizer.
        """

    @abc.abstractmethod
    def is_capable(self, capability):
        """Whether the store supports ``capability`` (``KVStoreBase.OPTIMIZER``).

        Parameters
        ----------
        capability : str
            The capability to query.

        Returns
        -------
        bool
        """

    @abc.abstractmethod
    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Save the states of the store's optimizer to ``fname``.

        Parameters
        ----------
        fname : str
            Output file.
        dump_optimizer : bool, default False
            Also save the optimizer's settings (learning rate, weight decay ...).
        """

    @abc.abstractmethod
    def load_optimizer_states(self, fname):
        """Load optimizer states saved by :meth:`save_optimizer_states`.

        Parameters
        ----------
        fname : str
            Input file.
        """

    @property
    @abc.abstractmethod
    def type(self):
        """The store's type string (``'local'``, ``'device'`` ...)."""

    @property
    @abc.abstractmethod
    def rank(self):
        """The rank of this worker, in ``[0, num_workers)``."""

    @property
    @abc.abstractmethod
    def num_workers(self):
        """The number of workers."""

    @staticmethod
    def register(klass):
        """Register a store class so that ``create`` finds it by its lower-cased name.

        Examples
        --------
        >>> @mx.kvstore.KVStoreBase.register
        ... class MyKVStore(mx.kvstore.TestStore):
        ...     pass
        >>> type(mx.kv.create('MyKVStore')).__name__
        'MyKVStore'
        """
        assert isinstance(klass, type)
        name = klass.__name__.lower()
        if name in KVStoreBase.kv_registry:
            old = KVStoreBase.kv_registry[name]
            warnings.warn('WARNING: New kvstore %s.%s is overriding existing kvstore %s.%s'
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A minimal store for tests: sums and copies, runs no optimizer.

    ``is_capable('optimizer')`` is False, so a ``Trainer`` using it updates the
    parameters itself (``update_on_kvstore=False``).
    """

    def broadcast(self, key, value, out, priority=0):
        for dst in (out if isinstance(out, list) else [out]):
            dst[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            if out is not None:
                for dst in (out if isinstance(out, list) else [out]):
                    dst[:] = value
            return
        ctx = value[0].context
        total = value[0].as_in_context(ctx).copy()
        for val in value[1:]:
            total += val.as_in_context(ctx)
        targets = value if out is None else (out if isinstance(out, list) else [out])
        for dst in targets:
            dst[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError('Unknown capability: {}'.format(capability))

    @property
    def type(self):
        return 'teststore'

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

    def set_optimizer(self, optimizer):
        raise MXNetError('TestStore cannot run an optimizer (is_capable("optimizer") is '
                         'False); update the parameters outside the store')

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise MXNetError('TestStore has no optimizer states to save')

    def load_optimizer_states(self, fname):
        raise MXNetError('TestStore has no optimizer states to load')


def create(name='local'):
    """Create a key-value store.

    Parameters
    ----------
    name : str, default 'local'
        ``'local'`` keeps values in CPU memory and updates them there; ``'device'``
        aggregates on the devices the values live on (and allows gradient
        compression). The aliases ``'local_update_cpu'``, ``'local_allreduce_cpu'`` and
        ``'local_allreduce_device'`` are accepted as MXNet does, as is any registered
        store class name (``'teststore'``). Distributed and NCCL/Horovod/BytePS stores
        need a cluster or GPUs that symmod does not drive, and are refused.

    Returns
    -------
    KVStoreBase
        The new store.

    Raises
    ------
    TypeError
        When ``name`` is not a string (None included).
    MXNetError
        For a type symmod does not provide.

    Examples
    --------
    >>> kv = mx.kv.create('local')
    >>> kv.type, kv.rank, kv.num_workers
    ('local', 0, 1)
    """
    if not isinstance(name, str):
        raise TypeError('name must be a string')
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    from .dist_sync import DistSyncKVStore, SYNC_TYPES
    from .dist_async import DistAsyncKVStore, ASYNC_TYPES
    if name in SYNC_TYPES:
        return DistSyncKVStore(name)
    if name in ASYNC_TYPES:
        return DistAsyncKVStore(name)
    from .local import KVStore
    return KVStore(name)


# ---- MXNet's rules for key / value arguments ---------------------------------------------
def key_value_pairs(keys, values, what='value'):
    """Flatten ``keys`` / ``values`` into a list of ``(key, NDArray)`` pairs.

    Returns ``(pairs, use_str_keys)``. As in MXNet, a list of keys needs a list of
    values of the same length; one key may take one array or a list of arrays (one per
    device); all keys of one call must be of the same kind (all int or all str).
    """
    if isinstance(keys, (tuple, list)):
        assert len(keys) == len(values), \
            'number of keys (%d) does not match number of %ss (%d)' \
            % (len(keys), what, len(values))
        pairs = []
        use_str = None
        for key, value in zip(keys, values):
            sub, is_str = key_value_pairs(key, value, what)
            use_str = is_str if use_str is None else use_str
            assert use_str == is_str, 'inconsistent types of keys detected.'
            pairs.extend(sub)
        return pairs, bool(use_str)
    assert isinstance(keys, (int, str)), 'unexpected type for keys: ' + str(type(keys))
    if isinstance(values, NDArray):
        return [(keys, values)], isinstance(keys, str)
    if not isinstance(values, (list, tuple)):
        raise TypeError('%s for key %r must be an NDArray or a list of NDArrays, found %s'
                        % (what, keys, type(values).__name__))
    for value in values:
        assert isinstance(value, NDArray), \
            '%s for key %r must be NDArrays, found %s' % (what, keys, type(value).__name__)
    return [(keys, value) for value in values], isinstance(keys, str)


def group_pairs(pairs, order):
    """Group ``(key, array)`` pairs by key, keys sorted by ``order(key)`` as MXNet does."""
    groups = {}
    for key, value in pairs:
        groups.setdefault(key, []).append(value)
    return sorted(groups.items(), key=lambda item: order(item[0]))
