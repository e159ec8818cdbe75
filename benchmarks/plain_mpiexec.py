"""A plain ``mpiexec -n 2 python train.py`` with and without its ranks moving into
sessions of their own (``SYMMOD_OWN_SESSION=0`` keeps them in mpiexec's session).

Linux shares a busy machine's CPU between sessions first (autogroups): in one session,
the 2 ranks of a job together get the share of one process. Run::

    python benchmarks/plain_mpiexec.py [--model lenet|mlp] [--pairs 4]

It alternates the two settings (A B A B ...) and prints each run's samples/s, the ratio
of each pair, and 1 plain process (``kvstore='local'``) for scale; the training itself is
``benchmarks/distributed.py --part symmod`` (Module.fit, 1 thread per rank). The effect
needs other busy sessions on the machine: on an idle machine both settings are equal.
``--busy K`` starts K busy loops, each in a session of its own (as other users' programs
are), for the length of the runs, so that the comparison does not depend on what else
the machine happens to run.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
from symmod.launch import find_mpiexec  # noqa: E402
from symmod.launch_session import autogroups_enabled  # noqa: E402

ONE_THREAD = {'OMP_NUM_THREADS': '1', 'NUMBA_NUM_THREADS': '1', 'OPENBLAS_NUM_THREADS': '1',
              'MKL_NUM_THREADS': '1'}
# what a user's mpiexec as root on a small machine needs, given through the environment
ROOT_OK = {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
           'PRTE_MCA_rmaps_default_mapping_policy': ':oversubscribe'}


def run(ranks, model, samples, extra):
    """samples/s of one job (rank 0's figure)."""
    part = [sys.executable, os.path.join(HERE, 'distributed.py'), '--part', 'symmod', model,
            str(samples), 'dist_sync' if ranks > 1 else 'local']
    cmd = [find_mpiexec(), '-n', str(ranks)] + part if ranks > 1 else part
    env = dict(os.environ, **ONE_THREAD, **ROOT_OK, **extra)
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True,
                         timeout=1200).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--model', default='lenet', choices=['lenet', 'mlp'])
    parser.add_argument('--samples', type=int, default=None, help='samples per rank')
    parser.add_argument('--pairs', type=int, default=4)
    parser.add_argument('--busy', type=int, default=0,
                        help='busy loops in sessions of their own during the runs')
    args = parser.parse_args()
    busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass'],
                             start_new_session=True) for _ in range(args.busy)]
    try:
        compare(args)
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()


def compare(args):
    """Print the table of ``--pairs`` alternating runs."""
    samples = args.samples or {'lenet': 1280, 'mlp': 12000}[args.model]
    print('autogroups on: %s; %d busy loops; load average at start: %.2f %.2f %.2f'
          % ((autogroups_enabled(), args.busy) + os.getloadavg()))
    print('| pair | 1 process | 2 ranks, one session | 2 ranks, own sessions | own / one |')
    print('|---|---|---|---|---|')
    for pair in range(args.pairs):
        single = run(1, args.model, samples, {})
        shared = run(2, args.model, samples, {'SYMMOD_OWN_SESSION': '0'})
        own = run(2, args.model, samples, {})
        print('| %d | %.0f | %.0f (%.2fx) | %.0f (%.2fx) | %.2f |'
              % (pair, single, shared, shared / single, own, own / single, own / shared),
              flush=True)
    print('load average at end: %.2f %.2f %.2f' % os.getloadavg())


if __name__ == '__main__':
    main()
