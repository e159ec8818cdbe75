"""Ranks started by a plain ``mpiexec -n N python script`` (no launcher) move into
sessions of their own when they create a distributed store, where Linux shares the CPU
between sessions first (autogroups), as the launcher's ranks do; ``SYMMOD_OWN_SESSION=0``
keeps them in mpiexec's session. The failure cases under a plain mpiexec are in
test_dist_failures.py."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from symmod import launch_session
import mpirun

WORKERS, SERVERS = 2, 1
MODES = {'default': {}, 'off': {'SYMMOD_OWN_SESSION': '0'}}


def run_all(out):
    started = {mode: mpirun.start('sessions.py', WORKERS, out / mode, servers=SERVERS,
                                  env=env, plain=True) for mode, env in MODES.items()}
    return {mode: mpirun.finish(job)._replace(out=str(out / mode))
            for mode, job in started.items()}


@pytest.fixture(scope='module')
def jobs(tmp_path_factory):
    found = mpirun.once(tmp_path_factory, 'sessions', run_all)
    return {mode: mpirun.Job(*job) for mode, job in found.items()}


def sessions(job):
    mpirun.results(job._replace(out=job.out), WORKERS)     # the job succeeded
    with open(os.path.join(job.out, 'sessions.json')) as fin:
        found = json.load(fin)
    return {int(pid): tuple(v) for pid, v in found['processes'].items()}, \
        found['launcher_session']


@pytest.mark.skipif(not launch_session.autogroups_enabled(),
                    reason='this kernel does not share the CPU by sessions (autogroups off)')
def test_every_process_leads_a_session_of_its_own(jobs):
    processes, launcher_session = sessions(jobs['default'])
    assert len(processes) == WORKERS + SERVERS, processes
    for pid, (sid, _) in processes.items():
        assert sid == pid, processes
    assert launcher_session not in [sid for sid, _ in processes.values()]
    assert len({group for _, group in processes.values()}) == WORKERS + SERVERS


def test_sessions_stay_when_turned_off(jobs):
    processes, launcher_session = sessions(jobs['off'])
    assert len(processes) == WORKERS + SERVERS, processes
    assert {sid for sid, _ in processes.values()} == {launcher_session}


@pytest.mark.parametrize('mode', list(MODES))
def test_the_stores_work_in_their_new_sessions(jobs, mode):
    for saved in mpirun.results(jobs[mode], WORKERS):
        np.testing.assert_array_equal(saved['total'], np.full(3, 1.0 + 2.0))
        np.testing.assert_array_equal(saved['pulled'], np.full(2, -1.0 * WORKERS))
        assert int(saved['pgid']) == int(saved['pid'])     # mpiexec signals its group


@pytest.mark.parametrize('wanted, moves', [('1', True), ('0', False)])
def test_setting_moves_a_process_that_leads_its_group(wanted, moves):
    # as mpiexec starts a rank: the leader of its own process group in the caller's session
    code = ('import os, sys; os.setpgid(0, 0); sys.path.insert(0, %r); '
            'import launch_session as s; print(s.own_session_for_rank(), '
            'os.getsid(0) == os.getpid(), os.getpgid(0) == os.getpid())'
            % os.path.dirname(launch_session.__file__))
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=60, env=dict(os.environ, SYMMOD_OWN_SESSION=wanted),
                         check=True).stdout.split()
    assert out == [str(moves), str(moves), 'True']
