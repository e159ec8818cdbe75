"""Networks printed by mx.viz.print_summary, built by a given ``mx`` (symmod or, in the
reference generator, real MXNet)."""


def lenet_bn_embedding(mx):
    data = mx.sym.Variable('data')
    net = mx.sym.Convolution(data=data, kernel=(5, 5), num_filter=20)
    net = mx.sym.BatchNorm(net, name='bn')
    net = mx.sym.Activation(data=net, act_type='tanh')
    net = mx.sym.Pooling(data=net, pool_type='max', kernel=(2, 2), stride=(2, 2))
    net = mx.sym.FullyConnected(data=mx.sym.Flatten(data=net), num_hidden=500)
    words = mx.sym.Embedding(mx.sym.var('words'), input_dim=100, output_dim=8)
    net = mx.sym.Concat(net, mx.sym.sum(words, axis=1), dim=1)
    return mx.sym.SoftmaxOutput(data=net, name='softmax')


def mlp_no_bias_grouped_conv(mx):
    data = mx.sym.Variable('data')
    net = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, num_group=2, no_bias=True,
                             name='gconv')
    net = mx.sym.Activation(net, act_type='relu', name='relu')
    net = mx.sym.Flatten(net, name='flat')
    net = mx.sym.FullyConnected(net, num_hidden=16, no_bias=True, name='fc1')
    net = net * net
    return mx.sym.LinearRegressionOutput(mx.sym.FullyConnected(net, num_hidden=1, name='fc2'),
                                         name='lro')


CASES = [
    ('lenet_shapes', lenet_bn_embedding, {'data': (1, 1, 28, 28), 'words': (1, 5)}, {}),
    ('lenet_no_shapes', lenet_bn_embedding, None, {}),
    ('mlp_shapes_narrow', mlp_no_bias_grouped_conv, {'data': (2, 4, 6, 6)},
     {'line_length': 80, 'positions': [30, 50, 60, 80]}),
    ('mlp_no_shapes', mlp_no_bias_grouped_conv, None, {'line_length': 60}),
]


def split_and_custom_labels(mx):
    data = mx.sym.Variable('data')
    parts = mx.sym.SliceChannel(data, num_outputs=2, axis=1, name='split')
    left = mx.sym.Pooling(parts[0], kernel=(2, 2), pool_type='avg', name='pool')
    right = mx.sym.LeakyReLU(parts[1], act_type='elu', name='elu')
    right = mx.sym.Pooling(right, global_pool=True, pool_type='max', name='gpool')
    net = mx.sym.Reshape(mx.sym.broadcast_add(left, right), shape=(0, -1), name='reshape')
    return mx.sym.softmax(net, name='prob')


# (name, network, plot_network keyword arguments)
PLOTS = [
    ('lenet_plain', lenet_bn_embedding, {}),
    ('lenet_shapes_types_weights', lenet_bn_embedding,
     {'shape': {'data': (1, 1, 28, 28), 'words': (1, 5)},
      'dtype': {'data': 'float32', 'words': 'float32'}, 'hide_weights': False,
      'title': 'lenet', 'node_attrs': {'fixedsize': 'false'}}),
    ('mlp_shapes', mlp_no_bias_grouped_conv, {'shape': {'data': (2, 4, 6, 6)}}),
    ('split_shapes', split_and_custom_labels, {'shape': {'data': (2, 4, 6, 6)}}),
]
