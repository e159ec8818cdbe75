"""Shared fixtures for module tests: small real-MNIST subsets and the reference MLP."""
import gzip
import pathlib

import numpy as np
import pytest

import symmod as mx

ROOT = pathlib.Path(__file__).resolve().parents[2]
MNIST = ROOT / 'examples' / 'mnist' / 'data'
REF = ROOT / 'tests' / 'data' / 'mxnet-reference'


def _idx(path):
    raw = gzip.open(path).read()
    if raw[2:4] == b'\x08\x03':
        count = int.from_bytes(raw[4:8], 'big')
        return np.frombuffer(raw, np.uint8, offset=16).reshape(count, 784).astype(np.float32) / 255
    return np.frombuffer(raw, np.uint8, offset=8).astype(np.float32)


@pytest.fixture(scope='session')
def mnist():
    """(train_x, train_y, test_x, test_y) of the bundled digits, pixels / 255."""
    return (_idx(MNIST / 'train-images-idx3-ubyte.gz'), _idx(MNIST / 'train-labels-idx1-ubyte.gz'),
            _idx(MNIST / 't10k-images-idx3-ubyte.gz'), _idx(MNIST / 't10k-labels-idx1-ubyte.gz'))


def mlp_symbol(hidden=(128, 64)):
    """The reference MLP: 784 -> 128 -> 64 -> 10 with relu, softmax output."""
    net = mx.sym.var('data')
    for i, width in enumerate(hidden):
        net = mx.sym.FullyConnected(net, num_hidden=width, name='fc%d' % (i + 1))
        net = mx.sym.Activation(net, act_type='relu', name='relu%d' % (i + 1))
    net = mx.sym.FullyConnected(net, num_hidden=10, name='fc%d' % (len(hidden) + 1))
    return mx.sym.SoftmaxOutput(net, name='softmax')


@pytest.fixture(autouse=True)
def _fresh_names():
    with mx.name.NameManager():
        yield
