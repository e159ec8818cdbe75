"""Training throughput of convolutional nets: symmod Module.fit vs the same net in PyTorch.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/convnets.py                   # ResNet-20 b64, LeNet b64 and b256
    python benchmarks/convnets.py --cases resnet20:64 --rounds 5
    python benchmarks/convnets.py --profile resnet20:64   # where symmod's time goes
    python benchmarks/convnets.py --profile resnet20:64 --threads 1   # ... at one thread

Both sides train on the same random float32 images (and labels) in memory, in the same
order, with SGD (momentum 0.9, weight decay 1e-4) and training accuracy every batch.
symmod runs ``Module.fit`` over an ``NDArrayIter``; PyTorch a plain loop (zero_grad,
forward, cross-entropy, backward, step). Each measurement is a fresh process: a warm-up
of 3 batches, then ``--batches`` timed batches; the two sides alternate for ``--rounds``
rounds; best and median samples/s are reported with the load average and the threads
each side used (PyTorch: as many as symmod's budget).

Networks: see ``models.py`` (ResNet-20 for 32x32x3 CIFAR shapes; LeNet on 28x28x1).
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import models   # noqa: E402

LR, MOMENTUM, WD = 0.05, 0.9, 1e-4


def data(kind, n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n,) + models.INPUT_SHAPES[kind]).astype(np.float32)
    y = rng.integers(0, 10, n).astype(np.float32)
    return x, y


def symmod_run(kind, batch, batches, contexts=1):
    import symmod as mx
    x, y = data(kind, batch * batches)
    mod = mx.mod.Module(models.symmod_symbol(kind, mx),
                        context=[mx.cpu(i) for i in range(contexts)])
    params = {'learning_rate': LR, 'momentum': MOMENTUM, 'wd': WD}
    warm = mx.io.NDArrayIter(x[:batch * 3], y[:batch * 3], batch)
    mod.fit(warm, optimizer='sgd', optimizer_params=params, initializer=mx.init.Xavier(),
            num_epoch=1)
    train = mx.io.NDArrayIter(x, y, batch)
    start, cpu = time.perf_counter(), time.process_time()
    mod.fit(train, optimizer='sgd', optimizer_params=params, begin_epoch=1, num_epoch=2)
    return time.perf_counter() - start, time.process_time() - cpu, mod


def torch_run(kind, batch, batches):
    import torch
    harness.set_torch_threads()
    x, y = data(kind, batch * batches)
    model = models.torch_net(kind)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WD)
    run = harness.torch_training(model, opt, x, y, batch)
    run(batch * 3)
    start, cpu = time.perf_counter(), time.process_time()
    run(len(x))
    return time.perf_counter() - start, time.process_time() - cpu


def worker(framework, kind, batch, batches):
    import logging
    logging.getLogger().setLevel(logging.ERROR)
    if framework == 'symmod':
        seconds, cpu = symmod_run(kind, batch, batches)[:2]
    else:
        seconds, cpu = torch_run(kind, batch, batches)
    return {'seconds': seconds, 'cpu': cpu, 'samples': batch * batches,
            'threads': harness.thread_report(framework)}


def profile(kind, batch, batches):
    """Train in this process and print where symmod's time goes."""
    import symmod as mx
    from op_profile import OpProfile
    mod = symmod_run(kind, batch, 3)[2]
    x, y = data(kind, batch * batches)
    train = mx.io.NDArrayIter(x, y, batch)
    import op_profile
    clock = op_profile._clock
    with OpProfile(mod) as prof:
        start = clock()
        mod.fit(train, optimizer='sgd', optimizer_params={'learning_rate': LR,
                'momentum': MOMENTUM, 'wd': WD}, begin_epoch=1, num_epoch=2)
        total = clock() - start
    print('%s batch %d: %d batches, %.1f ms per batch (%s); %s; threads %s'
          % (kind, batch, batches, total / batches * 1e3, clock.__name__,
             harness.environment(),
             harness.thread_report('symmod')))
    prof.report(total, batches)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cases', default='resnet20:64,lenet:64,lenet:256',
                        help='model:batch, comma separated')
    parser.add_argument('--batches', type=int, default=None,
                        help='timed batches per measurement (default: 20 for ResNet-20, '
                             '50 for LeNet)')
    parser.add_argument('--profile', metavar='MODEL:BATCH', help='profile symmod only')
    harness.add_arguments(parser, 4)
    args = parser.parse_args()
    if args.worker:
        import json
        framework, kind, batch, batches = args.worker
        print(json.dumps(worker(framework, kind, int(batch), int(batches))))
        return
    if args.profile:
        kind, batch = args.profile.split(':')
        if args.threads:
            import symmod
            symmod.threads.set_budget(args.threads)
        profile(kind, int(batch), args.batches or 10)
        return
    cases = [(c.split(':')[0], int(c.split(':')[1])) for c in args.cases.split(',')]
    env = harness.thread_env(args.threads)
    print(harness.environment())
    print('| model | batch | symmod samples/s best (median) | PyTorch samples/s best (median) '
          '| symmod / PyTorch best (median) | CPU time PyTorch / symmod | load avg '
          '| threads |')
    print('|---|---|---|---|---|---|---|---|')
    for kind, batch in cases:
        batches = args.batches or (20 if kind == 'resnet20' else 50)
        res, cpu, reports, loads = harness.side_by_side(
            __file__, [kind, batch, batches], env, args.rounds,
            lambda r: r['samples'] / r['seconds'])
        (sb, sm), (tb, tm) = (harness.best_median(res[f], max) for f in ('symmod', 'torch'))
        print('| %s | %d | %.0f (%.0f) | %.0f (%.0f) | %.2f (%.2f) | %.2f | %.1f-%.1f '
              '| %s; %s |' % ((kind, batch, sb, sm, tb, tm, sb / tb, sm / tm,
                               min(cpu['torch']) / min(cpu['symmod'])) + loads
                              + (reports['symmod'], reports['torch'])), flush=True)

if __name__ == '__main__':
    main()
