"""The gluon Trainer part of ``tools/check_mxnet_loads.py``: ``Trainer.save_states`` files
symmod writes load in real MXNet 1.9.1 and continue training there exactly as in symmod.

:func:`write` (symmod) trains a small gluon net for 3 steps (Adam with a FactorScheduler
on one context; SGD with momentum on two contexts, updates on the kvstore), saves
``Trainer.save_states`` and the parameters, and takes a 4th step; :func:`verify` (MXNet)
loads both files with ``Trainer.load_states`` / ``load_parameters``, takes the same 4th
step and returns the largest difference from symmod's weights.
"""
import os

import numpy as np

CASES = [('adam_factor_1ctx', 'adam', 1), ('sgd_momentum_2ctx', 'sgd', 2)]


def _setup(mx, optimizer, nctx, params_file=None):
    ctxs = [mx.cpu(i) for i in range(nctx)]
    net = mx.gluon.nn.Sequential()
    net.add(mx.gluon.nn.Dense(3, in_units=4, activation='tanh'),
            mx.gluon.nn.Dense(2, in_units=3))
    net.initialize(mx.init.Uniform(0.5), ctx=ctxs)
    if params_file:
        net.load_parameters(params_file, ctx=ctxs)
    if optimizer == 'adam':
        kwargs = {'learning_rate': 0.01,
                  'lr_scheduler': mx.lr_scheduler.FactorScheduler(step=2, factor=0.5,
                                                                  base_lr=0.01)}
    else:
        kwargs = {'learning_rate': 0.1, 'momentum': 0.9}
    return net, mx.gluon.Trainer(net.collect_params(), optimizer, kwargs, kvstore='device'), \
        ctxs


def _step(mx, net, trainer, ctxs, rng):
    x, y = rng.uniform(-1, 1, (6, 4)), rng.uniform(-1, 1, (6, 2))
    xs = mx.gluon.utils.split_and_load(mx.nd.array(x), ctxs)
    ys = mx.gluon.utils.split_and_load(mx.nd.array(y), ctxs)
    with mx.autograd.record():
        losses = [mx.gluon.loss.L2Loss()(net(a), b) for a, b in zip(xs, ys)]
    for loss in losses:
        loss.backward()
    trainer.step(6)


def _weights(net, ctx):
    return [p.data(ctx).asnumpy() for _, p in sorted(net.collect_params().items())]


def write(outdir):
    import symmod as mx
    for case, optimizer, nctx in CASES:
        mx.random.seed(0)
        net, trainer, ctxs = _setup(mx, optimizer, nctx)
        rng = np.random.RandomState(1)
        for _ in range(3):
            _step(mx, net, trainer, ctxs, rng)
        trainer.save_states(os.path.join(outdir, case + '.states'))
        net.save_parameters(os.path.join(outdir, case + '.params'))
        _step(mx, net, trainer, ctxs, rng)
        np.savez(os.path.join(outdir, case + '.npz'), *_weights(net, ctxs[0]))


def verify(outdir):
    import mxnet as mx
    worst = 0.0
    for case, optimizer, nctx in CASES:
        net, trainer, ctxs = _setup(mx, optimizer, nctx, os.path.join(outdir, case + '.params'))
        trainer.load_states(os.path.join(outdir, case + '.states'))
        rng = np.random.RandomState(1)
        for _ in range(3):                      # the same data stream as symmod's
            rng.uniform(-1, 1, (6, 4)), rng.uniform(-1, 1, (6, 2))
        _step(mx, net, trainer, ctxs, rng)
        expected = np.load(os.path.join(outdir, case + '.npz'))
        diff = max(float(np.abs(a - expected['arr_%d' % i]).max())
                   for i, a in enumerate(_weights(net, ctxs[0])))
        print('%-8s %s num_update %d after Trainer.load_states: max |MXNet - symmod| after '
              'one more step = %.3g' % (case, type(trainer._optimizer).__name__,
                                        trainer._optimizer.num_update, diff))
        worst = max(worst, diff)
    return worst
