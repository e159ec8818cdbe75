"""All-reduce through MPI-3 shared memory, for jobs whose workers all run on one host.

MPI's ``Allreduce`` between two processes of one host hands the data over in several
steps, and every step needs both processes on a core at the same time. When a machine
has more runnable processes than cores, each step waits for the scheduler: measured on
a 2-core machine at load 10, a 430 KB all-reduce took 7-11 ms *after* both ranks had met
(0.1 ms on idle cores), and a training step made four such meetings.

Here every worker copies what it sends into its own *slot* of a window that all workers
map (``MPI_Win_allocate_shared``). The round's header exchange
(:class:`mpi.WorkerTransport`, its headers posted in shared memory too:
:class:`SharedHeaders`) is then the only meeting of the round; afterwards each worker
adds up every worker's part itself, in rank order, so every worker computes the same
bits (its own part it reads from what it sent, not from its slot: same values, less
traffic between the cores' caches), and the failure handling of the header rounds -
exits, timeouts, mismatched keys - stays as it is. Two sets of slots alternate between
rounds: a worker writes round
``r + 2`` only after it has every peer's header of round ``r + 1``, which a peer sends
only after it has read round ``r`` (a store that reads a round's parts later, to copy a
sum into its stored value only when needed, does so in a round hook, before its next
header goes out). A round that every worker refuses (mismatched keys) moves no data:
the next round writes that round's set, not the set of the round before it, whose
parts a store may still read. Broadcasts (``init``) and the all-gathers of 2-bit
compression go the same way, so a one-host job makes no blocking MPI call after its
stores are created.

How a repeated round copies a worker's part into its slot (through the cache or with
streaming stores, chosen by time): ``slot_copy.py``; a small repeated round runs as one
compiled call: ``shared_round.py``.

Jobs that span hosts use MPI's collectives, and so do rounds of more than ``MAX_SLOT``
bytes per worker; ``SYMMOD_KVSTORE_SHARED_MEMORY=0`` does so for every round.
"""
import os

import numpy as np

from ..base import MXNetError

__all__ = ['SharedSlots', 'SharedHeaders', 'wanted', 'add_in_rank_order', 'ENV_SHARED']

ENV_SHARED = 'SYMMOD_KVSTORE_SHARED_MEMORY'
ALIGN = 64
MIN_CAPACITY = 256 << 10
# a round of more bytes per worker goes through MPI's collectives: the window takes
# 2 x workers x slot of shared memory (often a small tmpfs in containers), and big
# messages need few meetings inside MPI anyway
MAX_SLOT = 16 << 20


def wanted():
    """``SYMMOD_KVSTORE_SHARED_MEMORY`` (default 1): whether one-host jobs reduce in
    shared memory."""
    text = os.environ.get(ENV_SHARED, '1').strip().lower()
    if text in ('1', 'true', 'yes', 'on', ''):
        return True
    if text in ('0', 'false', 'no', 'off'):
        return False
    raise MXNetError('%s must be 1 or 0, found %r' % (ENV_SHARED, text))


