"""gluon ``Trainer.save_states`` files written by MXNet 1.9.1, and the steps that follow them.

Run with the MXNet 1.9.1 environment (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_trainer_states.py

For each case a two-layer Dense net with fixed weights is trained 3 steps on fixed data,
then ``Trainer.save_states`` writes ``<case>.states`` (a pickle of the updater states and
the optimizer object: ``Updater.get_states(dump_optimizer=True)``) and
``net.save_parameters`` writes ``<case>-0003.params``; 2 more steps follow. Written under
tests/data/mxnet-reference/trainer_states/:

  <case>.states, <case>-0003.params   the files after step 3
  expected.npz                        the inputs (x, y) and, per case, every parameter
                                      after step 5 ('<case>/<param name>')

Cases: sgd_momentum_1ctx, adam_factor_1ctx (Adam with a FactorScheduler), sgd_momentum_2ctx
(cpu(0) and cpu(1), updates on the kvstore), adam_factor_2ctx_local (two contexts, one
updater per context, update_on_kvstore=False).
"""
import os
import sys

import mxnet as mx
import numpy as np
from mxnet import gluon

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'mxnet-reference',
                   'trainer_states')

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'gluon'))
from trainer_states_cases import CASES, make_net, step  # noqa: E402  (shared with the test)


def fixed_net(ctxs):
    net = make_net(mx, ctxs)
    rng = np.random.RandomState(0)
    for _, param in sorted(net.collect_params().items()):
        param.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, param.shape)))
    return net


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (6, 4)).astype(np.float32)
    y = rng.uniform(-1, 1, (6, 2)).astype(np.float32)
    expected = {'x': x, 'y': y}
    for case, spec in CASES.items():
        ctxs = [mx.cpu(i) for i in range(spec['ctxs'])]
        net = fixed_net(ctxs)
        params = dict(spec['params'])
        if 'scheduler' in spec:
            params['lr_scheduler'] = mx.lr_scheduler.FactorScheduler(
                base_lr=params['learning_rate'], **spec['scheduler'])
        trainer = gluon.Trainer(net.collect_params(), spec['optimizer'], params,
                                kvstore='device', update_on_kvstore=spec['uok'])
        for _ in range(3):
            step(mx, net, trainer, x, y, ctxs)
        trainer.save_states(os.path.join(OUT, case + '.states'))
        net.save_parameters(os.path.join(OUT, case + '-0003.params'))
        for _ in range(2):
            step(mx, net, trainer, x, y, ctxs)
        for name, param in net.collect_params().items():
            expected['%s/%s' % (case, name)] = param.data(ctxs[0]).asnumpy()
        print(case, 'update_on_kvstore:', trainer._update_on_kvstore,
              'num_update:', trainer._optimizer.num_update)
    np.savez(os.path.join(OUT, 'expected.npz'), **expected)


if __name__ == '__main__':
    main()
