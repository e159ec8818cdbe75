"""The asynchronous distributed KVStore, ``dist_async``: workers talk to server ranks.

As in MXNet 1.9.1, the weights live on servers (see ``server.py``). A worker's
``push`` sends its sum over its devices to the server that holds the key, which runs
the optimizer on it at once, without waiting for the other workers; ``pull``
returns whatever the server holds at that moment; ``pushpull`` returns the value
right after the worker's own push. row_sparse values work as in MXNet: a key initialized
with one is held row_sparse by its server, pushed row_sparse gradients travel as (row
indices, rows) and get the optimizer's lazy or standard sparse update there, and
``row_sparse_pull`` fetches only the requested rows; ``pull`` leaves sparse
destinations alone unless ``ignore_sparse=False``. Every push is applied exactly once, in the order
the server receives them. The optimizer must run on the servers (``set_optimizer``:
Module and gluon.Trainer use ``update_on_kvstore=True``); pushing without one raises.

Launch: ``python -m symmod.launch -n N -s S python train.py --kv-store dist_async``
starts N workers and S servers. A job of one worker without servers (a plain
``python train.py``) keeps the server's store in the worker process.

Collective calls (every worker makes them): creating the store, ``init``/``broadcast``,
``set_optimizer``, ``load_optimizer_states``, ``barrier``. ``push``/``pull`` are not
collective.

Several stores in one job (two Trainers, a Module per model) are kept apart on the
servers: each store has its own keys, values and optimizer there, so two stores may use
the same key names; the servers free a store's values once every worker has freed its
store object. MXNet 1.9.1 does not keep them apart: only the first store of a
job sends its ``init`` to the servers, and every later one reads and updates the first
one's values under the same (integer) keys, a silent mix-up symmod does not copy.
"""
import numpy as np

from ..base import MXNetError
from ..formats import states as states_format
from ..formats.atomic import atomic_write
from ..ndarray import device as _device
from ..ndarray.sparse_array import RowSparseStorage
from ..ops.sparse.kernels import sorted_unique
from .. import optimizer as opt
from ..optimizer.updater import load_states_file
from . import mpi
from .base import group_pairs
from .compression import packed_nbytes
from .dist_base import DistStore
from .fusion import describe_keys
from .server import (ServerState, light_param_dict, decode_push, threshold_word, encode_rows,
                     decode_rows, INIT, PUSH, PULL, PUSHPULL, OPTIMIZER, GET_STATES,
                     SET_STATES, FLUSH, STOP, INIT_ROWS, PUSH_ROWS, PULL_ROWS, RELEASE,
                     HELD, TAG_REQUEST, TAG_DATA, TAG_REPLY)
from .sparse import row_sparse_targets, sum_row_sparse, warn_sparse_pull

__all__ = ['DistAsyncKVStore', 'ASYNC_TYPES', 'stop_servers']

ASYNC_TYPES = ('dist_async', 'dist_device_async', 'dist_async_device')


