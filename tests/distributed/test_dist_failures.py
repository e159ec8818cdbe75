"""Failures end the whole job within seconds, with a message and a non-zero exit code,
instead of leaving the other ranks waiting forever. The jobs run side by side, through
the launcher and (some) through a plain mpiexec."""
import pytest

import mpirun

CASES = {
    'exception': ({}, ['rank 1 of 2', 'raised an uncaught exception',
                       'RuntimeError: rank 1 fails on purpose']),
    'kill': ({}, ['rank 1']),
    'uneven': ({}, ['rank 1 has left the job', "keys ['fc_weight', 'fc_bias']"]),
    'timeout': ({'SYMMOD_KVSTORE_TIMEOUT': '4'},
                ["key 'w'", 'waited more than 4 s for rank 1', 'SYMMOD_KVSTORE_TIMEOUT']),
    # the same in a round prepared for a repeated pushpull
    'timeout_repeat': ({'SYMMOD_KVSTORE_TIMEOUT': '4'},
                       ["key 'w'", 'waited more than 4 s for rank 1', 'SYMMOD_KVSTORE_TIMEOUT']),
    'differ_repeat': ({}, ['differs between workers',
                           "rank 0 runs an all-reduce of key 'w'"]),
    'async_no_optimizer': ({}, ['server rank 1', 'needs an optimizer on the servers']),
}
# the same under a plain mpiexec, whose ranks move into sessions of their own
PLAIN = ('exception', 'kill', 'timeout')
CASES.update({'plain_' + mode: CASES[mode] for mode in PLAIN})
LIMIT = 120     # only a hang takes this long; the jobs end in seconds on an idle machine


def run_all(out):
    started = {}
    for mode, (env, _) in CASES.items():
        workers, servers = (1, 1) if mode == 'async_no_optimizer' else (2, 0)
        plain = mode.startswith('plain_')
        started[mode] = mpirun.start('failures.py', workers, out / mode, servers=servers,
                                     args=[mode[len('plain_'):] if plain else mode],
                                     env=env, timeout=LIMIT, plain=plain)
    return {mode: mpirun.finish(s)._replace(out=None) for mode, s in started.items()}


@pytest.fixture(scope='module')
def jobs(tmp_path_factory):
    found = mpirun.once(tmp_path_factory, 'failures', run_all)
    return {mode: mpirun.Job(*job) for mode, job in found.items()}


@pytest.mark.parametrize('mode', list(CASES))
def test_failure_ends_the_job_with_a_message(jobs, mode):
    job = jobs[mode]
    assert job.returncode not in (0, 124, None), (job.returncode, job.stderr)
    assert job.seconds < LIMIT
    for text in CASES[mode][1]:
        assert text in job.stderr, (text, job.stderr[-4000:])
