"""The networks whose Block.summary tables are in tests/data/gluon_layers_summary.txt,
built by a given ``mx`` (symmod in tests/gluon/test_summary.py or, in
tests/data/gen/gen_gluon_layers_reference.py, real MXNet). Each builder returns the
initialized block and the inputs its summary is printed for."""


def cnn(mx):
    """Convolution, normalization and pooling layers, and one Dense used twice."""
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, in_channels=2, activation='relu'))
        net.add(nn.BatchNorm())
        net.add(nn.MaxPool2D())
        net.add(nn.Conv2DTranspose(3, 2, strides=2))
        net.add(nn.InstanceNorm())
        net.add(nn.LayerNorm(axis=1))
        net.add(nn.GroupNorm(num_groups=3))
        net.add(nn.GlobalAvgPool2D())
        net.add(nn.Flatten())
        shared = nn.Dense(3)
        net.add(shared)
        net.add(shared)
        net.add(nn.PReLU())
    net.initialize()
    return net, (mx.nd.ones((2, 2, 10, 10)),)


def two_inputs(mx):
    """A Block with two inputs and a nested output (the summary's shape strings)."""
    nn = mx.gluon.nn

    class TwoInputs(nn.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(3, in_units=4)
                self.emb = nn.Embedding(6, 2)

        def forward(self, x, idx):
            return self.dense(x), [self.emb(idx), idx]

    block = TwoInputs()
    block.initialize()
    return block, (mx.nd.ones((2, 4)), mx.nd.array([[1, 2, 3]]))


def sequential(mx):
    """A (non-hybrid) Sequential whose second Dense is initialized at the first call."""
    nn = mx.gluon.nn
    seq = nn.Sequential()
    with seq.name_scope():
        seq.add(nn.Dense(5, in_units=3), nn.Dropout(0.5), nn.Dense(2))
    seq.initialize()
    return seq, (mx.nd.ones((4, 3)),)


# (name in the summary file, builder)
NETS = [('cnn', cnn), ('two_inputs', two_inputs), ('sequential', sequential)]
