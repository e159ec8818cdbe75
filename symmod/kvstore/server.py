"""The servers of ``dist_async``: processes that hold the weights and update them.

A job launched with ``-s S`` servers (``python -m symmod.launch -n N -s S``, which sets
``SYMMOD_NUM_SERVERS=S``) has ``N + S`` MPI processes; the last ``S`` are servers.
Like MXNet's servers, they run the training script only up to ``import symmod``:
there they enter :func:`serve` and never return to the script. Each key lives on one
server (keys go round-robin in the order they are initialized). A job's stores are kept
apart: every request names its store, and a server holds one :class:`ServerState` (keys,
values, optimizer) per store, until every worker has released the store (its store
object was freed): a job that makes a new Trainer or Module per model keeps only the
live ones on its servers.

A server answers requests from any worker in the order they arrive (MPI keeps the
order of the messages from one worker): ``init`` stores a value, ``push`` runs the
optimizer once on the pushed gradient (every push exactly once, as it arrives, never
summed with other workers' pushes), ``pull`` returns the current value. The
optimizer reaches the servers pickled, as in MXNet: messages between the processes of
one job are trusted; files never are.

:class:`ServerState` is one server's store; a job without server processes (one
worker, no launcher) keeps one in the worker process itself.
"""
import os
import sys
import time
import types

import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray
from ..context import cpu
from ..launch_session import own_session_for_rank
from ..ndarray.sparse_array import RowSparseStorage, new_sparse
from ..ops.sparse.rows import retain_rows
from . import mpi
from .compression import unpack_add

__all__ = ['ServerState', 'serve', 'serve_if_server', 'encode_rows', 'decode_rows']

TAG_REQUEST, TAG_DATA, TAG_REPLY = 0x5e1, 0x5e2, 0x5e3
# requests (the first word of a header)
INIT, PUSH, PULL, PUSHPULL, OPTIMIZER, GET_STATES, SET_STATES, FLUSH, STOP = range(1, 10)
# row_sparse keys: init/push carry (count, indices, rows); PULL_ROWS carries row ids
INIT_ROWS, PUSH_ROWS, PULL_ROWS = range(10, 13)
# a worker is done with a store (its last request about it); HELD lists the stores kept
RELEASE, HELD = 13, 14


class ServerState:
    """The values of the keys one server holds, and the updater that changes them."""

    def __init__(self):
        self.values = {}        # key id -> numpy array (the current weight)
        self.sparse = {}        # key id -> RowSparseNDArray (the weight of a row_sparse key)
        self.keys = {}          # key id -> the worker's key (what the optimizer sees)
        self.updater = None

    def init(self, kid, key, value):
        """Store ``value`` (a numpy array, copied) for ``key`` under id ``kid``."""
        self.values[kid] = np.array(value, copy=True)
        self.sparse.pop(kid, None)
        self.keys[kid] = key

    def init_rows(self, kid, key, storage):
        """Store a row_sparse value (a RowSparseStorage, kept) for ``key``."""
        self.sparse[kid] = new_sparse('row_sparse', storage, cpu())
        self.values.pop(kid, None)
        self.keys[kid] = key

    def push_rows(self, kid, storage):
        """Apply one pushed row_sparse gradient (a RowSparseStorage) to key id ``kid``,
        whose weight is row_sparse or dense: the optimizer's lazy or standard sparse
        update, as the 'local' store runs it."""
        stored = self.sparse.get(kid)
        if stored is None:
            stored = NDArray(self.value(kid), cpu())
        if self.updater is None:
            raise MXNetError('dist_async needs an optimizer on the servers: call '
                             'set_optimizer before pushing key %r' % (self.keys[kid],))
        self.updater(self.keys[kid], new_sparse('row_sparse', storage, cpu()), stored)

    def rows(self, kid, row_ids):
        """The rows ``row_ids`` of a row_sparse key (zero where not stored)."""
        return retain_rows(self.sparse[kid]._data, row_ids).data

    def value(self, kid):
        """The current value of key id ``kid`` (dense, also for a row_sparse key)."""
        if kid in self.sparse:
            return self.sparse[kid].asnumpy()
        stored = self.values.get(kid)
        if stored is None:
            raise MXNetError('dist_async: key id %d has not been initialized on this server'
                             % kid)
        return stored

    def push(self, kid, grad):
        """Apply one pushed gradient (numpy array) to key id ``kid``."""
        stored = self.value(kid)
        if self.updater is None:
            raise MXNetError('dist_async needs an optimizer on the servers: call '
                             'set_optimizer (Module and gluon.Trainer do, with '
                             'update_on_kvstore=True) before pushing key %r'
                             % (self.keys[kid],))
        self.updater(self.keys[kid], NDArray(grad.reshape(stored.shape), cpu()),
                     NDArray(stored, cpu()))

    def set_optimizer(self, optimizer):
        """Use ``optimizer`` for every later push (its states start empty)."""
        from ..optimizer import get_updater
        self.updater = get_updater(optimizer)

    def get_states(self):
        """The updater's states (symmod's states format, with the optimizer)."""
        if self.updater is None:
            raise MXNetError('dist_async: no optimizer is set, there are no states to save')
        return self.updater.get_states(dump_optimizer=True)

    def set_states(self, states):
        """Load states written by :meth:`get_states` or by ``save_optimizer_states``."""
        if self.updater is None:
            raise MXNetError('dist_async: set the optimizer before loading its states')
        self.updater.set_states(states)


