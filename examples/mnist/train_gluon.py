"""Train the MNIST MLP (784-128-64-10) with gluon: autograd.record, backward, Trainer.step.

The gluon counterpart of ``train_mnist.py --network mlp`` (Module.fit): the same data
(by default the 5,000 real MNIST digits in examples/mnist/data/: 4,000 train, 1,000
test), the same network and optimizer (SGD with momentum), the same Xavier
initialization. The digits come from ``gluon.data.vision.MNIST`` through a
``gluon.data.DataLoader``, as in MXNet's gluon MNIST example. Each epoch prints the
training and validation accuracy.

    python examples/mnist/train_gluon.py
    python examples/mnist/train_gluon.py --num-epochs 10 --lr 0.1 --mom 0.9 --batch-size 100
    python examples/mnist/train_gluon.py --num-cpus 2        # data parallel on 2 contexts
"""
import argparse
import logging
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
import symmod as mx  # noqa: E402  (the example runs from a checkout too)
from symmod.progress import kernels_cached  # noqa: E402
from symmod import autograd, gluon  # noqa: E402

DEFAULT_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data')


def transformer(data, label):
    """(28, 28, 1) uint8 digit -> 784 float32 pixels / 255; the label as float32."""
    return data.reshape((-1,)).astype(np.float32) / 255, np.float32(label)


def load_mnist(data_dir, batch_size):
    """DataLoaders over the training (shuffled each epoch) and test digits."""
    train_data = gluon.data.DataLoader(
        gluon.data.vision.MNIST(data_dir, train=True, transform=transformer),
        batch_size=batch_size, shuffle=True, last_batch='discard')
    val_data = gluon.data.DataLoader(
        gluon.data.vision.MNIST(data_dir, train=False, transform=transformer),
        batch_size=batch_size, shuffle=False)
    return train_data, val_data


def build_mlp():
    """784-128-64-10 with ReLU, as ``symbols.py``'s mlp."""
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(128, activation='relu'))
        net.add(gluon.nn.Dense(64, activation='relu'))
        net.add(gluon.nn.Dense(10))
    return net


def evaluate(net, val_data, contexts):
    """Accuracy of ``net`` over the batches of ``val_data``."""
    metric = mx.metric.Accuracy()
    for data, label in val_data:
        xs = gluon.utils.split_and_load(data, contexts, even_split=False)
        ys = gluon.utils.split_and_load(label, contexts, even_split=False)
        metric.update(ys, [net(x) for x in xs])
    return metric.get()[1]


def train(args):
    train_data, val_data = load_mnist(args.data_dir, args.batch_size)
    logging.info('data loaded from %s', args.data_dir)
    np.random.seed(args.seed)
    mx.random.seed(args.seed)
    contexts = [mx.cpu(i) for i in range(args.num_cpus)]

    net = build_mlp()
    net.initialize(mx.init.Xavier(), ctx=contexts)
    if args.hybridize:
        net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), args.optimizer,
                            {'learning_rate': args.lr, 'momentum': args.mom, 'wd': args.wd},
                            kvstore=args.kv_store)
    metric = mx.metric.Accuracy()
    if not kernels_cached():
        logging.info('compiling kernels (first run only) ...')
    start = time.time()
    for epoch in range(args.num_epochs):
        tic = time.time()
        metric.reset()
        for data, label in train_data:
            xs = gluon.utils.split_and_load(data, contexts)
            ys = gluon.utils.split_and_load(label, contexts)
            with autograd.record():
                outputs = [net(x) for x in xs]
                losses = [loss_fn(out, y) for out, y in zip(outputs, ys)]
            autograd.backward(losses)
            trainer.step(data.shape[0])
            metric.update(ys, outputs)
            if start is not None:
                logging.info('first batch done after %.1f s', time.time() - start)
                start = None
        name, train_acc = metric.get()
        logging.info('Epoch[%d] Train-%s=%f', epoch, name, train_acc)
        logging.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)
        logging.info('Epoch[%d] Validation-%s=%f', epoch, name,
                     evaluate(net, val_data, contexts))
    return net


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='train the MNIST MLP with gluon',
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--data-dir', default=DEFAULT_DATA,
                        help='folder with the MNIST IDX files (gzip or not)')
    parser.add_argument('--batch-size', type=int, default=100)
    parser.add_argument('--num-epochs', type=int, default=10)
    parser.add_argument('--optimizer', default='sgd')
    parser.add_argument('--lr', type=float, default=0.1)
    parser.add_argument('--mom', type=float, default=0.9, help='momentum')
    parser.add_argument('--wd', type=float, default=0.0, help='weight decay')
    parser.add_argument('--kv-store', default='device', help='key-value store type')
    parser.add_argument('--num-cpus', type=int, default=1,
                        help='data parallel over this many CPU contexts')
    parser.add_argument('--hybridize', action='store_true', help='run the graph')
    parser.add_argument('--seed', type=int, default=42)
    return parser.parse_args(argv)


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO, format='%(message)s')
    train(parse_args())
