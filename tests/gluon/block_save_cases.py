"""The models tests/gluon/test_block_save_load.py and its MXNet generator
(tests/data/gen/gen_block_save_reference.py) save and load, built by a given ``mx``."""
import numpy as np


def hybrid_net(mx):
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, activation='relu'))
        net.add(nn.BatchNorm())
        net.add(nn.Dense(2))
    return net


def plain_net(mx):
    nn = mx.gluon.nn
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(3, activation='tanh'))
        net.add(nn.Dense(2))
    return net


MODELS = {'hybrid': hybrid_net, 'plain': plain_net}


def model_input():
    return np.linspace(-1, 1, 15, dtype=np.float32).reshape(3, 5)
