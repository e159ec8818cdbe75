"""Data and networks shared by the module tests (a uniquely named module: several test
folders have a conftest.py, so ``from conftest import`` would be ambiguous)."""
import gzip
import pathlib

import numpy as np

import symmod as mx

ROOT = pathlib.Path(__file__).resolve().parents[2]
MNIST = ROOT / 'examples' / 'mnist' / 'data'
REF = ROOT / 'tests' / 'data' / 'mxnet-reference'


def read_idx(path):
    """Images (flattened, / 255) or labels from an IDX .gz file, as float32."""
    raw = gzip.open(path).read()
    if raw[2:4] == b'\x08\x03':
        count = int.from_bytes(raw[4:8], 'big')
        return np.frombuffer(raw, np.uint8, offset=16).reshape(count, 784).astype(np.float32) / 255
    return np.frombuffer(raw, np.uint8, offset=8).astype(np.float32)


def mlp_symbol(hidden=(128, 64)):
    """The reference MLP: 784 -> 128 -> 64 -> 10 with relu, softmax output."""
    net = mx.sym.var('data')
    for i, width in enumerate(hidden):
        net = mx.sym.FullyConnected(net, num_hidden=width, name='fc%d' % (i + 1))
        net = mx.sym.Activation(net, act_type='relu', name='relu%d' % (i + 1))
    net = mx.sym.FullyConnected(net, num_hidden=10, name='fc%d' % (len(hidden) + 1))
    return mx.sym.SoftmaxOutput(net, name='softmax')
