"""python -m symmod.launch: the mpiexec command it builds (MXNet's launch.py flags), for
Open MPI and for MPICH/Hydra, and its argument errors. Real jobs run through it in
tests/distributed (one of them with a hostfile)."""
import os
import sys

import pytest

from symmod import launch


def command(argv, flavour='openmpi'):
    args = launch.parser().parse_args(argv)
    if args.launcher is None:
        args.launcher = 'mpi' if args.hostfile else 'local'
    return launch.mpiexec_command(args, '/x/mpiexec', flavour)


def test_open_mpi_command():
    cmd, env = command(['-n', '2', '-s', '1', 'python', 'train.py', '--kv-store',
                        'dist_async'])
    assert cmd == ['/x/mpiexec', '-n', '3', '--oversubscribe', '--bind-to', 'none',
                   '-x', 'SYMMOD_NUM_SERVERS=1', sys.executable, launch.OWN_SESSION,
                   sys.executable, 'train.py', '--kv-store', 'dist_async']
    assert env == {'SYMMOD_NUM_SERVERS': '1'}


def test_hostfile_ssh_and_env(monkeypatch):
    monkeypatch.setenv('FOO', 'bar')
    cmd, _ = command(['-n', '4', '-H', 'hosts', '--launcher', 'ssh', '--env', 'FOO',
                      '--env', 'A:1', 'python3', 'x.py'])
    assert cmd[:10] == ['/x/mpiexec', '-n', '4', '--oversubscribe', '--bind-to', 'none',
                        '--hostfile', 'hosts', '--mca', 'plm_rsh_agent']
    assert '-x' in cmd and 'FOO=bar' in cmd and 'A=1' in cmd
    assert cmd[-2:] == [sys.executable, 'x.py']


def test_mpich_command():
    cmd, _ = command(['-n', '2', '-H', 'hosts', '--launcher', 'ssh', './run.sh'], 'mpich')
    assert cmd == ['/x/mpiexec', '-n', '2', '-f', 'hosts', '-launcher', 'ssh', '-genv',
                   'SYMMOD_NUM_SERVERS', '0', sys.executable, launch.OWN_SESSION,
                   './run.sh']


@pytest.mark.parametrize('argv,message', [
    (['-n', '2'], 'the command to launch is missing'),
    (['-n', '0', 'python', 'x.py'], 'need -n >= 1'),
    (['-n', '2', '--launcher', 'ssh', 'python', 'x.py'], 'needs a hostfile'),
])
def test_argument_errors(argv, message, capsys):
    with pytest.raises(SystemExit):
        launch.main(argv)
    assert message in capsys.readouterr().err


def test_timeout_ends_the_job(tmp_path):
    code = launch.main(['-n', '1', '--timeout', '3', sys.executable, '-c',
                        'import time; time.sleep(60)'])
    assert code == 124


def test_ranks_of_a_job_split_the_cores_of_their_host(monkeypatch, capfd):
    """Under the real mpiexec, each of 2 ranks on this host gets half its cores as thread
    budget (symmod/threads.py is loaded alone: importing all of symmod takes seconds)."""
    pytest.importorskip('mpi4py', reason='needs the dist extra (an MPI launcher)')
    from symmod import threads
    for name in threads._ENV_CAPS:
        monkeypatch.delenv(name, raising=False)
    code = ('import importlib.util as u; s = u.spec_from_file_location("t", %r); '
            'm = u.module_from_spec(s); s.loader.exec_module(m); '
            'print("budget", m.budget(), m._cores())' % threads.__file__)
    code = launch.main(['-n', '2', '--timeout', '90', sys.executable, '-c', code])
    assert code == 0
    lines = [line.split() for line in capfd.readouterr().out.splitlines()
             if line.startswith('budget')]
    assert len(lines) == 2
    for _, budget, cores in lines:
        assert int(budget) == max(1, int(cores) // 2)


def test_every_process_of_a_job_leads_its_own_session(capfd):
    """Each rank runs in a session of its own (its own CPU share on a busy Linux machine,
    as torchrun's workers), with its pid as process group id (mpiexec signals that)."""
    pytest.importorskip('mpi4py', reason='needs the dist extra (an MPI launcher)')
    code = ('import os; print("session", os.getpid(), os.getsid(0), os.getpgid(0), '
            'os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK")))')
    assert launch.main(['-n', '2', '--timeout', '90', 'python', '-c', code]) == 0
    rows = [line.split()[1:] for line in capfd.readouterr().out.splitlines()
            if line.startswith('session')]
    assert sorted(rank for *_, rank in rows) == ['0', '1']
    for pid, sid, pgid, _ in rows:
        assert pid == sid == pgid
    assert rows[0][1] != rows[1][1] and str(os.getsid(0)) not in (rows[0][1], rows[1][1])
