"""What the side-by-side benchmarks share: fresh worker processes, interleaved rounds,
best and median, the load average and the thread settings each side ran with.

A benchmark script calls itself with ``--worker ...``; the worker prints one JSON line
(its last line of output) that :func:`worker` returns. Each measurement runs in a fresh
process so that neither framework's thread settings (symmod sets
``OMP_WAIT_POLICY=PASSIVE`` and ``GOMP_SPINCOUNT=2000`` on import) change the other's.
"""
import json
import os
import statistics
import subprocess
import sys

from _progress import say

__all__ = ['environment', 'load_average', 'add_arguments', 'thread_env', 'worker',
           'interleaved', 'side_by_side',
           'best_median', 'thread_report', 'set_torch_threads', 'torch_training']


def load_average():
    """The 1-minute load average (0 where the system does not report one)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def environment():
    """One line: cores, versions and the load average now."""
    import numpy as np
    import numba
    versions = 'python %s, numpy %s, numba %s' % (sys.version.split()[0], np.__version__,
                                                  numba.__version__)
    try:
        import torch
        versions += ', torch %s' % torch.__version__
    except ImportError:
        pass
    return '%d cores, %s; load average %.2f' % (os.cpu_count(), versions, load_average())


def add_arguments(parser, worker_args):
    """The options every side-by-side script has: ``--rounds``, ``--threads`` and the
    hidden ``--worker`` taking ``worker_args`` values."""
    import argparse
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--threads', type=int, default=None,
                        help='threads for every side (default: the cores)')
    parser.add_argument('--worker', nargs=worker_args, help=argparse.SUPPRESS)


def thread_env(threads):
    """Environment for workers limited to ``threads`` (None: no limit, the defaults)."""
    if threads is None:
        return {}
    return {'OMP_NUM_THREADS': str(threads), 'BENCH_TORCH_THREADS': str(threads)}


def worker(script, args, env=None, timeout=900):
    """Run ``python script --worker *args`` in a fresh process; its last output line, parsed
    as JSON."""
    base = {k: v for k, v in os.environ.items() if k not in ('OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')}
    base.update(env or {})
    out = subprocess.run([sys.executable, os.path.abspath(script), '--worker']
                         + [str(a) for a in args], env=base, check=True,
                         capture_output=True, text=True, timeout=timeout).stdout
    return json.loads(out.strip().splitlines()[-1])


def interleaved(measure, keys, rounds):
    """``{key: [measure(key) per round]}`` with the keys alternating within each round."""
    results = {k: [] for k in keys}
    for _ in range(rounds):
        for key in keys:
            results[key].append(measure(key))
    return results


def side_by_side(script, args, env, rounds, value):
    """Workers ``[framework] + args`` for symmod and torch, interleaved over ``rounds``.

    ``value(report)`` turns a worker's JSON report into the measured number. Returns
    ``(numbers, cpu, threads, loads)``: per framework the list of numbers and of the
    reports' ``cpu`` seconds, each side's thread settings, and the load average at the
    start and the end.
    """
    start_load = load_average()
    threads, cpu = {}, {'symmod': [], 'torch': []}

    def measure(framework):
        say('%s %s ...', framework, ' '.join(str(a) for a in args))
        report = worker(script, [framework] + list(args), env)
        say('%s: %.4g', framework, value(report))
        threads[framework] = report['threads']
        cpu[framework].append(report['cpu'])
        return value(report)

    numbers = interleaved(measure, ['symmod', 'torch'], rounds)
    return numbers, cpu, threads, (start_load, load_average())


def best_median(values, best=min):
    """(best, median) of a list of measurements."""
    return best(values), statistics.median(values)


def set_torch_threads():
    """Give PyTorch as many threads as symmod's budget (the cores, or
    ``BENCH_TORCH_THREADS``); returns the count."""
    import torch
    default = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else \
        os.cpu_count()
    n = int(os.environ.get('BENCH_TORCH_THREADS', default))
    torch.set_num_threads(n)
    return n


def thread_report(framework):
    """The thread settings a worker ran with."""
    if framework == 'symmod':
        import symmod as mx
        info = mx.threads.info()
        return 'budget %d, width %d, blas %s, numba %d' % (info['budget'], info['width'],
                                                          info['blas'], info['numba'])
    import torch
    return 'torch threads %d' % torch.get_num_threads()


def torch_training(model, opt, x, y, batch_size):
    """A PyTorch training loop over numpy ``(x, y)``: ``run(n)`` trains on the first ``n``
    samples (zero_grad, forward, cross-entropy, backward, step, accuracy every batch)."""
    import torch
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()

    def run(n_samples):
        correct = 0
        for start in range(0, n_samples, batch_size):
            xb, yb = xt[start:start + batch_size], yt[start:start + batch_size]
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            opt.step()
            correct += int((out.argmax(1) == yb).sum())
        return correct
    return run
