"""Training throughput of convolutional nets: symmod Module.fit vs the same net in PyTorch.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/convnets.py                   # ResNet-20 b64, LeNet b64 and b256
    python benchmarks/convnets.py --cases resnet20:64 --rounds 5
    python benchmarks/convnets.py --profile resnet20:64   # where symmod's time goes

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


def symmod_run(kind, batch, batches):
    import symmod as mx
    x, y = data(kind, batch * batches)
    mod = mx.mod.Module(models.symmod_symbol(kind, mx))
    params = {'learning_rate': LR, 'momentum': MOMENTUM, 'wd': WD}
    warm = mx.io.NDArrayIter(x[:batch * 3], y[:batch * 3], batch)
    mod.fit(warm, optimizer='sgd', optimizer_params=params, initializer=mx.init.Xavier(),
            num_epoch=1)
    train = mx.io.NDArrayIter(x, y, batch)
    start = time.perf_counter()
    mod.fit(train, optimizer='sgd', optimizer_params=params, begin_epoch=1, num_epoch=2)
    return time.perf_counter() - start, mod


def torch_run(kind, batch, batches):
    import torch
    harness.set_torch_threads()
    x, y = data(kind, batch * batches)
    model = models.torch_net(kind)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WD)
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()

    def run(n):
        correct = 0
        for start in range(0, n, batch):
            xb, yb = xt[start:start + batch], yt[start:start + batch]
            opt.zero_grad()
            out = model(xb)
            loss = loss_fn(out, yb)
            loss.backward()
            opt.step()
            correct += int((out.argmax(1) == yb).sum())
        return correct

    run(batch * 3)
    start = time.perf_counter()
    run(len(x))
    return time.perf_counter() - start


def worker(framework, kind, batch, batches):
    import logging
    logging.getLogger().setLevel(logging.ERROR)
    if framework == 'symmod':
        seconds = symmod_run(kind, batch, batches)[0]
    else:
        seconds = torch_run(kind, batch, batches)
    return {'seconds': seconds, 'samples': batch * batches,
            'threads': harness.thread_report(framework)}


def profile(kind, batch, batches):
    """Train in this process and print where symmod's time goes."""
    import symmod as mx
    from op_profile import OpProfile
    _, mod = symmod_run(kind, batch, 3)
    x, y = data(kind, batch * batches)
    train = mx.io.NDArrayIter(x, y, batch)
    with OpProfile(mod) as prof:
        start = time.perf_counter()
        mod.fit(train, optimizer='sgd', optimizer_params={'learning_rate': LR,
                'momentum': MOMENTUM, 'wd': WD}, begin_epoch=1, num_epoch=2)
        total = time.perf_counter() - start
    print('%s batch %d: %d batches, %.1f ms per batch; %s; threads %s'
          % (kind, batch, batches, total / batches * 1e3, harness.environment(),
             harness.thread_report('symmod')))
    prof.report(total, batches)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--cases', default='resnet20:64,lenet:64,lenet:256',
                        help='model:batch, comma separated')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--batches', type=int, default=None,
                        help='timed batches per measurement (default: 20 for ResNet-20, '
                             '50 for LeNet)')
    parser.add_argument('--profile', metavar='MODEL:BATCH', help='profile symmod only')
    parser.add_argument('--worker', nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        import json
        framework, kind, batch, batches = args.worker
        print(json.dumps(worker(framework, kind, int(batch), int(batches))))
        return
    if args.profile:
        kind, batch = args.profile.split(':')
        profile(kind, int(batch), args.batches or 10)
        return
    cases = [(c.split(':')[0], int(c.split(':')[1])) for c in args.cases.split(',')]
    print(harness.environment())
    print('| model | batch | symmod samples/s best (median) | PyTorch samples/s best (median) '
          '| symmod / PyTorch best (median) | load avg | threads |')
    print('|---|---|---|---|---|---|---|')
    for kind, batch in cases:
        batches = args.batches or (20 if kind == 'resnet20' else 50)
        start_load = harness.load_average()
        reports = {}

        def measure(framework):
            r = harness.worker(__file__, [framework, kind, batch, batches])
            reports[framework] = r['threads']
            return r['samples'] / r['seconds']

        res = harness.interleaved(measure, ['symmod', 'torch'], args.rounds)
        (sb, sm), (tb, tm) = (harness.best_median(res[f], max) for f in ('symmod', 'torch'))
        print('| %s | %d | %.0f (%.0f) | %.0f (%.0f) | %.2f (%.2f) | %.1f-%.1f | %s; %s |'
              % (kind, batch, sb, sm, tb, tm, sb / tb, sm / tm, start_load,
                 harness.load_average(), reports['symmod'], reports['torch']), flush=True)


if __name__ == '__main__':
    main()
