"""gluon training, imperative and hybridized, vs PyTorch eager; and the cost of one
imperative operator call.

Run (PyTorch is needed for this benchmark only: ``pip install torch==2.13.0``)::

    python benchmarks/gluon_train.py                  # MLP and LeNet, 3 rounds
    python benchmarks/gluon_train.py --threads 1      # one thread on both sides

Both sides train the same network (``models.py``: the MLP 784-256-128-10 at batch 64,
LeNet at batch 64) on the same random data with SGD (momentum 0.9): symmod as a gluon
``HybridSequential`` under ``autograd.record()`` with ``SoftmaxCrossEntropyLoss`` and
``Trainer.step``, not hybridized and hybridized; PyTorch eager with ``CrossEntropyLoss``
and ``optim.SGD``. Each measurement is a fresh process (3 warm-up batches, then
``--batches`` timed ones); the variants alternate over ``--rounds``.

The dispatch rows time one small operator call (``relu`` on 64x128 float32, outside and
inside ``autograd.record()``) in microseconds, symmod ``mx.nd.relu`` against
``torch.relu``.
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

HIDDEN = (256, 128)
BATCH = 64
LR, MOMENTUM = 0.05, 0.9


def data(kind, n):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n,) + models.INPUT_SHAPES[kind]).astype(np.float32)
    return x, rng.integers(0, 10, n).astype(np.float32)


def symmod_run(kind, hybrid, batches):
    import symmod as mx
    x, y = data(kind, BATCH * (batches + 3))
    net = models.gluon_net(kind, mx, HIDDEN)
    net.initialize(mx.init.Xavier())
    if hybrid:
        net.hybridize()
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd',
                               {'learning_rate': LR, 'momentum': MOMENTUM})
    xs = [mx.nd.array(x[i:i + BATCH]) for i in range(0, len(x), BATCH)]
    ys = [mx.nd.array(y[i:i + BATCH]) for i in range(0, len(y), BATCH)]

    def step(xb, yb):
        with mx.autograd.record():
            loss = loss_fn(net(xb), yb)
        loss.backward()
        trainer.step(BATCH)

    for i in range(3):
        step(xs[i], ys[i])
    loss_fn(net(xs[0]), ys[0]).asnumpy()
    start, cpu = time.perf_counter(), time.process_time()
    for xb, yb in zip(xs[3:], ys[3:]):
        step(xb, yb)
    net.collect_params()[net.prefix + 'dense0_weight' if kind == 'mlp' else
                         net.prefix + 'conv0_weight'].data().asnumpy()
    return time.perf_counter() - start, time.process_time() - cpu


def torch_run(kind, batches):
    import torch
    harness.set_torch_threads()
    x, y = data(kind, BATCH * (batches + 3))
    model = models.torch_net(kind, HIDDEN)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
    xs = [xt[i:i + BATCH] for i in range(0, len(x), BATCH)]
    ys = [yt[i:i + BATCH] for i in range(0, len(y), BATCH)]

    def step(xb, yb):
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()

    for i in range(3):
        step(xs[i], ys[i])
    start, cpu = time.perf_counter(), time.process_time()
    for xb, yb in zip(xs[3:], ys[3:]):
        step(xb, yb)
    return time.perf_counter() - start, time.process_time() - cpu


def dispatch(framework, calls=2000):
    """Microseconds per relu call on a 64x128 array: (plain, recorded)."""
    x = np.random.default_rng(0).standard_normal((64, 128)).astype(np.float32)
    if framework == 'symmod':
        import symmod as mx
        a = mx.nd.array(x)
        b = mx.nd.array(x)
        b.attach_grad()

        def plain():
            mx.nd.relu(a)

        def recorded():
            with mx.autograd.record():
                mx.nd.relu(b)
    else:
        import torch
        harness.set_torch_threads()
        a = torch.from_numpy(x)
        b = torch.from_numpy(x.copy()).requires_grad_(True)

        def plain():
            torch.relu(a)

        def recorded():
            torch.relu(b)
    result = []
    for fn in (plain, recorded):
        fn()
        best = float('inf')
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            best = min(best, (time.perf_counter() - start) / calls)
        result.append(best * 1e6)
    return result


def worker(variant, kind, batches):
    import logging
    logging.getLogger().setLevel(logging.ERROR)
    framework = 'torch' if variant == 'torch' else 'symmod'
    if kind == 'dispatch':
        return {'us': dispatch(framework), 'threads': harness.thread_report(framework)}
    if variant == 'torch':
        seconds, cpu = torch_run(kind, batches)
    else:
        seconds, cpu = symmod_run(kind, variant == 'hybrid', batches)
    return {'seconds': seconds, 'cpu': cpu, 'samples': BATCH * batches,
            'threads': harness.thread_report(framework)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--models', default='mlp,lenet')
    parser.add_argument('--batches', type=int, default=None,
                        help='timed batches (default: 200 for the MLP, 40 for LeNet)')
    harness.add_arguments(parser, 3)
    args = parser.parse_args()
    if args.worker:
        import json
        variant, kind, batches = args.worker
        print(json.dumps(worker(variant, kind, int(batches))))
        return
    env = harness.thread_env(args.threads)
    print(harness.environment())
    print('| model | variant | samples/s best (median) | vs PyTorch best (median) '
          '| CPU time PyTorch / variant | load avg | threads |')
    print('|---|---|---|---|---|---|---|')
    variants = ['imperative', 'hybrid', 'torch']
    for kind in args.models.split(','):
        batches = args.batches or (200 if kind == 'mlp' else 40)
        start_load = harness.load_average()
        reports, cpu = {}, {v: [] for v in variants}

        def measure(variant):
            r = harness.worker(__file__, [variant, kind, batches], env)
            reports[variant] = r['threads']
            cpu[variant].append(r['cpu'])
            return r['samples'] / r['seconds']

        res = harness.interleaved(measure, variants, args.rounds)
        tb, tm = harness.best_median(res['torch'], max)
        end_load = harness.load_average()
        for v in variants:
            b, m = harness.best_median(res[v], max)
            print('| %s | %s | %.0f (%.0f) | %.2f (%.2f) | %.2f | %.1f-%.1f | %s |'
                  % (kind, v, b, m, b / tb, m / tm, min(cpu['torch']) / min(cpu[v]),
                     start_load, end_load, reports[v]), flush=True)
    rows = {v: [] for v in ('symmod', 'torch')}
    for _ in range(args.rounds):
        for v in rows:
            rows[v].append(harness.worker(__file__, [v, 'dispatch', 0], env)['us'])
    print()
    print('| one relu call (64x128) | symmod us | PyTorch us | PyTorch / symmod |')
    print('|---|---|---|---|')
    for i, what in enumerate(('plain', 'under autograd.record')):
        s = min(r[i] for r in rows['symmod'])
        t = min(r[i] for r in rows['torch'])
        print('| %s | %.1f | %.1f | %.2f |' % (what, s, t, t / s))


if __name__ == '__main__':
    main()