def light_param_dict(optimizer):
    """The ``lr_mult`` / ``wd_mult`` of a Trainer's Parameters, in a form that pickles."""
    return {index: types.SimpleNamespace(lr_mult=param.lr_mult, wd_mult=param.wd_mult)
            for index, param in optimizer.param_dict.items()}


def threshold_word(threshold):
    """A compression threshold as the header word of a push (0: not compressed)."""
    return 0 if threshold is None else int(np.float32(threshold).view(np.int32))


def decode_push(state, kid, word, payload):
    """The gradient a push carries: raw values, or 2-bit codes when ``word`` is a
    threshold (see :func:`threshold_word`)."""
    stored = state.value(kid)
    if word == 0:
        return payload.view(stored.dtype)
    grad = np.zeros(stored.size, dtype=np.float32)
    unpack_add(payload, grad, np.int32(word).view(np.float32))
    return grad


def encode_rows(storage):
    """The bytes of a RowSparseStorage in a message: count, indices (int64), rows."""
    indices = np.asarray(storage.indices, dtype=np.int64)
    head = np.array([len(indices)], dtype=np.int64)
    return np.concatenate([head.view(np.uint8), indices.view(np.uint8),
                           np.ascontiguousarray(storage.data).reshape(-1).view(np.uint8)])


def decode_rows(payload, shape, dtype):
    """A RowSparseStorage from :func:`encode_rows`'s bytes."""
    payload = np.ascontiguousarray(payload)
    count = int(payload[:8].view(np.int64)[0])
    indices = payload[8:8 + 8 * count].view(np.int64).copy()
    data = payload[8 + 8 * count:].view(np.dtype(dtype)).reshape((count,) + tuple(shape[1:]))
    return RowSparseStorage(data.copy(), indices, tuple(shape))


