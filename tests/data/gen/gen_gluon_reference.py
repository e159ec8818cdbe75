"""Reference numbers for tests/kvstore and tests/gluon, written by real MXNet 1.9.1.

Run with the MXNet virtual environment (not part of CI), from the repository root:

    /work/mxvenv/bin/python tests/data/gen/gen_gluon_reference.py

Output: tests/data/gluon_reference.npz with
  kv2bit/g<step>_<dev>     gradients pushed on two devices (float32, shape (37,))
  kv2bit/pull<step>        what a 'device' store with 2bit compression (threshold 0.5)
                           returns after each pushpull (3 steps)
  kv2bit_sgd/pull<step>    the same pushes into a store running SGD(lr=0.1, momentum 0.9,
                           rescale_grad=0.5) on a weight initialised to w0
  kv2bit_sgd/w0
  mlp/x, mlp/y             the first 20 test digits (mlp/input.npy) and their labels
  mlp/<uok>/<param>        parameters of the MXNet-written mlp checkpoint imported as a
                           SymbolBlock on [cpu(0), cpu(1)] and trained for 2 steps with
                           Trainer('sgd', lr 0.1, momentum 0.9, wd 1e-4), batch split 10/10,
                           loss = the SoftmaxOutput head, step(20); uok in {uok1, uok0}
                           for update_on_kvstore True / False. Only the first 16 rows are
                           kept (fc1_weight is 128x784), to keep the file small.
  mlp/single/<param>       the same on one context (cpu(0)) with the whole batch
  params/saved_dotted.params  net.save_parameters() of a small HybridSequential
  params/saved_strip.params   collect_params().save(strip_prefix=net.prefix)
  (the two .params files are written next to the npz, under tests/data/gluon/)
  params/<name>            the values of that network's parameters
"""
import os

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..')
MLP = os.path.join(DATA, 'mxnet-reference', 'mlp')
OUT_DIR = os.path.join(DATA, 'gluon')
KEEP_ROWS = 16


def kv_compression(out):
    rng = np.random.RandomState(7)
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.init(0, mx.nd.zeros((37,)))
    kv_sgd = mx.kv.create('device')
    kv_sgd.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    w0 = rng.uniform(-1, 1, (37,)).astype(np.float32)
    out['kv2bit_sgd/w0'] = w0
    kv_sgd.init(0, mx.nd.array(w0))
    kv_sgd.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, rescale_grad=0.5))
    for step in range(3):
        grads = [rng.normal(0, 0.6, (37,)).astype(np.float32) for _ in range(2)]
        for dev, g in enumerate(grads):
            out['kv2bit/g%d_%d' % (step, dev)] = g
        res = mx.nd.zeros((37,))
        kv.pushpull(0, [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(grads)], out=res)
        out['kv2bit/pull%d' % step] = res.asnumpy()
        res = mx.nd.zeros((37,))
        kv_sgd.pushpull(0, [mx.nd.array(g, ctx=mx.cpu(i)) for i, g in enumerate(grads)],
                        out=res)
        out['kv2bit_sgd/pull%d' % step] = res.asnumpy()


def mlp_training(out):
    x = np.load(os.path.join(MLP, 'input.npy'))
    y = np.array([8, 3, 5, 8, 3, 2, 5, 9, 0, 7, 7, 8, 1, 9, 0, 1, 9, 9, 6, 4],
                 dtype=np.float32)
    out['mlp/x'] = x
    out['mlp/y'] = y
    setups = [('uok1', [mx.cpu(0), mx.cpu(1)], True), ('uok0', [mx.cpu(0), mx.cpu(1)], False),
              ('single', [mx.cpu(0)], None)]
    for tag, ctxs, uok in setups:
        net = mx.gluon.SymbolBlock.imports(os.path.join(MLP, 'mlp-symbol.json'),
                                           ['data', 'softmax_label'],
                                           os.path.join(MLP, 'mlp-0003.params'), ctx=ctxs)
        trainer = mx.gluon.Trainer(net.collect_params(), 'sgd',
                                   {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4},
                                   update_on_kvstore=uok)
        xs = mx.gluon.utils.split_and_load(mx.nd.array(x), ctxs)
        ys = mx.gluon.utils.split_and_load(mx.nd.array(y), ctxs)
        for step in (1, 2):
            with mx.autograd.record():
                outs = [net(a, b) for a, b in zip(xs, ys)]
            mx.autograd.backward(outs)
            trainer.step(20)
        for name, param in net.collect_params().items():
            value = param.data(ctxs[0]).asnumpy()
            if len(ctxs) > 1:
                assert np.array_equal(param.data(ctxs[1]).asnumpy(), value)
            out['mlp/%s/%s' % (tag, name)] = value[:KEEP_ROWS]


def saved_params(out):
    os.makedirs(OUT_DIR, exist_ok=True)
    net = mx.gluon.nn.HybridSequential(prefix='model_')
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(4, in_units=3))
        net.add(mx.gluon.nn.Dense(2, in_units=4, use_bias=False))
    net.initialize(mx.init.Uniform(1.0))
    for name, param in net.collect_params().items():
        out['params/%s' % name] = param.data().asnumpy()
    net.save_parameters(os.path.join(OUT_DIR, 'saved_dotted.params'))
    net.collect_params().save(os.path.join(OUT_DIR, 'saved_strip.params'),
                              strip_prefix=net.prefix)


def main():
    mx.random.seed(3)
    np.random.seed(3)
    out = {}
    kv_compression(out)
    mlp_training(out)
    saved_params(out)
    np.savez_compressed(os.path.join(DATA, 'gluon_reference.npz'), **out)
    print('wrote %d arrays' % len(out))


if __name__ == '__main__':
    main()
