"""The network, data and training runs tests/gluon/test_estimator.py and its MXNet
generator (tests/data/gen/gen_estimator_reference.py) share, built with a given ``mx``."""
import numpy as np

RNG = np.random.RandomState(21)
X = RNG.uniform(-1, 1, (24, 5)).astype(np.float32)
Y = RNG.randint(0, 3, 24).astype(np.float32)
W0 = RNG.uniform(-0.5, 0.5, (3, 5)).astype(np.float32)
B0 = np.zeros(3, np.float32)


def setup(mx, batch_size=6):
    """A Dense(3) net with fixed weights, its loaders (no shuffling) and an SGD trainer."""
    gluon = mx.gluon
    net = gluon.nn.Dense(3, in_units=5, prefix='est_')
    net.initialize()
    net.weight.set_data(mx.nd.array(W0))
    net.bias.set_data(mx.nd.array(B0))
    data = gluon.data.ArrayDataset(mx.nd.array(X), mx.nd.array(Y))
    train = gluon.data.DataLoader(data, batch_size=batch_size, shuffle=False)
    val = gluon.data.DataLoader(data, batch_size=8, shuffle=False)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5,
                                                          'momentum': 0.9})
    return net, train, val, trainer


def estimator(mx, net, trainer):
    est_mod = mx.gluon.contrib.estimator
    return est_mod.Estimator(net, mx.gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer,
                             context=mx.cpu())
