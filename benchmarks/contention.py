"""Training on a busy machine: symmod vs PyTorch with 0, 2 and 4 busy background processes.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/contention.py                 # MLP and LeNet, loads 0, 2, 4, 3 rounds
    python benchmarks/contention.py --quick         # fewer samples, 2 rounds
    python benchmarks/contention.py --variants symmod,symmod-fixed,torch,torch-1

For each load level the script starts that many busy processes (each spins on one core
and stops by itself after ``--busy-limit`` seconds; all are killed when the level is
done), then times one training epoch per framework, alternating, each in a fresh
process (``benchmarks/mnist_fit.py``'s worker: same data, same models, SGD momentum,
accuracy every batch). Variants:

* ``symmod``: defaults (thread budget = the cores, width adapted to the load);
* ``symmod-fixed``: ``SYMMOD_ADAPT_THREADS=0`` (every core, whatever the load: the old
  behaviour);
* ``torch``: PyTorch with ``torch.set_num_threads`` = the cores (its default);
* ``torch-1``: PyTorch with one thread.

Every number is printed with the load average (1 min) at the start and end of its level
and the thread settings each worker reported. "slowdown" is an epoch's best time at a
load over the same variant's best time with no extra load.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MNIST_FIT = os.path.join(HERE, 'mnist_fit.py')

_SPIN = ('import time\n'
         'end = time.monotonic() + %f\n'
         'while time.monotonic() < end:\n'
         '    pass\n')


def busy_processes(count, limit):
    """Start ``count`` self-stopping busy processes."""
    return [subprocess.Popen([sys.executable, '-c', _SPIN % limit]) for _ in range(count)]


def stop(processes):
    for p in processes:
        if p.poll() is None:
            p.kill()
    for p in processes:
        p.wait(timeout=30)


def run_variant(variant, model, samples, timeout):
    """Seconds of one epoch and the worker's thread report, in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k not in ('OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')}
    framework = 'symmod' if variant.startswith('symmod') else 'torch'
    if variant == 'symmod-fixed':
        env['SYMMOD_ADAPT_THREADS'] = '0'
    if variant == 'torch-1':
        env['BENCH_TORCH_THREADS'] = '1'
    out = subprocess.run([sys.executable, MNIST_FIT, '--worker', framework, model,
                          str(samples), '--report'], env=env, check=True,
                         capture_output=True, text=True, timeout=timeout).stdout
    report = json.loads(out.strip().splitlines()[-1])
    return report['seconds'], report['threads']


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='fewer samples, 2 rounds')
    parser.add_argument('--rounds', type=int, default=None)
    parser.add_argument('--loads', default='0,2,4', help='busy processes per level')
    parser.add_argument('--models', default='mlp,lenet')
    parser.add_argument('--variants', default='symmod,torch')
    parser.add_argument('--busy-limit', type=float, default=900.0,
                        help='seconds after which a busy process stops by itself')
    parser.add_argument('--timeout', type=float, default=600.0,
                        help='seconds one epoch may take before the worker is killed')
    args = parser.parse_args()
    rounds = args.rounds or (2 if args.quick else 3)
    samples = {'mlp': 6000 if args.quick else 12000, 'lenet': 1280 if args.quick else 3200}
    loads = [int(v) for v in args.loads.split(',')]
    models = args.models.split(',')
    variants = args.variants.split(',')
    # a terminated run still stops its busy processes (the finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    import numpy as np
    import torch
    print('cores %d (os.cpu_count), python %s, numpy %s, torch %s; %d rounds; epochs: %s'
          % (os.cpu_count(), sys.version.split()[0], np.__version__, torch.__version__,
             rounds, ', '.join('%s %d samples' % (m, samples[m]) for m in models)))
    results = {}        # (model, load, variant) -> list of seconds
    threads = {}
    level_load = {}
    for load in loads:
        busy = busy_processes(load, args.busy_limit)
        try:
            time.sleep(2.0 if load else 0.5)      # let the busy processes take the cores
            start_load = os.getloadavg()[0]
            for _ in range(rounds):
                for model in models:
                    for variant in variants:
                        seconds, report = run_variant(variant, model, samples[model],
                                                      args.timeout)
                        results.setdefault((model, load, variant), []).append(seconds)
                        threads[variant] = report
                        print('  %d busy, %s, %s: %.3f s (load average %.2f)'
                              % (load, model, variant, seconds, os.getloadavg()[0]),
                              flush=True)
            level_load[load] = (start_load, os.getloadavg()[0])
        finally:
            stop(busy)
        print('load level %d busy processes: load average %.2f at start, %.2f at end'
              % ((load,) + level_load[load]), flush=True)
    print()
    for variant in variants:
        print('threads reported by %s: %s' % (variant, threads[variant]))
    print()
    print('| model | busy procs | load avg (start-end) | variant | s/epoch best (median) '
          '| slowdown vs 0 busy | torch time / variant time |')
    print('|---|---|---|---|---|---|---|')
    for model in models:
        for load in loads:
            for variant in variants:
                times = results[(model, load, variant)]
                base = min(results.get((model, loads[0], variant), times))
                ref = results.get((model, load, 'torch'))
                ratio = '%.2f' % (min(ref) / min(times)) if ref else '-'
                print('| %s | %d | %.1f-%.1f | %s | %.3f (%.3f) | %.2fx | %s |'
                      % (model, load, level_load[load][0], level_load[load][1], variant,
                         min(times), statistics.median(times), min(times) / base, ratio))
    print()
    if 'symmod' in variants and 'torch' in variants:
        for model in models:
            for load in loads[1:]:
                s_slow = min(results[(model, load, 'symmod')]) / min(
                    results[(model, loads[0], 'symmod')])
                t_slow = min(results[(model, load, 'torch')]) / min(
                    results[(model, loads[0], 'torch')])
                print('%s, %d busy: symmod slowdown %.2fx, torch slowdown %.2fx, '
                      'symmod / torch slowdown %.2f' % (model, load, s_slow, t_slow,
                                                         s_slow / t_slow))


if __name__ == '__main__':
    main()
