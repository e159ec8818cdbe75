"""Sparse logistic regression: LibSVM data in csr batches, a row_sparse weight updated
lazily (MXNet's example/sparse/linear_classification, for symmod).

The bundled MNIST digits (examples/mnist/data) are written as LibSVM files (one feature
per non-zero pixel, zero-based indices), read back with mx.io.LibSVMIter, and a linear
softmax classifier ``dot(csr data, row_sparse weight) + bias`` is trained with Module.
Each batch pulls only the weight rows its features touch (``Module.prepare`` with
``sparse_row_id_fn``) and the optimizer updates only those rows (``lazy_update``).

    python examples/sparse/linear_classification.py --optimizer adam --num-epochs 5
    python examples/sparse/linear_classification.py --optimizer ftrl --lr 0.1

On several processes each worker reads its own part of the LibSVM file:

    python -m symmod.launch -n 2 python examples/sparse/linear_classification.py \
        --kv-store dist_sync
"""
import argparse
import logging
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MNIST = os.path.join(HERE, '..', 'mnist')
sys.path.insert(0, MNIST)
sys.path.insert(1, os.path.join(HERE, '..', '..'))   # a checkout's symmod, without pip install
import symmod as mx  # noqa: E402  (the example runs from a checkout too)
from train_mnist import read_data  # noqa: E402

NUM_FEATURES = 28 * 28
NUM_CLASSES = 10


def write_libsvm(path, label, image):
    """Write digits as LibSVM lines ``label index:value ...`` (non-zero pixels only)."""
    pixels = image.reshape(len(label), -1)
    with open(path, 'w') as f:
        for digit, row in zip(label, pixels):
            columns = np.flatnonzero(row)
            f.write('%d %s\n' % (digit, ' '.join('%d:%.4g' % (c, row[c]) for c in columns)))


def linear_model(num_features, num_classes):
    """softmax(dot(csr data, row_sparse weight) + bias)."""
    data = mx.sym.var('data', stype='csr')
    weight = mx.sym.var('weight', shape=(num_features, num_classes), stype='row_sparse',
                        init=mx.init.Normal(sigma=0.01))
    bias = mx.sym.var('bias', shape=(num_classes,), init=mx.init.Zero())
    logits = mx.sym.broadcast_add(mx.sym.sparse.dot(data, weight), bias)
    return mx.sym.SoftmaxOutput(logits, mx.sym.var('softmax_label'), name='softmax')


def batch_row_ids(batch):
    """The weight rows a batch needs: its csr column indices."""
    return {'weight': batch.data[0].indices}


def all_row_ids(_batch):
    return {'weight': mx.nd.arange(0, NUM_FEATURES, dtype='int64')}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='sparse logistic regression on MNIST',
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--data-dir', default=os.path.join(MNIST, 'data'),
                        help='folder with the MNIST IDX files (gzip or not)')
    parser.add_argument('--work-dir', help='where the LibSVM files go (default: a temporary '
                                           'folder)')
    parser.add_argument('--num-epochs', type=int, default=5)
    parser.add_argument('--batch-size', type=int, default=100)
    parser.add_argument('--optimizer', default='adam',
                        choices=['sgd', 'adam', 'adagrad', 'ftrl'])
    parser.add_argument('--lr', type=float, default=0.01)
    parser.add_argument('--kv-store', default='local', help='key-value store type')
    parser.add_argument('--disp-batches', type=int, default=20)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    kv = mx.kv.create(args.kv_store)
    logging.basicConfig(level=logging.INFO,
                        format='%(asctime)-15s Node[' + str(kv.rank) + '] %(message)s')
    logging.info('start with arguments %s', args)
    mx.random.seed(42)
    work = args.work_dir or tempfile.mkdtemp(prefix='symmod-libsvm-')
    os.makedirs(work, exist_ok=True)
    train_path = os.path.join(work, 'mnist-train.libsvm')
    test_path = os.path.join(work, 'mnist-test.libsvm')
    if kv.rank == 0 and not os.path.exists(test_path):
        for path, names in ((train_path, ('train-labels-idx1-ubyte', 'train-images-idx3-ubyte')),
                            (test_path, ('t10k-labels-idx1-ubyte', 't10k-images-idx3-ubyte'))):
            write_libsvm(path + '.tmp', *read_data(args.data_dir, *names))
            os.replace(path + '.tmp', path)
    if kv.num_workers > 1:
        kv.barrier()        # the files are written once, by rank 0 (a shared --work-dir)
    train = mx.io.LibSVMIter(data_libsvm=train_path, data_shape=(NUM_FEATURES,),
                             batch_size=args.batch_size, num_parts=kv.num_workers,
                             part_index=kv.rank)
    test = mx.io.LibSVMIter(data_libsvm=test_path, data_shape=(NUM_FEATURES,),
                            batch_size=args.batch_size)

    mod = mx.mod.Module(linear_model(NUM_FEATURES, NUM_CLASSES), data_names=['data'],
                        label_names=['softmax_label'])
    mod.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    mod.init_params()
    optimizer = mx.optimizer.create(args.optimizer, learning_rate=args.lr,
                                    rescale_grad=1.0 / args.batch_size / kv.num_workers)
    mod.init_optimizer(optimizer=optimizer, kvstore=kv)
    metric = mx.metric.create(['accuracy', 'ce'])
    speedometer = mx.callback.Speedometer(args.batch_size, args.disp_batches)
    for epoch in range(args.num_epochs):
        metric.reset()
        for nbatch, batch in enumerate(train):
            mod.prepare(batch, sparse_row_id_fn=batch_row_ids)   # pull the rows it needs
            mod.forward_backward(batch)
            mod.update()                                       # lazy: those rows only
            mod.update_metric(metric, batch.label)
            speedometer(mx.model.BatchEndParam(epoch=epoch, nbatch=nbatch,
                                               eval_metric=metric, locals=locals()))
        train.reset()
        mod.prepare(None, sparse_row_id_fn=all_row_ids)        # every row, to evaluate
        for name, value in mod.score(test, ['accuracy', 'ce']):
            logging.info('Epoch[%d] Test-%s=%f', epoch, name, value)
    accuracy = dict(mod.score(test, 'accuracy'))['accuracy']
    logging.info('Final test accuracy: %.4f', accuracy)
    return accuracy


if __name__ == '__main__':
    main()
