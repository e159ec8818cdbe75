"""Check by hand that checkpoints symmod writes load in real MXNet 1.9.1 and give the
same outputs there.

    python tools/check_mxnet_loads.py --mxnet-python /path/to/mxnet-venv/bin/python

With symmod's Python, the script trains small networks for a few steps (an MLP, a
convolutional net with BatchNorm, an unrolled two-layer LSTM language model, a gluon
network exported as a SymbolBlock checkpoint), saves each with ``save_checkpoint``
(``prefix-symbol.json`` + ``prefix-0001.params``) together with an input batch and
symmod's outputs, then runs itself under MXNet's Python (``--verify``) which loads every
checkpoint with ``mx.model.load_checkpoint``, binds it and compares the outputs. gluon
``Trainer.save_states`` files are checked the same way (``mxnet_trainer_states.py``:
MXNet loads them and its next step equals symmod's).
Not part of the test suite: MXNet is never a dependency of symmod.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import mxnet_trainer_states  # the same directory (tools/)

TOLERANCE = 1e-5


def _networks(mx):
    """name -> (symbol, data shapes, label shapes) of the networks to check."""
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(mx.sym.Flatten(data), num_hidden=32, name='fc1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.FullyConnected(net, num_hidden=10, name='fc2')
    mlp = mx.sym.SoftmaxOutput(net, name='softmax')

    net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, pad=(1, 1), name='conv1')
    net = mx.sym.BatchNorm(net, fix_gamma=False, name='bn1')
    net = mx.sym.Activation(net, act_type='relu', name='relu1')
    net = mx.sym.Pooling(net, kernel=(2, 2), stride=(2, 2), pool_type='max', name='pool1')
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=10, name='fc1')
    convnet = mx.sym.SoftmaxOutput(net, name='softmax')

    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=16, prefix='lstm_l%d_' % i))
    embed = mx.sym.Embedding(data, input_dim=50, output_dim=12, name='embed')
    outputs, _ = stack.unroll(7, inputs=embed, merge_outputs=True)
    pred = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-1, 16)), num_hidden=50,
                                 name='pred')
    label = mx.sym.Reshape(mx.sym.var('softmax_label'), shape=(-1,))
    lstm = mx.sym.SoftmaxOutput(pred, label, name='softmax')
    return {'mlp': (mlp, [('data', (6, 1, 5, 5))], [('softmax_label', (6,))]),
            'convnet': (convnet, [('data', (6, 2, 6, 6))], [('softmax_label', (6,))]),
            'lstm': (lstm, [('data', (4, 7))], [('softmax_label', (4, 7))])}


def _random_batch(mx, rng, data_shapes, label_shapes, vocab=None):
    def draw(shape, high):
        return rng.integers(0, high, shape).astype(np.float32)
    data = [draw(s, vocab) if vocab else rng.standard_normal(s).astype(np.float32)
            for _, s in data_shapes]
    label = [draw(s, vocab or 10) for _, s in label_shapes]
    return mx.io.DataBatch([mx.nd.array(x) for x in data], [mx.nd.array(y) for y in label])


def write(outdir):
    """Train each network a few steps with symmod and save checkpoint, inputs, outputs."""
    import symmod as mx
    rng = np.random.default_rng(0)
    manifest = {}
    for name, (sym, data_shapes, label_shapes) in _networks(mx).items():
        mod = mx.mod.Module(sym, data_names=[d for d, _ in data_shapes],
                            label_names=[d for d, _ in label_shapes])
        mod.bind(data_shapes, label_shapes)
        mod.init_params(mx.init.Xavier())
        mod.init_optimizer(optimizer='adam', optimizer_params={'learning_rate': 0.01})
        vocab = 50 if name == 'lstm' else None
        for _ in range(3):
            mod.forward_backward(_random_batch(mx, rng, data_shapes, label_shapes, vocab))
            mod.update()
        batch = _random_batch(mx, rng, data_shapes, label_shapes, vocab)
        mod.forward(batch, is_train=False)
        prefix = os.path.join(outdir, name)
        mod.save_checkpoint(prefix, 1)
        np.savez(prefix + '-io.npz', data=batch.data[0].asnumpy(),
                 output=mod.get_outputs()[0].asnumpy())
        manifest[name] = {'data_shapes': data_shapes, 'label_shapes': label_shapes}

    net = mx.gluon.nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(16, activation='tanh'), mx.gluon.nn.BatchNorm(),
                mx.gluon.nn.Dense(4))
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(rng.standard_normal((5, 9)))
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    for _ in range(2):
        with mx.autograd.record():
            loss = (net(x) ** 2).mean()
        loss.backward()
        trainer.step(5)
    net.hybridize()
    out = net(x)
    net.export(os.path.join(outdir, 'gluon'), epoch=1)
    np.savez(os.path.join(outdir, 'gluon-io.npz'), data=x.asnumpy(), output=out.asnumpy())
    manifest['gluon'] = {'data_shapes': [('data', (5, 9))], 'label_shapes': []}
    with open(os.path.join(outdir, 'manifest.json'), 'w') as f:
        json.dump(manifest, f)
    mxnet_trainer_states.write(outdir)


def verify(outdir):
    """Run under MXNet: load every checkpoint and compare outputs with symmod's."""
    import mxnet as mx
    with open(os.path.join(outdir, 'manifest.json')) as f:
        manifest = json.load(f)
    worst = 0.0
    for name, spec in manifest.items():
        prefix = os.path.join(outdir, name)
        sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, 1)
        io = np.load(prefix + '-io.npz')
        data_shapes = spec['data_shapes']
        label_names = [d for d, _ in spec['label_shapes']]
        mod = mx.mod.Module(sym, data_names=[d for d, _ in data_shapes],
                            label_names=label_names or None)
        label_shapes = [(n, tuple(s)) for n, s in spec['label_shapes']]
        mod.bind([(n, tuple(s)) for n, s in data_shapes], label_shapes or None,
                 for_training=False)
        mod.set_params(arg_params, aux_params)
        labels = [mx.nd.zeros(s) for _, s in label_shapes]
        mod.forward(mx.io.DataBatch([mx.nd.array(io['data'])], labels), is_train=False)
        got = mod.get_outputs()[0].asnumpy()
        diff = float(np.abs(got - io['output']).max())
        worst = max(worst, diff)
        print('%-8s %d params, %d aux: max |MXNet - symmod| = %.3g'
              % (name, len(arg_params), len(aux_params), diff))
    worst = max(worst, mxnet_trainer_states.verify(outdir))
    print('worst difference %.3g (tolerance %g)' % (worst, TOLERANCE))
    return 0 if worst <= TOLERANCE else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--mxnet-python', help="MXNet 1.9.1's Python interpreter")
    parser.add_argument('--verify', metavar='DIR', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.verify:
        return verify(args.verify)
    if not args.mxnet_python:
        parser.error('--mxnet-python is required')
    with tempfile.TemporaryDirectory() as outdir:
        write(outdir)
        return subprocess.call([args.mxnet_python, os.path.abspath(__file__),
                                '--verify', outdir])


if __name__ == '__main__':
    sys.exit(main())