def aligned(nbytes):
    """``nbytes`` rounded up to a multiple of 64 (a cache line)."""
    return -(-nbytes // ALIGN) * ALIGN


def add_in_rank_order(parts, out):
    """``out = parts[0] + parts[1] + ...``, added in this order (float16 in float32, as
    MPI's path does it)."""
    if parts[0].dtype == np.float16:
        total = parts[0].astype(np.float32)
        for part in parts[1:]:
            total += part
        np.copyto(out, total, casting='unsafe')
        return
    if len(parts) == 1:
        if parts[0] is not out:
            np.copyto(out, parts[0], casting='unsafe')
        return
    np.add(parts[0], parts[1], out=out, casting='unsafe')
    for part in parts[2:]:
        np.add(out, part, out=out, casting='unsafe')


class SharedHeaders:
    """The round headers of workers on one host, in a small shared-memory window: a
    worker *posts* its header of round ``n`` in its row of set ``n % 2`` (the fields,
    a memory barrier, then the round number, which publishes them) and waits until
    every row of that set carries ``n``. A worker posts round ``n + 2`` into the same
    row only after it has seen every header of round ``n + 1``, which a peer posts only
    after it has read round ``n``: no header is overwritten before it is read. No MPI
    call is made: a round costs a few memory reads instead of MPI's point-to-point
    messages.

    Parameters
    ----------
    mpi : module
        mpi4py's ``MPI``.
    comm : mpi4py.MPI.Comm
        The workers (all on one host), ranked as in the job.
    """

    WORDS = 8       # kind, number, signature, spare; a row per cache line

    def __init__(self, mpi, comm):
        self.size = comm.size
        count = 2 * self.size * self.WORDS
        self._win = mpi.Win.Allocate_shared(count * 8 if comm.rank == 0 else 0, 8,
                                            comm=comm)
        memory, _ = self._win.Shared_query(0)
        rows = np.frombuffer(memory, dtype=np.int64, count=count).reshape(
            2, self.size, self.WORDS)
        rows[:, comm.rank] = 0
        self.words = rows.reshape(-1)       # for compiled rounds (shared_round.py)
        # a word at a time as Python ints: far cheaper than numpy for a few words
        self._words = memoryview(rows).cast('B').cast('q')
        self._win.Lock_all()
        self._win.Sync()
        comm.Barrier()      # every row is zero before anybody posts
        self._want = [0]    # the round the tests of arrived() wait for
        self._tests = [self._test(parity) for parity in (0, 1)]

    def _at(self, number, rank):
        return ((number & 1) * self.size + rank) * self.WORDS

    def post(self, rank, number, kind, sig):
        """Publish this worker's header of round ``number``."""
        at = self._at(number, rank)
        words = self._words
        words[at] = kind
        words[at + 2] = sig
        self._win.Sync()
        words[at + 1] = number

    def poster(self, rank, kind, sig):
        """:meth:`post` of ``rank``, ``kind`` and ``sig`` as a function of ``number``."""
        words, sync = self._words, self._win.Sync
        places = [self._at(parity, rank) for parity in (0, 1)]

        def post(number):
            at = places[number & 1]
            words[at] = kind
            words[at + 2] = sig
            sync()
            words[at + 1] = number
        return post

    def checker(self, kind, sig):
        """:meth:`agree` of ``kind`` and ``sig`` as a function of ``number``."""
        words, sync = self._words, self._win.Sync
        places = [[self._at(parity, r) for r in range(self.size)] for parity in (0, 1)]

        def agree(number):
            sync()
            for at in places[number & 1]:
                if words[at] != kind or words[at + 2] != sig:
                    return False
            return True
        return agree

    def _test(self, parity):
        words, want = self._words, self._want
        places = [self._at(parity, r) + 1 for r in range(self.size)]
        if self.size == 2:
            first, second = places
            return lambda: words[first] == want[0] and words[second] == want[0]
        return lambda: all(words[at] == want[0] for at in places)

    def arrived(self, number):
        """A test: whether every worker has posted round ``number`` (valid until the
        next call)."""
        self._want[0] = number
        return self._tests[number & 1]

    def agree(self, number, kind, sig):
        """Whether every header of round ``number`` has ``kind`` and ``sig`` (after a
        memory barrier; call once :meth:`arrived` is true)."""
        self._win.Sync()
        words = self._words
        for r in range(self.size):
            at = self._at(number, r)
            if words[at] != kind or words[at + 2] != sig:
                return False
        return True

    def read(self, number, out):
        """Copy round ``number``'s headers (kind, number, signature, spare) into ``out``
        (one row per worker), after a memory barrier."""
        self._win.Sync()
        for r in range(self.size):
            at = self._at(number, r)
            out[r] = self._words[at:at + 4]

    def missing(self, number):
        """The workers that have not posted round ``number``."""
        return [r for r in range(self.size) if self._words[self._at(number, r) + 1] != number]

    def free(self):
        """Release the window (a collective of all workers)."""
        if self._win is not None:
            self._tests = None
            self.words = None
            self._words.release()
            self._words = None
            self._win.Unlock_all()
            self._win.Free()
            self._win = None


class SharedSlots:
    """Two sets of one slot per worker in a shared-memory window of the workers.

    Parameters
    ----------
    mpi : module
        mpi4py's ``MPI``.
    comm : mpi4py.MPI.Comm
        The workers (all on one host), ranked as in the job.
    """

    def __init__(self, mpi, comm):
        self.mpi = mpi
        self.comm = comm
        self.capacity = 0       # bytes per slot
        self.generation = 0     # counts the windows allocated (views of older ones are dead)
        self._win = None
        self._slots = None      # uint8 (2, workers, capacity)
        self._views = {}        # (parity, id(layout), rank) -> views of a layout

    def fits(self, nbytes):
        """Whether a round of ``nbytes`` per worker goes through the slots."""
        return nbytes <= MAX_SLOT

    def grow(self, nbytes):
        """Make every slot hold at least ``nbytes`` (a collective of all workers; the
        slots' contents are lost)."""
        capacity = aligned(max(nbytes, min(2 * self.capacity, MAX_SLOT), MIN_CAPACITY))
        self.free()
        total = 2 * self.comm.size * capacity
        win = self.mpi.Win.Allocate_shared(total if self.comm.rank == 0 else 0, 1,
                                           comm=self.comm)
        memory, _ = win.Shared_query(0)
        self._slots = np.frombuffer(memory, dtype=np.uint8, count=total).reshape(
            2, self.comm.size, capacity)
        win.Lock_all()      # one passive epoch for the window's life; sync() orders
        self._win = win
        self.capacity = capacity
        self.generation += 1

    def views(self, parity, layout, rank):
        """The arrays of ``layout`` [(byte offset, dtype, shape)] in set ``parity``:
        (in ``rank``'s slot, [[in every worker's slot, in rank order] per array])."""
        key = (parity, id(layout), rank)
        cached = self._views.get(key)
        if cached is None or cached[0] is not layout:
            every = [[self.view(parity, r, offset, dtype, shape)
                      for r in range(self.comm.size)] for offset, dtype, shape in layout]
            cached = self._views[key] = (layout, [v[rank] for v in every], every)
        return cached[1], cached[2]

    def view(self, parity, rank, offset, dtype, shape):
        """Worker ``rank``'s slot of set ``parity`` from byte ``offset``, as an array."""
        dtype = np.dtype(dtype)
        count = int(np.prod(shape, dtype=np.int64))
        raw = self._slots[parity, rank, offset:offset + count * dtype.itemsize]
        return raw.view(dtype).reshape(shape)

    def sync(self):
        """Order this process's writes and reads of the window (a memory barrier)."""
        self._win.Sync()

    def free(self):
        """Release the window (a collective of all workers)."""
        if self._win is not None:
            self._slots = None
            self._views = {}
            self._win.Unlock_all()
            self._win.Free()
            self._win = None
            self.capacity = 0
