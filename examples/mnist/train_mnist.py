"""Train an MLP or LeNet on MNIST with Module.fit (MXNet's train_mnist.py, for symmod).

By default it uses the 5,000 real MNIST digits shipped in examples/mnist/data/
(4,000 train, 1,000 test). Point --data-dir at a folder with the full MNIST IDX files
(train-images-idx3-ubyte[.gz], ...) to train on all 70,000.

    python examples/mnist/train_mnist.py --network lenet --num-epochs 10
    python examples/mnist/train_mnist.py --model-prefix /tmp/mlp --num-epochs 4
    python examples/mnist/train_mnist.py --model-prefix /tmp/mlp --load-epoch 4 --num-epochs 8

On several processes (or machines, with -H hostfile), as MXNet's examples do it: each
worker reads its own part of the training digits, every worker runs the same number of
batches per epoch (mx.io.ResizeIter), and only rank 0 writes checkpoints:

    python -m symmod.launch -n 2 python examples/mnist/train_mnist.py --kv-store dist_sync
"""
import argparse
import gzip
import logging
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(HERE, '..', '..'))   # a checkout's symmod, without pip install
import symmod as mx  # noqa: E402  (the example runs from a checkout too)
from symmod.progress import FirstBatchNotice, kernels_cached  # noqa: E402
from symbols import NETWORKS  # noqa: E402

DEFAULT_DATA = os.path.join(HERE, 'data')


def _open(path):
    if os.path.exists(path):
        return open(path, 'rb')
    if os.path.exists(path + '.gz'):
        return gzip.open(path + '.gz', 'rb')
    raise FileNotFoundError('MNIST file %s(.gz) not found' % path)


def read_data(data_dir, label_file, image_file):
    """Read one IDX label file and one IDX image file into numpy arrays."""
    with _open(os.path.join(data_dir, label_file)) as f:
        magic, count = struct.unpack('>II', f.read(8))
        if magic != 2049:
            raise ValueError('%s: not an IDX label file (magic %d)' % (label_file, magic))
        label = np.frombuffer(f.read(), dtype=np.uint8).astype(np.float32)
    with _open(os.path.join(data_dir, image_file)) as f:
        magic, count, rows, cols = struct.unpack('>IIII', f.read(16))
        if magic != 2051:
            raise ValueError('%s: not an IDX image file (magic %d)' % (image_file, magic))
        image = np.frombuffer(f.read(), dtype=np.uint8).reshape(count, 1, rows, cols)
    return label, image.astype(np.float32) / 255


def get_mnist_iter(args, num_parts=1, part_index=0):
    """Shuffled training iterator over part ``part_index`` of ``num_parts`` equal parts
    of the training digits (MNISTIter's split), and the validation iterator."""
    train_lbl, train_img = read_data(args.data_dir, 'train-labels-idx1-ubyte',
                                     'train-images-idx3-ubyte')
    val_lbl, val_img = read_data(args.data_dir, 't10k-labels-idx1-ubyte',
                                 't10k-images-idx3-ubyte')
    start = int(len(train_lbl) / num_parts * part_index)
    end = int(len(train_lbl) / num_parts * (part_index + 1))
    train = mx.io.NDArrayIter(train_img[start:end], train_lbl[start:end], args.batch_size,
                              shuffle=True)
    val = mx.io.NDArrayIter(val_img, val_lbl, args.batch_size)
    return train, val, len(train_lbl)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='train mnist',
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--network', default='mlp', choices=sorted(NETWORKS))
    parser.add_argument('--data-dir', default=DEFAULT_DATA,
                        help='folder with the MNIST IDX files (gzip or not)')
    parser.add_argument('--num-classes', type=int, default=10)
    parser.add_argument('--batch-size', type=int, default=64)
    parser.add_argument('--num-epochs', type=int, default=10)
    parser.add_argument('--lr', type=float, default=0.05)
    parser.add_argument('--lr-factor', type=float, default=0.1,
                        help='ratio to reduce the lr at each --lr-step-epochs')
    parser.add_argument('--lr-step-epochs', default='',
                        help='epochs at which to reduce the lr, e.g. 10,20')
    parser.add_argument('--optimizer', default='sgd')
    parser.add_argument('--mom', type=float, default=0.9, help='momentum for sgd')
    parser.add_argument('--wd', type=float, default=0.0001, help='weight decay')
    parser.add_argument('--kv-store', default='device', help='key-value store type')
    parser.add_argument('--num-cpus', type=int, default=1,
                        help='data parallel over this many CPU contexts')
    parser.add_argument('--disp-batches', type=int, default=20,
                        help='log speed every this many batches')
    parser.add_argument('--model-prefix', help='save a checkpoint after every epoch here')
    parser.add_argument('--load-epoch', type=int,
                        help='resume from this epoch of --model-prefix (exactly, when the '
                             'optimizer states were saved too)')
    parser.add_argument('--seed', type=int, default=42)
    return parser.parse_args(argv)


