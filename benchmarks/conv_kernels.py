"""ResNet-20's convolutions one by one: symmod's Convolution node (bound executor) vs
PyTorch's ``conv2d`` on the same shapes, forward and backward, at one thread each
(``--threads N``: N threads each, timed by the wall clock).

Each shape is one kind of convolution layer in ResNet-20 for CIFAR-10 at batch 64 (how
many of that kind one training step runs is in the table). Times are the CPU time of
the calling thread (``time.thread_time``), best and median of ``--reps`` calls, the two
frameworks alternating call by call, so that the other processes of a shared machine
slow both alike. Backward is data and weight gradient together (the stem has no data
gradient in either).

    python benchmarks/conv_kernels.py [--reps 9] [--threads 1]
"""
import argparse
import os
import statistics
import sys
import time

_THREADS = sys.argv[sys.argv.index('--threads') + 1] if '--threads' in sys.argv else '1'
os.environ['OMP_NUM_THREADS'] = _THREADS

import numpy as np   # noqa: E402

import harness   # noqa: E402

# (channels, filters, size, kernel, stride, layers of this kind in ResNet-20)
SHAPES = [(3, 16, 32, 3, 1, 1), (16, 16, 32, 3, 1, 6), (16, 32, 32, 3, 2, 1),
          (16, 32, 32, 1, 2, 1), (32, 32, 16, 3, 1, 5), (32, 64, 16, 3, 2, 1),
          (32, 64, 16, 1, 2, 1), (64, 64, 8, 3, 1, 5)]
BATCH = 64


def _symmod_calls(mx, c, k, size, kernel, stride, x, w, dy):
    pad = kernel // 2
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(kernel, kernel),
                             stride=(stride, stride), pad=(pad, pad), num_filter=k,
                             no_bias=True, name='conv')
    ex = sym.bind(mx.cpu(), args={'data': mx.nd.array(x), 'conv_weight': mx.nd.array(w)},
                  args_grad={'data': mx.nd.zeros(x.shape), 'conv_weight': mx.nd.zeros(w.shape)},
                  grad_req={'data': 'null' if c == 3 else 'write', 'conv_weight': 'write'})
    head = mx.nd.array(dy)
    ex.forward(is_train=True)
    return (lambda: ex.forward(is_train=True)), (lambda: ex.backward(head))


def _torch_calls(torch, c, kernel, stride, x, w, dy):
    pad = kernel // 2
    tx = torch.from_numpy(x).requires_grad_(c != 3)
    tw = torch.from_numpy(w).requires_grad_()
    tdy = torch.from_numpy(dy)

    def forward():
        with torch.no_grad():
            torch.nn.functional.conv2d(tx, tw, stride=stride, padding=pad)

    y = torch.nn.functional.conv2d(tx, tw, stride=stride, padding=pad)

    def backward():
        inputs = (tx, tw) if c != 3 else (tw,)
        torch.autograd.grad(y, inputs, tdy, retain_graph=True)
    return forward, backward


def _alternate(pairs, reps, clock=time.thread_time):
    """Best and median seconds of ``clock`` (thread CPU time by default) of each
    callable, called in turn ``reps`` times after one warm-up call each."""
    times = [[] for _ in pairs]
    for fn in pairs:
        fn()
    for _ in range(reps):
        for i, fn in enumerate(pairs):
            start = clock()
            fn()
            times[i].append(clock() - start)
    return [(min(t), statistics.median(t)) for t in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--reps', type=int, default=9)
    parser.add_argument('--threads', type=int, default=1,
                        help='threads each side (above 1: wall-clock times)')
    args = parser.parse_args()
    import torch
    torch.set_num_threads(args.threads)
    import symmod as mx
    mx.threads.set_budget(args.threads)
    clock = time.thread_time if args.threads == 1 else time.perf_counter
    rng = np.random.default_rng(0)
    print(harness.environment())
    print('| C -> K | size | kernel, stride | layers | symmod fwd / bwd ms best (median) '
          '| PyTorch fwd / bwd ms best (median) | PyTorch / symmod fwd | bwd | load |')
    print('|---|---|---|---|---|---|---|---|---|')
    totals = np.zeros(4)
    for c, k, size, kernel, stride, layers in SHAPES:
        x = rng.standard_normal((BATCH, c, size, size)).astype(np.float32)
        w = (rng.standard_normal((k, c, kernel, kernel)) / np.sqrt(c * kernel * kernel)
             ).astype(np.float32)
        out = -(-size // stride)
        dy = rng.standard_normal((BATCH, k, out, out)).astype(np.float32)
        load = harness.load_average()
        sf, sb = _symmod_calls(mx, c, k, size, kernel, stride, x, w, dy)
        tf, tb = _torch_calls(torch, c, kernel, stride, x, w, dy)
        (sfb, sfm), (tfb, tfm), (sbb, sbm), (tbb, tbm) = _alternate([sf, tf, sb, tb],
                                                                     args.reps, clock)
        totals += layers * np.array([sfb, sbb, tfb, tbb])
        print('| %d -> %d | %d | %dx%d, %d | %d | %.2f (%.2f) / %.2f (%.2f) | %.2f (%.2f) / '
              '%.2f (%.2f) | %.2f | %.2f | %.1f-%.1f |'
              % (c, k, size, kernel, kernel, stride, layers, 1e3 * sfb, 1e3 * sfm, 1e3 * sbb,
                 1e3 * sbm, 1e3 * tfb, 1e3 * tfm, 1e3 * tbb, 1e3 * tbm, tfb / sfb, tbb / sbb,
                 load, harness.load_average()))
        sys.stdout.flush()
    print('all of one step (best times x layers): symmod %.1f ms, PyTorch %.1f ms, '
          'PyTorch / symmod %.2f' % (1e3 * totals[:2].sum(), 1e3 * totals[2:].sum(),
                                     totals[2:].sum() / totals[:2].sum()))


if __name__ == '__main__':
    main()