def serve(world, mpi_module, workers):
    """Answer the requests of the ``workers`` worker ranks until one of them sends STOP."""
    states = {}     # store number -> ServerState
    released = {}   # store number -> how many workers have released it
    status = mpi_module.Status()
    header = np.empty(5, dtype=np.int64)    # op, store, key id, payload bytes, word
    replies = _Replies(world, mpi_module)
    poller = mpi.Poller()

    def arrived():
        replies.progress()
        return world.Iprobe(source=mpi_module.ANY_SOURCE, tag=TAG_REQUEST)

    while True:
        poller.wait(arrived)
        world.Recv(header, source=mpi_module.ANY_SOURCE, tag=TAG_REQUEST, status=status)
        source = status.Get_source()
        op, store, kid, nbytes, word = (int(x) for x in header)
        if op == STOP:
            replies.finish()
            return
        if op == FLUSH:     # about every store: all earlier requests of the worker are done
            replies.send(source, None)
            continue
        if op == RELEASE:   # MPI keeps each worker's order: none of its requests follow
            released[store] = released.get(store, 0) + 1
            if released[store] == workers:
                states.pop(store, None)
                del released[store]
            continue
        if op == HELD:
            replies.send(source, np.array(sorted(states), dtype=np.int64))
            continue
        state = states.get(store)
        if state is None:
            state = states[store] = ServerState()
        payload = None
        if op in (INIT, PUSH, PUSHPULL, SET_STATES, INIT_ROWS, PUSH_ROWS, PULL_ROWS):
            payload = np.empty(nbytes, dtype=np.uint8)
            world.Recv(payload, source=source, tag=TAG_DATA)
        if op == INIT:
            key, shape, dtype = world.recv(source=source, tag=TAG_DATA)
            state.init(kid, key, payload.view(np.dtype(dtype)).reshape(shape))
            replies.send(source, None)
        elif op == INIT_ROWS:
            key, shape, dtype = world.recv(source=source, tag=TAG_DATA)
            state.init_rows(kid, key, decode_rows(payload, shape, dtype))
            replies.send(source, None)
        elif op == PUSH_ROWS:
            stored = state.sparse[kid] if kid in state.sparse else state.value(kid)
            state.push_rows(kid, decode_rows(payload, stored.shape, stored.dtype))
        elif op == PULL_ROWS:
            replies.send(source, state.rows(kid, payload.view(np.int64)))
        elif op == PUSH:
            state.push(kid, decode_push(state, kid, word, payload))
        elif op == PUSHPULL:
            state.push(kid, decode_push(state, kid, word, payload))
            replies.send(source, state.value(kid))
        elif op == PULL:
            replies.send(source, state.value(kid))
        elif op == OPTIMIZER:
            optimizer, param_dict = world.recv(source=source, tag=TAG_DATA)
            optimizer.param_dict = param_dict
            state.set_optimizer(optimizer)
            replies.send(source, None)
        elif op == GET_STATES:
            replies.send(source, np.frombuffer(state.get_states(), dtype=np.uint8))
        elif op == SET_STATES:
            state.set_states(payload.tobytes())
            replies.send(source, None)
        else:
            raise MXNetError('dist_async server: unknown request %d from rank %d'
                             % (op, source))


class _Replies:
    """Replies in flight: sent without blocking (a worker may still be sending to us),
    from copies (a later push may change the value before the copy has left)."""

    def __init__(self, world, mpi_module):
        self.world = world
        self.mpi = mpi_module
        self.pending = []       # (request, buffer kept alive until sent)

    def send(self, dest, array):
        data = np.zeros(0, dtype=np.uint8) if array is None else \
            np.array(array, copy=True).reshape(-1).view(np.uint8)
        size = np.array([data.size], dtype=np.int64)
        self.pending.append((self.world.Isend(size, dest=dest, tag=TAG_REPLY), size))
        if data.size:
            self.pending.append((self.world.Isend(data, dest=dest, tag=TAG_REPLY), data))

    def progress(self):
        if self.pending:
            self.pending = [(req, buf) for req, buf in self.pending if not req.Test()]

    def finish(self):
        self.mpi.Request.Waitall([req for req, _ in self.pending])
        self.pending = []


def serve_if_server():
    """Called at the end of ``import symmod``: a server rank serves, then exits.

    Does nothing unless this process was started by an MPI launcher with
    ``SYMMOD_NUM_SERVERS`` > 0. On a worker of such a job it sets up the workers'
    transport (so the servers are stopped when the workers end).
    """
    if not mpi.launched() or mpi.num_servers() == 0:
        return
    mpi_module = mpi.import_mpi()
    world = mpi_module.COMM_WORLD
    servers = mpi.num_servers()
    if world.rank < world.size - servers:
        from .dist_async import stop_servers
        transport = mpi.get()
        transport.add_stop_hook(lambda: stop_servers(transport))
        return
    own_session_for_rank()      # as the workers do when they create their stores
    try:
        serve(world, mpi_module, world.size - servers)
    except BaseException:   # pylint: disable=broad-except
        mpi.report('server rank %d of the job failed; ending the whole job' % world.rank)
        sys.excepthook(*sys.exc_info())
        sys.stderr.flush()
        time.sleep(mpi.ABORT_GRACE)
        world.Abort(1)
    sys.stdout.flush()
    mpi_module.Finalize()
    os._exit(0)     # never return into the training script
