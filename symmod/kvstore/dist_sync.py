"""The synchronous distributed KVStores: ``dist_sync``, ``dist_device_sync`` (alias
``dist_sync_device``) and plain ``dist``, on MPI.

Semantics, as in MXNet 1.9.1 (every worker makes the same calls in the same order):

- ``init`` stores rank 0's value on every worker (the other workers' values are
  ignored); ``broadcast`` is ``init`` then ``pull``.
- ``push`` sums a key's values over the worker's devices, then over all workers; the
  sum replaces the stored value, or, with an optimizer (``set_optimizer``), is handed
  to the updater once per round. ``pull`` returns the same value on every worker.
- with ``set_gradient_compression`` each worker quantizes its sum to 2 bits with its
  own residual per key (MXNet's ``KVStoreDist``), and the receivers add up the
  dequantized values of all workers.

How: MXNet's workers push to parameter servers, which wait for the push of every
worker, sum them, run the updater once on the sum and answer every pull with the
result. Here each worker all-reduces its sum (MPI ``Allreduce``, or MPI shared
memory on one host) and then runs the *same* updater on the *same* summed gradient
and the *same* stored weight. The updater is deterministic, so every worker computes
bit for bit the value the server would have stored, and the optimizer states
(momentum, Adam's moments, update counts) are the same on every worker: there is no
server round trip and no copy of the weights to send back. MPI's all-reduce hands every
rank the same sum (each element is reduced once and distributed, or reduced
symmetrically; in shared memory every rank adds all slots in rank order), and a
worker's values enter the sum in rank order where MXNet's server took them in arrival
order, so the sum is, if anything, more reproducible than MXNet's. ``init`` broadcasts
rank 0's value because MXNet's rank 0 is the one that pushes initial values to the
servers.

A job started without a launcher is one worker: the store then trains exactly like
``'local'`` (``'device'`` for the device variant).
"""
import operator
import weakref

import numpy as np

from ..base import MXNetError
from ..formats.atomic import atomic_write
from ..ndarray import NDArray
from ..ndarray import device as _device
from .. import optimizer as opt
from ..optimizer.updater import load_states_file
from .base import group_pairs
from .compression import packed_nbytes
from .dist_base import DistStore
from .fusion import Fusion
from .shared import add_in_rank_order
from .sparse import (sum_row_sparse, store_pushed, allreduce_row_sparse,
                     broadcast_row_sparse, warn_sparse_pull)

__all__ = ['DistSyncKVStore', 'SYNC_TYPES']

_DATA = operator.attrgetter('_data')
_FIRST = operator.itemgetter(0)

SYNC_TYPES = ('dist', 'dist_sync', 'dist_device_sync', 'dist_sync_device')


