"""Training throughput on MNIST: symmod Module.fit vs the same model in PyTorch.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/mnist_fit.py              # MLP and LeNet, prints a markdown table
    python benchmarks/mnist_fit.py --quick      # fewer samples

Both frameworks train on the same float32 arrays in memory (the 4,000 bundled digits
tiled to the requested epoch size), in the same order, with SGD momentum 0.9, and
compute training accuracy every batch (Module.fit does; the PyTorch loop does too).
PyTorch runs with 2 threads (this machine's cores). Each side first trains on a few
batches to warm up (numba compilation, allocator), then one timed epoch. The two
frameworks alternate over ``--rounds``; the best round of each is reported.

* MLP: 784-128-64-10 (ReLU), batch 100, one epoch of 60,000 samples.
* LeNet: conv20-5x5/tanh/maxpool2, conv50-5x5/tanh/maxpool2, fc500/tanh, fc10; batch 64.
"""
import argparse
import gzip
import logging
import os
import sys
import time

import numpy as np

from _progress import first_run_notice, say

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'examples', 'mnist'))
sys.path.insert(0, HERE)
# symmod is imported only inside the symmod worker: importing it sets OMP_WAIT_POLICY,
# which must not change how PyTorch's threads behave in the PyTorch worker.

DATA = os.path.join(HERE, '..', 'examples', 'mnist', 'data')


def load_digits():
    with gzip.open(os.path.join(DATA, 'train-images-idx3-ubyte.gz')) as f:
        x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(DATA, 'train-labels-idx1-ubyte.gz')) as f:
        y = np.frombuffer(f.read(), np.uint8, offset=8)
    return x.astype(np.float32) / 255, y.astype(np.float32)


def tiled(x, y, n):
    reps = -(-n // len(x))
    return np.concatenate([x] * reps)[:n], np.concatenate([y] * reps)[:n]


# ---- symmod ---------------------------------------------------------------------------------
def symmod_epoch(kind, x, y, batch_size):
    """Seconds for Module.fit over (x, y) once, after a warm-up on a few batches."""
    import symmod as mx
    from symbols import mlp, lenet
    mod = mx.mod.Module(mlp() if kind == 'mlp' else lenet())
    params = {'learning_rate': 0.05, 'momentum': 0.9}
    warm = mx.io.NDArrayIter(x[:batch_size * 5], y[:batch_size * 5], batch_size)
    mod.fit(warm, optimizer='sgd', optimizer_params=params, initializer=mx.init.Xavier(),
            num_epoch=1)
    train = mx.io.NDArrayIter(x, y, batch_size)
    start = time.perf_counter()
    mod.fit(train, optimizer='sgd', optimizer_params=params, begin_epoch=1, num_epoch=2)
    return time.perf_counter() - start


# ---- PyTorch --------------------------------------------------------------------------------
def torch_model(kind):
    import torch.nn as nn
    if kind == 'mlp':
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 64),
                             nn.ReLU(), nn.Linear(64, 10))
    return nn.Sequential(nn.Conv2d(1, 20, 5), nn.Tanh(), nn.MaxPool2d(2, 2),
                         nn.Conv2d(20, 50, 5), nn.Tanh(), nn.MaxPool2d(2, 2), nn.Flatten(),
                         nn.Linear(800, 500), nn.Tanh(), nn.Linear(500, 10))


def torch_epoch(kind, x, y, batch_size):
    """Seconds for one PyTorch training epoch over (x, y) after a warm-up."""
    import torch
    torch.set_num_threads(int(os.environ.get('BENCH_TORCH_THREADS', 2)))
    from harness import torch_training
    model = torch_model(kind)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    run = torch_training(model, opt, x, y, batch_size)
    run(batch_size * 5)
    start = time.perf_counter()
    run(len(x))
    return time.perf_counter() - start


def thread_report(framework):
    """The thread settings the worker ran with."""
    if framework == 'symmod':
        import symmod as mx
        return mx.threads.info()
    import torch
    return {'torch': torch.get_num_threads(), 'interop': torch.get_num_interop_threads()}


def worker(framework, kind, n, report=False):
    """Time one epoch in this process and print the seconds (used by main); with
    ``report``, a JSON line with the seconds and the thread settings."""
    logging.getLogger().setLevel(logging.ERROR)
    import warnings
    warnings.simplefilter('ignore')
    x, y = load_digits()
    batch = 100 if kind == 'mlp' else 64
    xs, ys = tiled(x, y, n)
    if kind == 'mlp':
        xs = np.ascontiguousarray(xs.reshape(n, 784))
    epoch = symmod_epoch if framework == 'symmod' else torch_epoch
    seconds = epoch(kind, xs, ys, batch)
    if report:
        import json
        print(json.dumps({'seconds': seconds, 'threads': thread_report(framework)}))
    else:
        print(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--quick', action='store_true', help='fewer samples')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--worker', nargs=3, metavar=('FRAMEWORK', 'MODEL', 'SAMPLES'),
                        help=argparse.SUPPRESS)
    parser.add_argument('--report', action='store_true', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], int(args.worker[2]), args.report)
        return
    import subprocess
    import torch
    # each measurement runs in a fresh process, so neither framework's thread settings
    # (symmod sets OMP_WAIT_POLICY=PASSIVE on import) leak into the other's
    env = {k: v for k, v in os.environ.items() if k not in ('OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')}

    def timed(framework, kind, n):
        say('%s: one epoch of %s on %d samples ...', framework, kind, n)
        out = subprocess.run([sys.executable, os.path.abspath(__file__), '--worker', framework,
                              kind, str(n)], env=env, check=True, capture_output=True,
                             text=True).stdout
        seconds = float(out.strip().splitlines()[-1])
        say('%s: %.2f s (%.0f samples/s)', framework, seconds, n / seconds)
        return seconds

    first_run_notice()
    cases = [('mlp', 100, 12000 if args.quick else 60000),
             ('lenet', 64, 3200 if args.quick else 12800)]
    rows = []
    for kind, batch, n in cases:
        best_s = best_t = float('inf')
        for round_ in range(args.rounds):
            say('%s, round %d of %d', kind, round_ + 1, args.rounds)
            best_s = min(best_s, timed('symmod', kind, n))
            best_t = min(best_t, timed('torch', kind, n))
        rows.append((kind, batch, n, n / best_s, n / best_t))
    print('torch %s, numpy %s, %d cores, best of %d rounds'
          % (torch.__version__, np.__version__, os.cpu_count(), args.rounds))
    print('| model | batch | samples | symmod samples/s | PyTorch samples/s | symmod / PyTorch |')
    print('|---|---|---|---|---|---|')
    for kind, batch, n, s_rate, t_rate in rows:
        print('| %s | %d | %d | %.0f | %.0f | %.2f |' % (kind, batch, n, s_rate, t_rate,
                                                          s_rate / t_rate))


if __name__ == '__main__':
    main()
