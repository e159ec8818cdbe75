"""The wait of the MPI transport (mpi.Poller): spins while the machine has a core to
spare, sleeps soon when it has none."""
import time

from symmod import threads
from symmod.kvstore import mpi


def _wait_for(poller, seconds, monkeypatch):
    """Wait ``seconds`` through ``poller``; returns how often it slept."""
    sleeps = []
    real_sleep = time.sleep
    monkeypatch.setattr(mpi.time, 'sleep', lambda s: (sleeps.append(s), real_sleep(s)))
    end = time.monotonic() + seconds
    poller.wait(lambda: time.monotonic() >= end)
    return len(sleeps)


def test_spins_when_a_core_is_spare(monkeypatch):
    monkeypatch.setattr(threads, 'spare_core', lambda: True)
    assert _wait_for(mpi.Poller(spin=1e-4, spare_spin=0.5), 0.01, monkeypatch) == 0


def test_sleeps_when_no_core_is_spare(monkeypatch):
    monkeypatch.setattr(threads, 'spare_core', lambda: False)
    assert _wait_for(mpi.Poller(spin=1e-4, spare_spin=0.5), 0.01, monkeypatch) > 0


def test_spare_core_follows_the_machine(monkeypatch):
    state = threads._Budget()
    state.adaptive = True
    monkeypatch.setattr(threads, '_STATE', state)

    class Machine:
        ncpu = 2
        loads = [1.9, 1.0]

        def others_cores(self):
            return self.loads.pop(0)
    state.machine = Machine()
    state.next_check = 0.0
    assert not threads.spare_core()         # others keep both cores busy
    state.next_check = 0.0
    assert threads.spare_core()             # one core left free
    state.adaptive = False
    assert not threads.spare_core()         # never looks: never spins long
