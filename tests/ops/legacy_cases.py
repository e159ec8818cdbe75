"""Graphs with MXNet's legacy *_v1 operators, built by a given ``mx`` (symmod in
tests/ops/test_legacy.py, real MXNet in tests/data/gen/gen_ops_legacy_reference.py).

Each case: (name, builder, data shape, output-gradient list or None for a loss-free
head of ones)."""


def conv2d(mx):
    return mx.sym.Convolution_v1(mx.sym.var('data'), kernel=(3, 3), num_filter=4,
                                 stride=(2, 1), pad=(1, 0), name='conv')


def conv_grouped_dilated_no_bias(mx):
    return mx.sym.Convolution_v1(mx.sym.var('data'), kernel=(2, 2), num_filter=4,
                                 num_group=2, dilate=(2, 1), no_bias=True, name='conv')


def pool_max_valid(mx):
    return mx.sym.Pooling_v1(mx.sym.var('data'), kernel=(2, 2), pool_type='max', name='pool')


def pool_avg_full_pad(mx):
    return mx.sym.Pooling_v1(mx.sym.var('data'), kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                             pool_type='avg', pooling_convention='full', name='pool')


def pool_sum_strided(mx):
    return mx.sym.Pooling_v1(mx.sym.var('data'), kernel=(2, 3), stride=(2, 2),
                             pool_type='sum', name='pool')


def pool_global_max(mx):
    return mx.sym.Pooling_v1(mx.sym.var('data'), global_pool=True, kernel=(1, 1),
                             pool_type='max', name='pool')


def batchnorm_train(mx):
    return mx.sym.BatchNorm_v1(mx.sym.var('data'), fix_gamma=False, momentum=0.8,
                               output_mean_var=True, name='bn')


def batchnorm_fixed_gamma(mx):
    return mx.sym.BatchNorm_v1(mx.sym.var('data'), eps=1e-4, name='bn')


def lenet_v1(mx):
    net = mx.sym.Convolution_v1(mx.sym.var('data'), kernel=(3, 3), num_filter=4, name='c1')
    net = mx.sym.BatchNorm_v1(net, name='bn1')
    net = mx.sym.Activation(net, act_type='relu', name='r1')
    net = mx.sym.Pooling_v1(net, kernel=(2, 2), stride=(2, 2), pool_type='max', name='p1')
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=3, name='fc')
    return mx.sym.SoftmaxOutput(net, name='softmax')


CASES = [
    ('conv2d', conv2d, (2, 3, 6, 5)),
    ('conv_grouped_dilated_no_bias', conv_grouped_dilated_no_bias, (1, 4, 5, 3)),
    ('pool_max_valid', pool_max_valid, (2, 2, 5, 4)),
    ('pool_avg_full_pad', pool_avg_full_pad, (1, 2, 6, 5)),
    ('pool_sum_strided', pool_sum_strided, (1, 2, 5, 7)),
    ('pool_global_max', pool_global_max, (2, 3, 4, 5)),
    ('batchnorm_train', batchnorm_train, (4, 3, 2, 3)),
    ('batchnorm_fixed_gamma', batchnorm_fixed_gamma, (3, 2, 4, 1)),
]
