"""One thread budget for everything in symmod that computes in parallel.

Three kinds of threads compete for the cores: numpy's BLAS threads (matrix products),
numba's threads (the optimizer kernels' ``prange`` loops) and the executor group's
pool (one thread per context). Left alone each sizes itself to every core, so on a
machine other processes also use they oversubscribe it: a BLAS call split over two
threads waits, spinning, for the thread the scheduler gave to someone else, and a
training step becomes many times slower than on one thread.

So symmod sizes them together. The *budget* is the number of cores this process may
run on, capped by ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` /
``NUMBA_NUM_THREADS`` when the user set them, or by :func:`set_budget`. Without such a
cap, a process of an MPI job (``mpiexec``, ``python -m symmod.launch``) whose host runs
N of the job's processes gets ``cores // N`` (at least one). The *width* is
how many of them to use now: at most every :data:`INTERVAL` seconds (checked where
work starts: an executor's forward pass, an optimizer update, a gluon backward pass)
symmod reads from ``/proc/stat`` how much CPU time other processes took since the last
check; cores they keep busy are left to them, down to one thread. The width falls at
once and rises again only after two checks in a row found the cores free. BLAS gets
the width through threadpoolctl, numba through ``numba.set_num_threads``, and parallel
kernels and executor pools run serially when it is one. Set ``SYMMOD_ADAPT_THREADS=0``
to keep the width at the budget.

numba's OpenMP threads wait passively after a short spin (``OMP_WAIT_POLICY=PASSIVE``,
``GOMP_SPINCOUNT=2000``, set on import).
OpenBLAS's threads do not: after a call split over them they spin (yielding) for about
a tenth of a second, on the cores numba's threads then want. Kernels that do their own
``prange`` work between matrix products (the convolutions) therefore run those products
under :func:`serial_blas`, which leaves BLAS at one thread until the next
:func:`apply`, and split the work themselves.

Examples
--------
>>> mx.threads.info()['budget']
2
"""
import contextlib
import os
import threading
import time

__all__ = ['INTERVAL', 'budget', 'set_budget', 'width', 'spare_core', 'apply',
           'serial_blas', 'info']

INTERVAL = 0.25
"""Seconds between two looks at the machine's load."""

_ENV_CAPS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'NUMBA_NUM_THREADS')
# set by Open MPI's and MPICH/Hydra's mpiexec: the job's processes on this host
_LOCAL_RANKS = ('OMPI_COMM_WORLD_LOCAL_SIZE', 'MPI_LOCALNRANKS')


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _local_ranks():
    """How many processes of this MPI job run on this host (1 without a launcher)."""
    for name in _LOCAL_RANKS:
        value = os.environ.get(name, '').strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return 1