class DistAsyncKVStore(DistStore):
    """An asynchronous KVStore: server ranks hold the weights and update on each push.

    Create it with ``mx.kv.create('dist_async')``.

    Examples
    --------
    >>> kv = mx.kv.create('dist_async')
    >>> kv.init('w', mx.nd.zeros((2,)))
    >>> kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1))
    >>> kv.push('w', mx.nd.ones((2,)))      # applied by the server when it arrives
    >>> out = mx.nd.zeros((2,)); kv.pull('w', out=out)
    """

    TYPES = ASYNC_TYPES

    def __init__(self, kv_type='dist_async'):
        super().__init__(kv_type)
        # workers of an asynchronous job may end far apart: the exit round waits
        self._transport.exit_timeout = None
        if self._transport.servers:
            self._servers = _MPIServers.new_store(self._transport)
        elif self._transport.size == 1:
            self._servers = _InProcess()
        else:
            raise MXNetError(
                "dist_async needs server processes, and this job of %d workers has none: "
                "launch it with python -m symmod.launch -n %d -s 1 ... (or start %d "
                "processes with %s=1)" % (self._transport.size, self._transport.size,
                                          self._transport.size + 1, mpi.ENV_SERVERS))
        self._ids = {}          # key -> key id on the servers
        self._meta = {}         # key -> (shape, dtype)
        self._sparse = set()    # the keys initialized with row_sparse values

    def __del__(self):
        servers = getattr(self, '_servers', None)
        if servers is not None:
            servers.release()

    # ---- keys ------------------------------------------------------------------------
    def _known(self, key):
        meta = self._meta.get(key)
        if meta is None:
            if isinstance(key, str):
                raise MXNetError("key %s doesn't exist. Did you init?" % key)
            raise MXNetError('key %d has not been inited' % key)
        return meta

    @staticmethod
    def _check_storage(what, key, array):
        if array.stype == 'csr':
            raise MXNetError("dist_async: %s of key %r with csr storage: the servers hold "
                             "dense and row_sparse values" % (what, key))

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull only the given rows of row_sparse values into row_sparse ``out`` arrays.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys; they must have been initialized with row_sparse values.
        out : RowSparseNDArray, or (nested) list of them
            Destinations; each receives the servers' current rows at its ``row_ids``.
        priority : int, optional
            Accepted for compatibility.
        row_ids : NDArray or list of NDArray
            Row indices per destination (need not be unique or sorted).
        """
        triples, copies = row_sparse_targets(self, key, out, row_ids)
        for k, dst, rows in triples:
            shape, dtype = self._known(k)
            if k not in self._sparse:
                raise MXNetError('row_sparse_pull of key %r: PullRowSparse expects a '
                                 'row_sparse stored value, found default' % (k,))
            if dst.stype != 'row_sparse':
                raise MXNetError('row_sparse_pull of key %r: the output must be row_sparse, '
                                 'found %s' % (k, dst.stype))
            if tuple(dst.shape) != tuple(shape):
                raise MXNetError('row_sparse_pull of key %r: output has shape %s, the stored '
                                 'value has shape %s' % (k, dst.shape, shape))
            ids = sorted_unique(np.asarray(rows._host()).reshape(-1).astype(np.int64))
            ids = ids[(ids >= 0) & (ids < shape[0])]
            data = self._servers.pull_rows(self._ids[k], k, ids)
            data = data.view(dtype).reshape((len(ids),) + tuple(shape[1:]))
            dst._set_storage(RowSparseStorage(data.astype(dst.dtype, copy=False), ids, shape))
        for src, dst in copies:
            src.copyto(dst)

    def _check_shape(self, what, key, array):
        shape, _ = self._known(key)
        if array.shape != shape:
            raise MXNetError('%s of key %r: array has shape %s, the stored value has shape %s'
                             % (what, key, array.shape, shape))

    # ---- init ------------------------------------------------------------------------
    def init(self, key, value):
        """Initialize keys with rank 0's values on the servers (every worker calls it).

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray or list of NDArray
            One value per key; only rank 0's are sent.
        """
        pairs = self._parse(key, value, 'value')
        for k, v in pairs:
            self._check_storage('init', k, v)
        self._new_keys(pairs, self._meta)
        for k, v in pairs:
            kid = len(self._ids)
            self._ids[k] = kid
            self._meta[k] = (tuple(v.shape), np.dtype(v.dtype))
            self._order[k] = len(self._order) if isinstance(k, str) else k
            if v.stype == 'row_sparse':
                self._sparse.add(k)
                if self.rank == 0:
                    self._servers.init_rows(kid, k, v._data)
            elif self.rank == 0:
                self._servers.init(kid, k, np.ascontiguousarray(v._host()))
        self._transport.barrier('init of %s' % describe_keys([k for k, _ in pairs]))

    # ---- push / pull ------------------------------------------------------------------------
    def push(self, key, value, priority=0):
        """Send this worker's gradients; each server applies them as they arrive.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray, list of NDArray, or list of list of NDArray
            The values; several for one key (one per device) are summed first.
        priority : int, optional
            Accepted for compatibility.
        """
        sparse, dense = self._push_groups(key, value)
        self._push_rows(sparse)
        self._push_dense(dense)

    def _push_groups(self, key, value):
        """The pushed ``[(key, values)]`` split into those sent as rows (a row_sparse key,
        or a row_sparse value) and the dense ones."""
        sparse, dense = [], []
        for k, values in group_pairs(self._parse(key, value, 'value'), self._sort_key):
            as_rows = k in self._sparse or any(v.stype == 'row_sparse' for v in values)
            (sparse if as_rows else dense).append((k, values))
        return sparse, dense

    def _push_dense(self, groups):
        keys, payloads, words = self._payloads(groups)
        if keys:
            self._servers.push([self._ids[k] for k in keys], keys, payloads, words)

    def _push_rows(self, sparse):
        """Send the pushes of row_sparse keys: each one's sum over this worker's devices
        as (indices, rows); the servers run the optimizer's sparse update on it."""
        if not sparse:
            return
        if self._compression is not None:
            raise MXNetError('dist_async: gradient compression is not supported for '
                             'row_sparse keys (%s)' % describe_keys([k for k, _ in sparse]))
        for k, values in sparse:
            for v in values:
                self._check_storage('push', k, v)
            total = sum_row_sparse(k, values, self._meta[k][0])
            storage = total._data if total.stype == 'row_sparse' else RowSparseStorage(
                total._host(), np.arange(total.shape[0], dtype=np.int64), total.shape)
            self._servers.push_rows(self._ids[k], k, storage)

    def _payloads(self, groups):
        keys, payloads, words = [], [], []
        for k, values in groups:
            for v in values:
                self._check_storage('push', k, v)
                self._check_shape('push', k, v)
            total = np.array(values[0]._host(), copy=len(values) > 1)
            for v in values[1:]:
                total += v._host()
            total = np.ascontiguousarray(total)
            if self._compression is not None:
                packed = np.empty(packed_nbytes(total.size), dtype=np.uint8)
                self._compression.encode(k, total, packed)
                payloads.append(packed)
                words.append(threshold_word(self._compression.threshold))
            else:
                payloads.append(total)
                words.append(0)
            keys.append(k)
        return keys, payloads, words

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy the servers' current values into ``out``.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        out : NDArray, list of NDArray, or list of list of NDArray
            Destinations.
        priority : int, optional
            Accepted for compatibility.
        ignore_sparse : bool, default True
            Accepted for compatibility.
        """
        assert out is not None
        groups = group_pairs(self._parse(key, out, 'out'), self._sort_key)
        for k, outs in groups:
            for dst in outs:
                self._check_storage('pull', k, dst)
                self._check_shape('pull', k, dst)
        if ignore_sparse:
            # MXNet skips sparse destinations (row_sparse_pull fills them), with a notice
            for k, outs in groups:
                if any(dst.stype != 'default' for dst in outs):
                    warn_sparse_pull(self, k)
            groups = [(k, [d for d in outs if d.stype == 'default']) for k, outs in groups]
            groups = [(k, outs) for k, outs in groups if outs]
        if not groups:
            return
        values = self._servers.pull([self._ids[k] for k, _ in groups], [k for k, _ in groups])
        self._deliver(groups, values)

    def _deliver(self, groups, values):
        for (k, outs), raw in zip(groups, values):
            shape, dtype = self._meta[k]
            value = raw.view(dtype).reshape(shape)
            for dst in outs:
                if dst.stype == 'row_sparse':       # every row (pull with ignore_sparse=False)
                    dst._set_storage(RowSparseStorage(value.astype(dst.dtype), np.arange(
                        shape[0], dtype=np.int64), shape))
                else:
                    _device.copy_into(dst._data, value)

    def pushpull(self, key, value, out=None, priority=0):
        """Push, then pull each key's value right after this worker's push.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray, list of NDArray, or list of list of NDArray
            The values to push.
        out : NDArray, list of NDArray, or list of list of NDArray, optional
            Destinations; the pushed arrays when None.
        priority : int, optional
            Accepted for compatibility.
        """
        sparse, dense = self._push_groups(key, value)
        if sparse:
            # as MXNet: the push, then a pull that leaves sparse destinations alone
            self._push_rows(sparse)
            self._push_dense(dense)
            self.pull(key, value if out is None else out, priority)
            return
        keys, payloads, words = self._payloads(dense)
        groups = group_pairs(self._parse(key, value if out is None else out, 'out'),
                             self._sort_key)
        if [k for k, _ in groups] != keys:
            raise MXNetError('pushpull: the keys of value and out differ')
        for k, outs in groups:
            for dst in outs:
                self._check_shape('pull', k, dst)
        values = self._servers.pushpull([self._ids[k] for k in keys], keys, payloads, words)
        self._deliver(groups, values)

    def broadcast(self, key, value, out, priority=0):
        """Initialize ``key`` with rank 0's ``value`` and pull it into ``out``.

        Parameters
        ----------
        key : str or int, or list of them
            The keys.
        value : NDArray or list of NDArray
            The values (rank 0's are used).
        out : NDArray, list of NDArray, or list of list of NDArray
            Destinations.
        priority : int, optional
            Accepted for compatibility.
        """
        self.init(key, value)
        self.pull(key, out, priority)

    # ---- optimizer --------------------------------------------------------------------------
    def set_optimizer(self, optimizer):
        """Send ``optimizer`` to the servers (every worker calls it; rank 0 sends).

        Parameters
        ----------
        optimizer : Optimizer
            The optimizer the servers run on each push.
        """
        if not isinstance(optimizer, opt.Optimizer):
            raise TypeError('set_optimizer needs an Optimizer, found %s'
                            % type(optimizer).__name__)
        self._updater = opt.get_updater(optimizer)     # the workers' view of it
        if self.rank == 0:
            self._servers.set_optimizer(optimizer, light_param_dict(optimizer))
        self._transport.barrier('set_optimizer')

    def _set_updater(self, updater):
        """Not available: the servers run the optimizer (use :meth:`set_optimizer`)."""
        raise MXNetError('dist_async runs the optimizer on its servers: use '
                         'set_optimizer(optimizer) instead of _set_updater')

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Rank 0 gathers the servers' optimizer states into ``fname``; others do nothing.

        Parameters
        ----------
        fname : str
            Output file (written atomically).
        dump_optimizer : bool, default False
            Accepted for compatibility; the optimizer's settings are always saved.
        """
        assert self._updater is not None, 'Cannot save states: no optimizer is set'
        if self.rank == 0:
            atomic_write(fname, merge_states(self._servers.get_states()))

    def load_optimizer_states(self, fname):
        """Load optimizer states into the servers (every worker calls it; rank 0 sends).

        Parameters
        ----------
        fname : str
            Input file.
        """
        assert self._updater is not None, 'Cannot load states: no optimizer is set'
        load_states_file(self._updater, fname)     # checks the file; errors name it
        if self.rank == 0:
            with open(fname, 'rb') as fin:
                self._servers.set_states(fin.read())
        self._transport.barrier('load_optimizer_states')

    def barrier(self):
        """Wait until every worker reaches its barrier; every push made before it (by
        any worker) has then been applied."""
        self._servers.flush()
        self._transport.barrier()


def merge_states(parts):
    """One states file from the servers' states (each holds its own keys)."""
    loaded = [states_format.loads(p) for p in parts]
    merged = dict(max(loaded, key=lambda p: p['optimizer_state']['num_update']))
    merged['states'] = {}
    counts = {}
    for part in loaded:
        merged['states'].update(part['states'])
        for dev, pairs in part['optimizer_state']['counts'].items():
            counts.setdefault(dev, {}).update({k: v for k, v in pairs})
    merged['optimizer_state'] = dict(merged['optimizer_state'])
    merged['optimizer_state']['counts'] = {dev: [[k, v] for k, v in table.items()]
                                           for dev, table in counts.items()}
    return states_format.dumps(merged)


class _InProcess:
    """The servers of a one-worker job: one ServerState in this process."""

    def __init__(self):
        self.state = ServerState()

    def init(self, kid, key, value):
        self.state.init(kid, key, value)

    def push(self, kids, keys, payloads, words):
        for kid, payload, word in zip(kids, payloads, words):
            self.state.push(kid, decode_push(self.state, kid, word, payload.reshape(-1)
                                             .view(np.uint8)))

    def pull(self, kids, keys):
        return [np.array(self.state.value(kid), copy=True).reshape(-1).view(np.uint8)
                for kid in kids]

    def init_rows(self, kid, key, storage):
        self.state.init_rows(kid, key, decode_rows(encode_rows(storage), storage.shape,
                                                   storage.dtype))

    def push_rows(self, kid, key, storage):
        self.state.push_rows(kid, decode_rows(encode_rows(storage), storage.shape,
                                              storage.dtype))

    def pull_rows(self, kid, key, ids):
        return np.ascontiguousarray(self.state.rows(kid, ids)).reshape(-1).view(np.uint8)

    def pushpull(self, kids, keys, payloads, words):
        self.push(kids, keys, payloads, words)
        return self.pull(kids, keys)

    def set_optimizer(self, optimizer, param_dict):
        self.state.set_optimizer(optimizer)

    def get_states(self):
        return [self.state.get_states()]

    def set_states(self, states):
        self.state.set_states(states)

    def flush(self):
        """Every push is applied at once in this process."""

    def release(self):
        """The store is gone: its values go with this object."""


class _MPIServers:
    """Requests of one store to the server ranks of the job (see ``server.py`` for the
    protocol): every request names the store, whose keys the servers keep apart from
    other stores' keys.

    Parameters
    ----------
    transport : WorkerTransport
        The job's transport.
    store : int
        The store's number, the same on every worker (-1: the job's own channel, for
        the requests about every store: flush and stop).
    """

    def __init__(self, transport, store):
        self.transport = transport
        self.store = store
        self.world = transport.world
        self.mpi = transport.mpi
        self.servers = transport.servers

    @classmethod
    def of(cls, transport):
        """The job's channel of ``transport`` (it flushes at exit, registered once)."""
        channel = getattr(transport, 'server_channel', None)
        if channel is None:
            channel = transport.server_channel = cls(transport, -1)
            channel.created = 0
            channel.releases = []       # RELEASE messages in flight (request, header)
            channel.closed = False
            transport.add_exit_hook(channel.close)
        return channel

    @classmethod
    def new_store(cls, transport):
        """The channel of a new store (every worker calls it, a collective): its number
        is the count of stores rank 0 has created before, which every worker adopts."""
        job = cls.of(transport)
        number = np.array([job.created], dtype=np.int64)
        transport.bcast(number, lambda: 'the creation of a dist_async store',
                        mpi.signature('new dist_async store'))
        job.created = int(number[0]) + 1
        return cls(transport, int(number[0]))

    def _server(self, kid):
        # stores start their keys on different servers
        return self.servers[(kid + max(self.store, 0)) % len(self.servers)]

    def _send(self, dest, op, kid, payload=None, word=0, obj=None):
        """Send one request without blocking; returns the requests to wait for."""
        data = None if payload is None else payload.reshape(-1).view(np.uint8)
        header = np.array([op, self.store, kid, 0 if data is None else data.size, word],
                          dtype=np.int64)
        reqs = [(self.world.Isend(header, dest=dest, tag=TAG_REQUEST), header)]
        if data is not None:
            reqs.append((self.world.Isend(data, dest=dest, tag=TAG_DATA), data))
        if obj is not None:
            reqs.append((self.world.isend(obj, dest=dest, tag=TAG_DATA), None))
        return reqs

    def _complete(self, sent, what):
        self.transport.wait([req for req, _ in sent], self.transport.timeout,
                            lambda: '%s: sending %s to the servers has waited more than '
                                    '%g s; ending the job' % (self.transport.where(), what(),
                                                             self.transport.timeout))

    def _receive(self, dest, what):
        """The bytes of one reply from server ``dest``."""
        size = np.zeros(1, dtype=np.int64)
        self._wait(self.world.Irecv(size, source=dest, tag=TAG_REPLY), dest, what)
        data = np.empty(int(size[0]), dtype=np.uint8)
        if data.size:
            self._wait(self.world.Irecv(data, source=dest, tag=TAG_REPLY), dest, what)
        return data

    def _wait(self, request, dest, what):
        timeout = self.transport.timeout
        self.transport.wait([request], timeout, lambda: (
            '%s: the reply of server rank %d to %s has not come within %g s; ending the '
            'job (%s sets the limit)' % (self.transport.where(), dest, what(), timeout,
                                         mpi.ENV_TIMEOUT)))

    def _call(self, requests, what):
        """Send ``requests`` [(dest, op, kid, payload, word, obj)], return their replies."""
        sent = []
        for dest, op, kid, payload, word, obj in requests:
            sent.extend(self._send(dest, op, kid, payload, word, obj))
        replies = [self._receive(r[0], what) for r in requests]
        self._complete(sent, what)
        return replies

    def init(self, kid, key, value):
        self._call([(self._server(kid), INIT, kid, value, 0,
                     (key, value.shape, value.dtype.str))],
                   lambda: 'the init of key %r' % (key,))

    def init_rows(self, kid, key, storage):
        self._call([(self._server(kid), INIT_ROWS, kid, encode_rows(storage), 0,
                     (key, tuple(storage.shape), np.dtype(storage.dtype).str))],
                   lambda: 'the init of key %r' % (key,))

    def push_rows(self, kid, key, storage):
        self._complete(self._send(self._server(kid), PUSH_ROWS, kid, encode_rows(storage)),
                       lambda: 'the push of key %r' % (key,))

    def pull_rows(self, kid, key, ids):
        return self._call([(self._server(kid), PULL_ROWS, kid,
                            np.ascontiguousarray(ids, dtype=np.int64), 0, None)],
                          lambda: 'the row_sparse_pull of key %r' % (key,))[0]

    def push(self, kids, keys, payloads, words):
        sent = []
        for kid, payload, word in zip(kids, payloads, words):
            sent.extend(self._send(self._server(kid), PUSH, kid, payload, word))
        self._complete(sent, lambda: 'the push of %s' % describe_keys(keys))

    def pull(self, kids, keys):
        return self._call([(self._server(kid), PULL, kid, None, 0, None) for kid in kids],
                          lambda: 'the pull of %s' % describe_keys(keys))

    def pushpull(self, kids, keys, payloads, words):
        return self._call([(self._server(kid), PUSHPULL, kid, payload, word, None)
                           for kid, payload, word in zip(kids, payloads, words)],
                          lambda: 'the pushpull of %s' % describe_keys(keys))

    def set_optimizer(self, optimizer, param_dict):
        self._call([(s, OPTIMIZER, 0, None, 0, (optimizer, param_dict))
                    for s in self.servers], lambda: 'set_optimizer')

    def get_states(self):
        return [r.tobytes() for r in self._call([(s, GET_STATES, 0, None, 0, None)
                                                 for s in self.servers],
                                                lambda: 'save_optimizer_states')]

    def set_states(self, states):
        payload = np.frombuffer(states, dtype=np.uint8)
        self._call([(s, SET_STATES, 0, payload, 0, None) for s in self.servers],
                   lambda: 'load_optimizer_states')

    def flush(self):
        """Wait until every server has handled all of this worker's requests."""
        self._call([(s, FLUSH, 0, None, 0, None) for s in self.servers],
                   lambda: 'the final flush')

    def close(self):
        """At exit (the job's channel): the last flush; stores freed later (at the
        interpreter's end) release nothing, the servers stop anyway."""
        self.closed = True      # first: a store freed during the flush sends nothing
        self.flush()
        self._complete(self.releases, lambda: 'the release of freed stores')
        self.releases = []

    def release(self):
        """This worker is done with the store (its object is being freed): tell every
        server, without waiting; a server frees the store once every worker did."""
        job = getattr(self.transport, 'server_channel', None)
        if job is None or job.closed or self.mpi.Is_finalized():
            return
        job.releases = [(req, buf) for req, buf in job.releases if not req.Test()]
        for dest in self.servers:
            job.releases.extend(self._send(dest, RELEASE, 0))

    def held(self):
        """The numbers of the stores each server holds (a list per server)."""
        return [list(r.view(np.int64)) for r in self._call(
            [(s, HELD, 0, None, 0, None) for s in self.servers], lambda: 'a count of stores')]

    def stop(self):
        """End the servers (rank 0, after every worker has flushed and left)."""
        self._complete([r for s in self.servers for r in self._send(s, STOP, 0)],
                       lambda: 'stop')


def stop_servers(transport):
    """Rank 0's last act in a job with servers: tell them to end."""
    _MPIServers.of(transport).stop()
