"""The networks the benchmarks train, each written for symmod (Symbol and gluon) and for
PyTorch with the same layers.

* ``mlp``: 784-128-64-10 with ReLU (MXNet's MNIST example);
* ``lenet``: conv20-5x5/tanh/maxpool2, conv50-5x5/tanh/maxpool2, fc500/tanh, fc10;
* ``resnet20``: ResNet-20 for CIFAR-10 (He et al. 2016): a 3x3 conv-BN-ReLU stem with
  16 channels, 3 stages of 3 basic blocks (conv3x3-BN-ReLU-conv3x3-BN, plus the
  shortcut, then ReLU) with 16, 32 and 64 channels, the first block of stages 2 and 3
  strided with a 1x1 conv-BN projection shortcut, global average pooling, fc10.

Inputs: ``mlp`` (N, 784), ``lenet`` (N, 1, 28, 28), ``resnet20`` (N, 3, 32, 32).
"""
INPUT_SHAPES = {'mlp': (784,), 'lenet': (1, 28, 28), 'resnet20': (3, 32, 32)}
STAGES = ((16, 1), (32, 2), (64, 2))
BLOCKS_PER_STAGE = 3


# ---- symmod Symbol ---------------------------------------------------------------------------
def symmod_symbol(kind, mx):
    """The network as a symmod Symbol ending in SoftmaxOutput ``softmax``."""
    sym = mx.sym
    data = sym.Variable('data')
    if kind == 'mlp':
        net = sym.FullyConnected(data, num_hidden=128, name='fc1')
        net = sym.Activation(net, act_type='relu')
        net = sym.FullyConnected(net, num_hidden=64, name='fc2')
        net = sym.Activation(net, act_type='relu')
        net = sym.FullyConnected(net, num_hidden=10, name='fc3')
    elif kind == 'lenet':
        net = data
        for i, filters in enumerate((20, 50)):
            net = sym.Convolution(net, kernel=(5, 5), num_filter=filters, name='conv%d' % i)
            net = sym.Activation(net, act_type='tanh')
            net = sym.Pooling(net, pool_type='max', kernel=(2, 2), stride=(2, 2))
        net = sym.Flatten(net)
        net = sym.Activation(sym.FullyConnected(net, num_hidden=500, name='fc1'),
                             act_type='tanh')
        net = sym.FullyConnected(net, num_hidden=10, name='fc2')
    else:
        net = _symmod_resnet20(sym, data)
    return sym.SoftmaxOutput(net, name='softmax')


def _conv_bn(sym, x, filters, kernel, stride, name):
    pad = (kernel // 2, kernel // 2)
    x = sym.Convolution(x, num_filter=filters, kernel=(kernel, kernel), stride=(stride, stride),
                        pad=pad, no_bias=True, name=name + '_conv')
    return sym.BatchNorm(x, fix_gamma=False, eps=1e-5, momentum=0.9, name=name + '_bn')


def _symmod_resnet20(sym, data):
    net = sym.Activation(_conv_bn(sym, data, 16, 3, 1, 'stem'), act_type='relu')
    channels = 16
    for s, (filters, stride) in enumerate(STAGES):
        for b in range(BLOCKS_PER_STAGE):
            name = 'stage%d_block%d' % (s + 1, b + 1)
            st = stride if b == 0 else 1
            body = sym.Activation(_conv_bn(sym, net, filters, 3, st, name + '_a'),
                                  act_type='relu')
            body = _conv_bn(sym, body, filters, 3, 1, name + '_b')
            short = net if (st == 1 and channels == filters) else \
                _conv_bn(sym, net, filters, 1, st, name + '_proj')
            net = sym.Activation(body + short, act_type='relu')
            channels = filters
    net = sym.Pooling(net, global_pool=True, pool_type='avg', kernel=(1, 1))
    return sym.FullyConnected(sym.Flatten(net), num_hidden=10, name='fc')


# ---- symmod gluon ---------------------------------------------------------------------------
def gluon_net(kind, mx, hidden=(128, 64)):
    """The network as a gluon HybridSequential (no softmax: the loss applies it);
    ``hidden``: the MLP's hidden layer sizes."""
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        if kind == 'mlp':
            net.add(*[nn.Dense(h, activation='relu') for h in hidden], nn.Dense(10))
        elif kind == 'lenet':
            net.add(nn.Conv2D(20, 5, activation='tanh'), nn.MaxPool2D(2, 2),
                    nn.Conv2D(50, 5, activation='tanh'), nn.MaxPool2D(2, 2), nn.Flatten(),
                    nn.Dense(500, activation='tanh'), nn.Dense(10))
        else:
            raise ValueError('gluon benchmarks cover mlp and lenet, not %s' % kind)
    return net


# ---- PyTorch ----------------------------------------------------------------------------------
def torch_net(kind, hidden=(128, 64)):
    """The network as a torch.nn.Module producing logits."""
    import torch.nn as nn
    if kind == 'mlp':
        sizes = (784,) + tuple(hidden)
        layers = []
        for a, b in zip(sizes, sizes[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        return nn.Sequential(*layers, nn.Linear(sizes[-1], 10))
    if kind == 'lenet':
        return nn.Sequential(nn.Conv2d(1, 20, 5), nn.Tanh(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(20, 50, 5), nn.Tanh(), nn.MaxPool2d(2, 2), nn.Flatten(),
                             nn.Linear(800, 500), nn.Tanh(), nn.Linear(500, 10))
    return _torch_resnet20(nn)


def _torch_resnet20(nn):
    def conv_bn(cin, cout, kernel, stride):
        return [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False),
                nn.BatchNorm2d(cout, eps=1e-5, momentum=0.1)]

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(*conv_bn(cin, cout, 3, stride), nn.ReLU(),
                                      *conv_bn(cout, cout, 3, 1))
            self.short = nn.Identity() if (stride == 1 and cin == cout) else \
                nn.Sequential(*conv_bn(cin, cout, 1, stride))
            self.relu = nn.ReLU()

        def forward(self, x):
            return self.relu(self.body(x) + self.short(x))

    layers = [*conv_bn(3, 16, 3, 1), nn.ReLU()]
    channels = 16
    for filters, stride in STAGES:
        for b in range(BLOCKS_PER_STAGE):
            layers.append(Block(channels, filters, stride if b == 0 else 1))
            channels = filters
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)]
    return nn.Sequential(*layers)