def _lr_scheduler(args, epoch_size):
    if not args.lr_step_epochs or args.lr_factor >= 1:
        return None
    steps = [epoch_size * int(e) for e in args.lr_step_epochs.split(',')]
    return mx.lr_scheduler.MultiFactorScheduler(step=steps, factor=args.lr_factor,
                                                base_lr=args.lr)


def main(argv=None):
    args = parse_args(argv)
    # a distributed store is made first: its rank names this process in the log
    kv = mx.kv.create(args.kv_store) if 'dist' in args.kv_store else args.kv_store
    rank, workers = (kv.rank, kv.num_workers) if 'dist' in args.kv_store else (0, 1)
    logging.basicConfig(level=logging.INFO,
                        format='%(asctime)-15s Node[' + str(rank) + '] %(message)s')
    logging.info('start with arguments %s', args)
    np.random.seed(args.seed)
    mx.random.seed(args.seed)
    train, val, num_examples = get_mnist_iter(args, workers, rank)
    logging.info('data loaded: %d training and %d test digits from %s', train.num_data,
                 val.num_data, args.data_dir)
    epoch_size = -(-train.num_data // args.batch_size)
    if 'dist' in args.kv_store and 'async' not in args.kv_store:
        # every worker must run the same number of batches (MXNet's fit.py rule)
        epoch_size = -(-int(num_examples / workers) // args.batch_size)
        logging.info('Resizing training data to %d batches per machine', epoch_size)
        train = mx.io.ResizeIter(train, epoch_size)
    network = NETWORKS[args.network](args.num_classes)
    contexts = [mx.cpu(i) for i in range(args.num_cpus)]

    if args.load_epoch is not None:
        if not args.model_prefix:
            raise SystemExit('--load-epoch needs --model-prefix')
        states = '%s-%04d.states' % (args.model_prefix, args.load_epoch)
        model = mx.mod.Module.load(args.model_prefix, args.load_epoch,
                                   load_optimizer_states=os.path.exists(states),
                                   context=contexts)
        logging.info('Loaded model %s-%04d.params%s', args.model_prefix, args.load_epoch,
                     ' and its optimizer states' if os.path.exists(states) else '')
    else:
        model = mx.mod.Module(network, context=contexts)

    optimizer_params = {'learning_rate': args.lr, 'wd': args.wd}
    scheduler = _lr_scheduler(args, epoch_size)
    if scheduler is not None:
        optimizer_params['lr_scheduler'] = scheduler
    if args.optimizer in ('sgd', 'dcasgd', 'nag', 'signum', 'lbsgd'):
        optimizer_params['momentum'] = args.mom
    checkpoint = None
    if args.model_prefix and rank == 0:     # one copy of each checkpoint, from rank 0
        checkpoint = mx.callback.module_checkpoint(model, args.model_prefix,
                                                   save_optimizer_states=True)
    if not kernels_cached():
        logging.info('compiling kernels (first run only) ...')
    model.fit(train,
              eval_data=val,
              eval_metric='accuracy',
              begin_epoch=args.load_epoch or 0,
              num_epoch=args.num_epochs,
              kvstore=kv,
              optimizer=args.optimizer,
              optimizer_params=optimizer_params,
              initializer=mx.init.Xavier(rnd_type='gaussian', factor_type='in', magnitude=2),
              batch_end_callback=[mx.callback.Speedometer(args.batch_size, args.disp_batches),
                                  FirstBatchNotice()],
              epoch_end_callback=checkpoint)
    # score() counts the padding of the last batch, as MXNet does; predict() drops it
    prob = model.predict(val).asnumpy()
    accuracy = float(np.mean(prob.argmax(axis=1) == val.label[0][1].asnumpy()))
    logging.info('Final test accuracy: %.4f (%d test digits)', accuracy, len(prob))
    return accuracy


if __name__ == '__main__':
    main()
