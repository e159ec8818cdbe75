"""Run a script of ``tests/dist/scripts`` as a distributed job, bounded in time.

The job goes through ``python -m symmod.launch`` (so the launcher is what the tests
use; ``plain=True``: a plain ``mpiexec``, as a user may start it); each rank writes its results to ``<out>/rank<r>.npz`` and the tests compare them
with references computed here, in the test process. Under ``pytest -n 2`` the tests of
one module may land on both xdist workers: :func:`run_once` runs a job once per session
and hands the same results to both.
"""
import fcntl
import json
import os
import pathlib
import signal
import subprocess
import sys
import time
from collections import namedtuple

import numpy as np
import pytest

pytest.importorskip('mpi4py', reason='the distributed tests need the dist extra (mpi4py)')
from symmod import launch  # noqa: E402

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripts')
Job = namedtuple('Job', ['returncode', 'stdout', 'stderr', 'seconds', 'out'])


def job_env(extra=None):
    """The environment of a job: one thread per rank (the machine has few cores)."""
    env = dict(os.environ, OMP_NUM_THREADS='1', NUMBA_NUM_THREADS='1',
               OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    env.update(extra or {})
    return env


def start(script, workers, out, servers=0, args=(), env=None, timeout=150, hostfile=None,
          plain=False):
    """Start the job without waiting; :func:`finish` collects it. ``plain``: a plain
    ``mpiexec -n N python script`` instead of the launcher (told only, through the
    environment, what a user's mpiexec would be: more ranks than cores, root)."""
    if plain:
        cmd = [launch.find_mpiexec(), '-n', str(workers + servers)]
        env = dict(env or {}, SYMMOD_NUM_SERVERS=str(servers), OMPI_ALLOW_RUN_AS_ROOT='1',
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
                   PRTE_MCA_rmaps_default_mapping_policy=':oversubscribe')
    else:
        cmd = [sys.executable, '-m', 'symmod.launch', '-n', str(workers), '-s', str(servers),
               '--timeout', str(timeout)]
    if hostfile:
        cmd += ['-H', str(hostfile), '--launcher', 'mpi']
    cmd += [sys.executable, os.path.join(SCRIPTS, script), str(out)] + [str(a) for a in args]
    os.makedirs(out, exist_ok=True)
    proc = subprocess.Popen(cmd, env=job_env(env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    return proc, time.monotonic(), timeout, out


def finish(started):
    """Wait for a started job (never longer than its timeout plus a margin)."""
    proc, began, timeout, out = started
    try:
        stdout, stderr = proc.communicate(timeout=timeout + 30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)     # mpiexec ends the ranks it started
        try:
            stdout, stderr = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            stdout, stderr = proc.communicate()
    return Job(proc.returncode, stdout, stderr, time.monotonic() - began, out)


def run(script, workers, out, **kwargs):
    """Run the job and wait for it."""
    return finish(start(script, workers, out, **kwargs))


def once(tmp_path_factory, name, make):
    """``make(out)`` once per test session: the first xdist worker that asks runs it,
    the others wait for it (a lock file) and get what it returned (JSON)."""
    root = tmp_path_factory.getbasetemp()
    if 'PYTEST_XDIST_WORKER' in os.environ:
        root = root.parent      # this session's, shared by its xdist workers
    out = root / ('job-%s' % name)
    with open(str(out) + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = root / ('job-%s.json' % name)
        if not record.exists():
            out.mkdir(exist_ok=True)
            record.write_text(json.dumps(make(out)))
    return json.loads(record.read_text())


def run_once(tmp_path_factory, name, script, workers, **kwargs):
    """:func:`run` through :func:`once`: one job per session for all xdist workers."""
    found = once(tmp_path_factory, name,
                 lambda out: run(script, workers, out, **kwargs)._replace(out=str(out)))
    return Job(*found[:-1], out=pathlib.Path(found[-1]))


def results(job, workers):
    """Each rank's saved arrays, after checking that the job succeeded."""
    assert job.returncode == 0, 'job failed (%s):\n%s\n%s' % (job.returncode, job.stdout,
                                                             job.stderr[-6000:])
    return [dict(np.load(os.path.join(job.out, 'rank%d.npz' % r), allow_pickle=False))
            for r in range(workers)]