def _env_budget():
    cores = _cores()
    caps = []
    for name in _ENV_CAPS:
        value = os.environ.get(name, '').split(',')[0].strip()
        if value.isdigit() and int(value) > 0:
            caps.append(int(value))
    if caps:
        return max(1, min([cores] + caps))
    # ranks of one job on one host share its cores: left at every core each, N ranks
    # would run N times as many threads as there are cores
    return max(1, cores // _local_ranks())


class _Machine:
    """CPU time of the whole machine (``/proc/stat``) and of this process, sampled."""

    def __init__(self):
        self.hz = os.sysconf('SC_CLK_TCK') if hasattr(os, 'sysconf') else 100
        self.ncpu = os.cpu_count() or 1
        self.last = self._sample()

    @staticmethod
    def _ticks():
        try:
            with open('/proc/stat', 'rb') as f:
                fields = f.readline().split()
        except OSError:
            return None
        # user nice system idle iowait irq softirq steal
        values = [int(v) for v in fields[1:9]]
        return sum(values), values[3] + values[4]

    def _sample(self):
        return self._ticks(), time.process_time()

    def others_cores(self):
        """Cores' worth of CPU other processes (and the hypervisor) used since the last
        call; None where the machine cannot tell."""
        (ticks, own) = now = self._sample()
        (last_ticks, last_own), self.last = self.last, now
        if ticks is None or last_ticks is None:
            return None
        elapsed = ticks[0] - last_ticks[0]
        if elapsed <= 0:
            return None
        busy = elapsed - (ticks[1] - last_ticks[1])
        others = busy - (own - last_own) * self.hz
        return max(0.0, others / elapsed * self.ncpu)


def _loadavg_others():
    """Cores' worth of other processes from the 1-minute load average (this process
    counted as one runnable thread); None where the system has none."""
    try:
        return max(0.0, os.getloadavg()[0] - 1.0)
    except (AttributeError, OSError):
        return None


class _Budget:
    def __init__(self):
        self.lock = threading.Lock()
        self.budget = _env_budget()
        self.width = self.budget
        self.adaptive = os.environ.get('SYMMOD_ADAPT_THREADS', '1') != '0'
        self.machine = None
        self.next_check = 0.0
        self.rising = 0
        self.spare = False          # the last look found a core no other process used
        self.blas = None            # threadpoolctl controller of the BLAS libraries
        self.blas_width = None      # what BLAS was last set to
        self.local = threading.local()

    def measure(self, now):
        with self.lock:
            if now < self.next_check:
                return
            self.next_check = now + INTERVAL
            if self.machine is None:
                # no interval measured yet: the load average stands in for the first look,
                # so that work before the second check does not oversubscribe a busy machine
                self.machine = _Machine()
                others = _loadavg_others()
            else:
                others = self.machine.others_cores()
            if others is None:
                return
            free = self.machine.ncpu - others
            self.spare = free >= 0.75
            target = max(1, min(self.budget, int(free + 0.5)))
            if target < self.width:
                self.width, self.rising = target, 0
            elif target > self.width:
                self.rising += 1
                if self.rising >= 2:
                    self.width, self.rising = target, 0
            else:
                self.rising = 0


_STATE = _Budget()


def budget():
    """The number of threads symmod may use (cores available, capped by the user)."""
    return _STATE.budget


def set_budget(n):
    """Cap symmod's threads at ``n`` (BLAS, numba and the executor pool together).

    Parameters
    ----------
    n : int
        At least 1; the width follows at the next :func:`apply`.
    """
    n = int(n)
    if n < 1:
        raise ValueError('thread budget must be at least 1, found %d' % n)
    state = _STATE
    with state.lock:
        state.budget = n
        state.width = n
        state.rising = 0
        state.next_check = 0.0


def width():
    """How many threads parallel work should use now (looks at the load at most every
    :data:`INTERVAL` seconds)."""
    state = _STATE
    if state.adaptive:
        now = time.monotonic()
        if now >= state.next_check:
            state.measure(now)
    return state.width


def spare_core():
    """Whether the last look at the machine (at most :data:`INTERVAL` seconds ago) found
    a core that other processes left free: a wait may then spin on this process's core
    without taking time from anyone. False while adaptation is off
    (``SYMMOD_ADAPT_THREADS=0``), which never looks."""
    state = _STATE
    if not state.adaptive:
        return False
    width()
    return state.spare


def _set_blas(n):
    state = _STATE
    if state.blas is None:
        try:
            # scipy's OpenBLAS (what numba's np.dot calls): numba loads it at its first
            # compile or cache load, after this first sizing, where threadpoolctl would
            # not find it and it kept its default width; loaded now, it is sized with
            # the others
            import scipy.linalg.cython_blas  # noqa: F401
        except ImportError:
            pass
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:         # not installed: BLAS keeps its own threads
            state.blas = ()
        else:
            state.blas = ThreadpoolController().select(user_api='blas').lib_controllers
    for lib in state.blas:
        lib.set_num_threads(n)
    state.blas_width = n


def adopt_blas_libraries():
    """Put BLAS libraries loaded since the first sizing under the thread budget.

    threadpoolctl finds the libraries loaded when its controller is made; one loaded
    later (scipy's OpenBLAS, which numba's ``np.dot`` calls) would keep its default
    width. Call after loading one: the controller is made again and every library is
    sized to the current BLAS width.
    """
    state = _STATE
    if state.blas is None:      # not made yet: the first sizing will find it
        return
    state.blas = None
    _set_blas(state.blas_width)


def _set_numba(n):
    import numba
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


def apply(share=1):
    """Size BLAS and numba's threads (for the calling thread) to the current width.

    Parameters
    ----------
    share : int
        How many threads run parallel work at the same time (the executor group's
        contexts): each gets ``width // share`` threads, at least one.

    Returns
    -------
    int
        The threads each of them may use.
    """
    state = _STATE
    n = max(1, width() // share)
    if n != state.blas_width:
        _set_blas(n)
    local = state.local
    if getattr(local, 'numba_width', None) != n:
        _set_numba(n)
        local.numba_width = n
    return n


@contextlib.contextmanager
def serial_blas():
    """Run the block with BLAS at one thread, and leave it there until the next
    :func:`apply` (an executor's forward pass, a gluon backward pass, an optimizer
    update) sizes it to the width again.

    For kernels that interleave matrix products with their own parallel loops (the
    convolutions): split over BLAS's threads such products gain little, and idle
    OpenBLAS threads spin for about a tenth of a second after each call, on the cores
    the parallel loops need (a ResNet-20 step at two threads took 3.5x the CPU time of
    one thread that way). Not restoring the width at the end keeps the other products
    of the same pass (a LeNet's fully connected layers) from waking the spinning
    threads again between two convolutions: measured at two threads on idle cores,
    that is faster than restoring it for LeNet (3972 vs 2974 samples/s, batch 64) and
    the same for ResNet-20.
    """
    state = _STATE
    if state.blas_width != 1:
        _set_blas(1)
    yield


def info():
    """The budget, the current width and what BLAS and numba are set to.

    Returns
    -------
    dict
        ``budget``, ``width``, ``adaptive``, ``blas`` (threads BLAS was last set to, None
        before the first :func:`apply`) and ``numba`` (numba's threads in this thread).
    """
    import numba
    state = _STATE
    return {'budget': state.budget, 'width': state.width, 'adaptive': state.adaptive,
            'blas': state.blas_width, 'numba': numba.get_num_threads()}