class DistSyncKVStore(DistStore):
    """A synchronous KVStore over all workers of an MPI job.

    Create it with ``mx.kv.create('dist_sync')`` (or ``'dist_device_sync'``,
    ``'dist_sync_device'``, ``'dist'``). Under ``mpiexec`` / ``python -m
    symmod.launch`` every process is a worker; without a launcher the job has one.

    Examples
    --------
    >>> kv = mx.kv.create('dist_sync')
    >>> kv.init('w', mx.nd.ones((2, 3)))        # rank 0's value, on every worker
    >>> kv.push('w', mx.nd.ones((2, 3)) * (kv.rank + 1))
    >>> out = mx.nd.zeros((2, 3))
    >>> kv.pull('w', out=out)                   # sum over workers: 1 + 2 + ... + N
    """

    TYPES = SYNC_TYPES

    def __init__(self, kv_type='dist_sync'):
        super().__init__(kv_type)
        self._fusion = Fusion(self._transport)
        self._merged = {}       # key -> host buffer of the round's sum (with an updater)
        self._repeat = None     # what the last pushpull worked out, see _Repeat
        # key -> (stored host array, every worker's part): a sum not yet copied into the
        # stored value, still readable in the shared slots (see _reduce_replacing)
        self._pending = {}
        self._superseded = ()
        if getattr(self._transport, 'shared', None) is not None:
            self._transport.add_round_hook(self._materialize, self._pending)
        self._last_round = None     # (keys, stored, sends, recvs, reduced) of the last _push
        # key -> (stored NDArray, its own host buffer) while the stored value lives in an
        # array lent by the caller of _pushpull_lent (see there)
        self._lent = {}

    # ---- init ------------------------------------------------------------------------
    def init(self, key, value):
        """Initialize keys with rank 0's values (a collective: every worker calls it).

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray or list of NDArray
            One value per key; only rank 0's are used.
        """
        pairs = self._parse(key, value, 'value')
        keys = self._new_keys(pairs, self._store)
        stored = [self._new_stored(v) for _, v in pairs]
        sparse = [(k, s) for k, s in zip(keys, stored) if s.stype != 'default']
        if sparse:
            broadcast_row_sparse(self._fusion, [k for k, _ in sparse], [s for _, s in sparse])
            dense = [(k, s) for k, s in zip(keys, stored) if s.stype == 'default']
            for k, s in sparse:
                self._order[k] = len(self._order) if isinstance(k, str) else k
                self._store[k] = s
            keys, stored = [k for k, _ in dense], [s for _, s in dense]
        on_gpu = [_device.is_gpu(s.context) for s in stored]
        hosts = [s.asnumpy() if gpu else s._data for s, gpu in zip(stored, on_gpu)]
        self._fusion.broadcast(keys, hosts)
        for k, s, h, gpu in zip(keys, stored, hosts, on_gpu):
            if gpu:
                _device.copy_into(s._data, h)
            self._order[k] = len(self._order) if isinstance(k, str) else k
            self._store[k] = s

    # ---- push --------------------------------------------------------------------------
    def push(self, key, value, priority=0):
        """Push values: summed over devices and workers, then stored or given to the
        optimizer. A collective: every worker pushes the same keys.

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys.
        value : NDArray, list of NDArray, or list of list of NDArray
            The values; several for one key (one per device) are summed.
        priority : int, optional
            Accepted for compatibility (symmod runs synchronously).
        """
        self._push(group_pairs(self._parse(key, value, 'value'), self._sort_key), False)

    def _push(self, groups, in_place):
        """One round for ``groups`` [(key, values)]. With ``in_place``, a key pushed from
        one device is summed inside that device's array (MXNet's dist workers overwrite
        it too); returns {key: that array's host buffer}. row_sparse values go their own
        way (gathered rows, never in place)."""
        sparse = [(k, vals) for k, vals in groups if any(v.stype != 'default' for v in vals)]
        if sparse:
            self._push_row_sparse(sparse)
            groups = [(k, vals) for k, vals in groups
                      if not any(v.stype != 'default' for v in vals)]
        if not groups:
            return {}
        if self._lent:
            self._release_lent()        # the sum must not reach the lent arrays before a pull
        keys = [k for k, _ in groups]
        replaced = self._updater is None and self._compression is None
        stored = [self._stored(k, materialize=not replaced) for k in keys]
        sends = [self._worker_sum(k, vals, s) for (k, vals), s in zip(groups, stored)]
        reduced = {}
        if in_place and self._compression is None:
            # an array pushed for two keys is read by both reductions: summing it in
            # place for one would change what the other sends (MPI's rounds run one
            # after another)
            shared = _overlapping(sends)
            for i, ((k, vals), send, s) in enumerate(zip(groups, sends, stored)):
                if len(vals) == 1 and send is vals[0]._data and send.flags.c_contiguous \
                        and send.dtype == s.dtype and i not in shared:
                    reduced[k] = send
        if self._updater is None:
            recvs = [reduced.get(k, self._host_target(s)) for k, s in zip(keys, stored)]
        else:
            recvs = [reduced.get(k) if k in reduced else self._merged_buffer(k, s)
                     for k, s in zip(keys, stored)]
        self._last_round = (keys, stored, sends, recvs, reduced) if not sparse else None
        if self._compression is not None:
            self._reduce_compressed(keys, sends, recvs)
        elif replaced:
            self._reduce_replacing(keys, stored, sends, recvs, reduced)
            return reduced
        else:
            self._fusion.allreduce(keys, sends, recvs)
        if self._updater is None:
            for k, s, r in zip(keys, stored, recvs):
                if k in reduced or _device.is_gpu(s.context):
                    _device.copy_into(s._data, r)
            return reduced
        grads = [NDArray(_device.to_context(r, s.context), s.context)
                 for r, s in zip(recvs, stored)]
        if isinstance(self._updater, opt.Updater):
            self._updater(keys, grads, stored)      # one fused call for all keys
        else:
            for k, g, s in zip(keys, grads, stored):
                self._updater(k, g, s)
        return {}

    def _reduce_replacing(self, keys, stored, sends, recvs, reduced, run=None):
        """The round of a push without updater: the sum replaces the stored values. A
        sum added up in a pushed array (``reduced``) reaches its stored value lazily when
        the round went through shared memory: until this worker's next round the slots
        still hold every worker's part, so the copy is made only if someone reads the
        stored value (:meth:`_stored`) or another round comes first (the transport's
        round hook); a later push of the key replaces it without any copy. ``run``: the
        round prepared by ``Fusion.prepare_allreduce``, if any."""
        self._superseded = set(keys)       # the round hook need not copy these
        try:
            parts = run() if run is not None else self._fusion.allreduce(keys, sends, recvs)
        finally:
            self._superseded = ()
        for k in keys:
            self._pending.pop(k, None)
        for i, (k, s, r) in enumerate(zip(keys, stored, recvs)):
            if k in reduced and parts is not None and isinstance(s._data, np.ndarray):
                self._pending[k] = (s._data, parts[i])
            elif k in reduced or _device.is_gpu(s.context):
                _device.copy_into(s._data, r)

    def _replacer(self, repeat):
        """:meth:`_pushpull_again` of ``repeat`` without updater, as a function of no
        arguments: :meth:`_reduce_replacing` with what depends only on the arrays worked
        out once (a small round costs about as much in Python as in memory traffic). The
        round replaces its keys' pending sums: they are dropped before it (so that the
        round hook has nothing to copy for them) and put back if the round fails."""
        pending, run, keys, lazy = self._pending, repeat.run, repeat.keys, repeat.lazy
        eager = [(s, r) for k, s, r in zip(repeat.keys, repeat.stored, repeat.recvs)
                 if k in repeat.reduced]
        pull = self._puller(repeat)
        if len(keys) == 1 and len(lazy) == 1:
            return self._replacer_of_one(repeat)

        def again():
            dropped = [(k, pending.pop(k)) for k in keys if k in pending] \
                if pending else ()
            try:
                parts = run()
            except BaseException:
                for k, entry in dropped:
                    pending.setdefault(k, entry)
                raise
            if parts is None:
                for s, r in eager:
                    _device.copy_into(s._data, r)
            else:
                for i, k, s in lazy:
                    pending[k] = (s._data, parts[i])
            if repeat.copies:
                pull()
        return again

    def _stored(self, key, materialize=True):
        """The stored value of ``key`` (its pending sum copied in first, see
        :meth:`_reduce_replacing`, unless it is about to be replaced)."""
        if materialize and key in self._pending:
            data, parts = self._pending.pop(key)
            add_in_rank_order(parts, data)
        return super()._stored(key)

    def _materialize(self, invalidate=True):
        """Copy the pending sums into their stored values: all of them when the slots
        are about to be reallocated (``invalidate``), else those the round that starts
        does not replace."""
        if not self._pending:
            return
        for k in list(self._pending):
            if invalidate or k not in self._superseded:
                data, parts = self._pending.pop(k)
                add_in_rank_order(parts, data)

    def _push_row_sparse(self, groups):
        """row_sparse pushes: each worker's sum over its devices, gathered from every worker
        and added in rank order (the union of their rows), then updated or stored."""
        keys = [k for k, _ in groups]
        stored = [self._stored(k) for k in keys]
        mine = [sum_row_sparse(k, vals, s.shape) for (k, vals), s in zip(groups, stored)]
        for k, total, s in zip(keys, allreduce_row_sparse(self._fusion, keys, mine), stored):
            store_pushed(self._updater, k, total, s)

    def _worker_sum(self, key, values, stored):
        """This worker's sum of ``values`` as a host array (the value itself for one)."""
        for v in values:
            if v.shape != stored.shape:
                raise MXNetError('push of key %r: value has shape %s, the stored value has '
                                 'shape %s' % (key, v.shape, stored.shape))
        if len(values) == 1:
            return values[0]._host()
        total = np.array(values[0]._host(), copy=True)
        for v in values[1:]:
            total += v._host()
        return total

    def _host_target(self, stored):
        """Where the round's sum lands when it replaces the stored value."""
        if _device.is_gpu(stored.context):
            return np.empty(stored.shape, dtype=stored.dtype)
        return stored._data

    def _merged_buffer(self, key, stored):
        buf = self._merged.get(key)
        if buf is None or buf.shape != stored.shape or buf.dtype != stored.dtype:
            buf = self._merged[key] = np.empty(stored.shape, dtype=stored.dtype)
        return buf

    def _reduce_compressed(self, keys, sends, recvs):
        """Quantize each key's worker sum, gather all workers' codes, add them up."""
        chunks = []
        for k, send in zip(keys, sends):
            packed = np.empty(packed_nbytes(send.size), dtype=np.uint8)
            self._compression.encode(k, send, packed)
            chunks.append(packed)
        rows = self._fusion.allgather_bytes(keys, chunks)
        for recv, gathered in zip(recvs, rows):
            if recv.dtype != np.float32 or not recv.flags.c_contiguous:
                total = np.empty(recv.shape, dtype=np.float32)
                self._compression.decode_sum(gathered, total)
                recv[...] = total
            else:
                self._compression.decode_sum(gathered, recv)

    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value``, then pull the result into ``out`` (or back into ``value``).

        Parameters
        ----------
        key : str, int, or list of str or int
            The keys (all of them go in as few messages as possible).
        value : NDArray, list of NDArray, or list of list of NDArray
            The values to push.
        out : NDArray, list of NDArray, or list of list of NDArray, optional
            Destinations; the pushed arrays when None.
        priority : int, optional
            Accepted for compatibility.
        """
        repeat = self._repeat
        if (repeat is not None and repeat.matches(key, value, out, self._updater)
                and not self._lent and self._compression is None):
            repeat.again()        # Module.fit's every step after the first
            return
        self._pushpull(key, value, out, False)

    def _pushpull_lent(self, key, value, out):
        """``pushpull(key, value, out=out)`` for a caller whose ``out`` arrays are its own
        copies of the stored values (Module's weights, with the optimizer in the store),
        and which calls :meth:`_release_lent` before it writes them in any other way.

        After every pull such an array holds exactly the stored value, so the store may
        keep its value *in* that array: the optimizer then updates it in place and the
        pull copies nothing (2 ranks, MLP: 437 KB less to copy and to keep in cache per
        step). The store takes its own memory back (a copy of the current value) before
        anything else could make the two differ: a push or another pushpull (whose sum
        must reach the array only when pulled) and the caller's writes
        (:meth:`_release_lent`)."""
        self._pushpull(key, value, out, True)

    def _pushpull(self, key, value, out, lend):
        if self._lent and not lend:
            self._release_lent()
        repeat = self._repeat
        if repeat is not None and self._compression is None \
                and repeat.matches(key, value, out, self._updater):
            repeat.again()
            return
        self._repeat = self._last_round = None
        groups = group_pairs(self._parse(key, value, 'value'), self._sort_key)
        reduced = self._push(groups, True)
        outs = group_pairs(self._parse(key, value if out is None else out, 'out'),
                           self._sort_key)
        self._pull_pushed(outs, reduced)
        self._repeat = _Repeat.of(self, key, value, out, groups, outs, reduced)
        if lend and self._repeat is not None and self._updater is not None:
            self._lend(self._repeat)

    def _lend(self, repeat):
        """Keep the stored values of ``repeat``'s pulled keys in their output arrays
        (which hold them now: the pull has just copied them), where that is exact: one
        host array of the stored dtype and layout per key, sharing memory with no other
        array of the call."""
        dsts = [dst for dst, _ in repeat.copies]
        shared = _overlapping(dsts + [s._data for s in repeat.stored]
                              + list(repeat.sends) + list(repeat.recvs))
        kept, kept_keys = [], []
        for i, ((dst, src), key) in enumerate(zip(repeat.copies, repeat.pulled_keys)):
            stored = repeat.stored[repeat.keys.index(key)] if key in repeat.keys else None
            if (stored is None or i in shared or key in self._lent or key in self._pending
                    or stored._data is not src or not dst.flags.c_contiguous
                    or dst.dtype != src.dtype or dst.shape != src.shape):
                kept.append((dst, src))
                kept_keys.append(key)
                continue
            self._lent[key] = (stored, src)
            stored._data = dst
        repeat.copies, repeat.pulled_keys = kept, kept_keys

    def _release_lent(self):
        """Give the stored values kept in lent arrays (:meth:`_pushpull_lent`) their own
        memory back, with the current values: the borrower calls this before it writes
        those arrays (e.g. Module.set_params), as MXNet's store keeps its values apart."""
        for stored, own in self._lent.values():
            np.copyto(own, stored._data)
            stored._data = own
        self._lent = {}
        self._repeat = None     # its record of the pull's copies is out of date

    def _replacer_of_one(self, repeat):
        """:meth:`_replacer` of one key summed in place (its sum left in the slots)."""
        pending, run = self._pending, repeat.run
        key, stored = repeat.keys[0], repeat.stored[0]

        def again():
            dropped = pending.pop(key, None) if pending else None
            try:
                parts = run()
            except BaseException:
                if dropped is not None:
                    pending.setdefault(key, dropped)
                raise
            if parts is None:
                _device.copy_into(stored._data, repeat.recvs[0])
            else:
                pending[key] = (stored._data, parts[0])
            if repeat.copies:
                pull()
        pull = self._puller(repeat)
        return again

    def _puller(self, repeat):
        """The pull of :meth:`_replacer`: pending sums of the pulled keys copied into the
        stored values (as :meth:`_stored` does), then the stored values into the
        outputs. (The functions a record holds hold no reference to the store.)"""
        pending = self._pending

        def pull():
            if pending:
                for k in repeat.pulled_keys:
                    if k in pending:
                        data, parts = pending.pop(k)
                        add_in_rank_order(parts, data)
            for dst, src in repeat.copies:
                np.copyto(dst, src, casting='unsafe')
        return pull

    def _pushpull_again(self, repeat):
        """A pushpull of the very arrays of the previous one (with an updater; without,
        :meth:`_replacer`): its work, without parsing, grouping and checking the
        arguments again."""
        if isinstance(self._updater, opt.Updater):
            repeat.run()
            self._updater(repeat.keys, repeat.grads, repeat.stored)
        else:
            repeat.run()
            for k, g, s in zip(repeat.keys, repeat.grads, repeat.stored):
                self._updater(k, g, s)
        if self._pending:
            for k in repeat.pulled_keys:
                self._stored(k)     # a pending sum the pull copies out
        for dst, src in repeat.copies:
            np.copyto(dst, src, casting='unsafe')

    def _pull_pushed(self, outs, reduced):
        """The pull of a pushpull: ``outs`` [(key, arrays)] get the stored values."""
        for k, dsts in outs:
            stored = self._stored(k, materialize=False)
            for dst in dsts:
                if dst.shape != stored.shape:
                    raise MXNetError('pull of key %r: output has shape %s, the stored value '
                                     'has shape %s' % (k, dst.shape, stored.shape))
                if dst.stype != 'default' or stored.stype != 'default':
                    # MXNet's pushpull pulls with ignore_sparse: sparse outputs are left
                    # alone (row_sparse_pull reads them), dense ones get the dense value
                    if dst.stype != 'default':
                        warn_sparse_pull(self, k)
                    else:
                        self._stored(k).copyto(dst)
                elif reduced.get(k) is not dst._data:     # else it holds the sum already
                    _device.copy_into(dst._data, self._stored(k)._data)

    # ---- optimizer states -------------------------------------------------------------------
    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Save the optimizer states; rank 0 writes the file, other ranks do nothing.

        Every worker holds the same states, so any one of them can save them (MXNet's
        distributed workers cannot save them at all).

        Parameters
        ----------
        fname : str
            Output file (written atomically).
        dump_optimizer : bool, default False
            Also save the optimizer's settings.
        """
        assert self._updater is not None, 'Cannot save states: no optimizer is set'
        if self.rank == 0:
            atomic_write(fname, self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        """Load optimizer states on this worker (every worker loads the same file).

        Parameters
        ----------
        fname : str
            Input file, written by :meth:`save_optimizer_states` or by MXNet.
        """
        assert self._updater is not None, 'Cannot load states: no optimizer is set'
        load_states_file(self._updater, fname)


class _Repeat:
    """The work of one ``pushpull``, for the next call with the same keys and the very
    same arrays (what Module.fit does every step): the host arrays to send and to sum
    into, the updater's arguments and the copies of the pull. Only the plain case is
    recorded: one dense CPU array per key and output, no compression."""

    @classmethod
    def of(cls, store, key, value, out, groups, outs, pulled):
        """The record of the pushpull that just ran (``pulled``: what its ``_push``
        returned), or None when it is not plain."""
        last = store._last_round
        if (last is None or store._compression is not None
                or any(len(vals) != 1 for _, vals in groups + outs)):
            return None
        keys, stored, sends, recvs, reduced = last
        arrays = [vals[0] for _, vals in groups + outs] + list(stored)
        if len(keys) != len(groups) or any(
                a.stype != 'default' or not isinstance(a._data, np.ndarray) for a in arrays):
            return None
        self = cls()
        self.key = list(key) if isinstance(key, (list, tuple)) else key
        self.updater = store._updater
        self.value = _flat(value)
        self.out = None if out is None else _flat(out)
        self.datas = [a._data for a in self.value + (self.out or [])]
        # one NDArray, or a flat list of them, pushed and pulled in place: matches()
        # compares objects without flattening
        self.single = value if isinstance(value, NDArray) and out is None else None
        # a list of one-array lists (Module's form), outputs None or of the same form
        self.nested = _one_array_lists(value) and (out is None or _one_array_lists(out))
        self.arrays = self.value + (self.out or [])
        self.ones = ([1] * len(self.value), [1] * len(self.out or ()))
        self.flat = (out is None and isinstance(value, list)
                     and all(isinstance(v, NDArray) for v in value))
        # the objects above are held here, so their ids stand for them
        self.value_ids = list(map(id, self.value))
        self.out_ids = None if out is None else list(map(id, self.out))
        self.data_ids = list(map(id, self.datas))
        self.keys, self.stored, self.sends, self.recvs = keys, stored, sends, recvs
        self.run = store._fusion.prepare_allreduce(keys, sends, recvs)
        self.reduced = reduced
        # without updater (_replace_again): the sums left in the slots for later, and
        # the keys whose older pending sum a new round makes obsolete
        self.keyset = set(keys)
        self.lazy = [(i, k, s) for i, (k, s) in enumerate(zip(keys, stored)) if k in reduced]
        self.eager_keys = [k for k in keys if k not in reduced]
        self.grads = [NDArray(r, s.context) for r, s in zip(recvs, stored)]
        self.copies = [(vals[0]._data, s._data) for (k, vals), s in zip(outs, stored)
                       if pulled.get(k) is not vals[0]._data]
        self.pulled_keys = [k for (k, vals), s in zip(outs, stored)
                            if pulled.get(k) is not vals[0]._data]
        if self.updater is None:
            self.again = store._replacer(self)
        else:
            owner = weakref.ref(store)
            self.again = lambda: owner()._pushpull_again(self)
        if self.flat and len(self.value) == 1:
            self.matches = self._one_in_a_list()
        return self

    def _one_in_a_list(self):
        """:meth:`matches` of a record of ``pushpull(key, [array])``, as a closure."""
        recorded_key, updater = self.key, self.updater
        array, data = self.value[0], self.datas[0]

        def matches(key, value, out, now_updater):
            return (value.__class__ is list and len(value) == 1 and value[0] is array
                    and array._data is data and out is None and now_updater is updater
                    and key == recorded_key)
        return matches

    def matches(self, key, value, out, updater):
        """Whether a pushpull of these arguments repeats the recorded one."""
        single = self.single
        if single is not None:
            return (value is single and out is None and updater is self.updater
                    and single._data is self.datas[0] and key == self.key)
        if updater is not self.updater or key != self.key:
            return False
        if self.flat and out is None and value.__class__ is list:
            return (len(value) == len(self.value) and all(map(operator.is_, value, self.value))
                    and all(map(operator.is_, map(_DATA, value), self.datas)))
        if self.nested and value.__class__ is list:
            # the same checks as below, each a loop in C
            if out is None:
                if self.out is not None:
                    return False
            elif (out.__class__ is not list or list(map(len, out)) != self.ones[1]
                    or not all(map(operator.is_, map(_FIRST, out), self.out))):
                return False
            return (list(map(len, value)) == self.ones[0]
                    and all(map(operator.is_, map(_FIRST, value), self.value))
                    and all(map(operator.is_, map(_DATA, self.arrays), self.datas)))
        values = _flat(value)
        if values is None or list(map(id, values)) != self.value_ids:
            return False
        if out is None:
            if self.out_ids is not None:
                return False
            arrays = values
        else:
            outs = _flat(out)
            if outs is None or list(map(id, outs)) != self.out_ids:
                return False
            arrays = values + outs
        return list(map(id, map(_DATA, arrays))) == self.data_ids


def _overlapping(arrays):
    """Positions of the host arrays that share memory with another one of ``arrays``."""
    if len(arrays) < 2:
        return set()
    spans = sorted(_byte_bounds(a) + (i,) for i, a in enumerate(arrays)
                   if isinstance(a, np.ndarray) and a.size)
    found = set()
    end, last = -1, None
    for low, high, i in spans:
        if low < end:
            found.update((i, last))
        if high > end:
            end, last = high, i
    return found


def _byte_bounds(array):
    """(first byte, one past the last byte) of ``array``'s memory."""
    low = high = array.__array_interface__['data'][0]
    for extent, stride in zip(array.shape, array.strides):
        if stride < 0:
            low += (extent - 1) * stride
        else:
            high += (extent - 1) * stride
    return low, high + array.itemsize


def _one_array_lists(arrays):
    """Whether ``arrays`` is a list of one-element lists of NDArray."""
    return isinstance(arrays, list) and all(
        isinstance(item, list) and len(item) == 1 and isinstance(item[0], NDArray)
        for item in arrays)


def _flat(arrays):
    """An NDArray, a list of NDArray, or of one-element lists of NDArray, as a flat list
    (else None)."""
    if not isinstance(arrays, (list, tuple)):
        return [arrays] if isinstance(arrays, NDArray) else None
    flat = []
    for item in arrays:
        if isinstance(item, (list, tuple)):
            if len(item) != 1:
                return None
            item = item[0]
        flat.append(item)
    return flat


