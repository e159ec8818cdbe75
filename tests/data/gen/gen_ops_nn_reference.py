"""Record MXNet 1.9.1's results for the neural-network operators (tests/ops/test_nn.py,
test_conv.py, test_norm.py, test_softmax.py).

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_ops_nn_reference.py

Writes tests/data/ops_nn_reference.npz. For every case ``<case>`` it holds
``<case>/meta`` (JSON: operator, parameters, argument / auxiliary names, is_train),
the inputs ``<case>/arg/<name>`` and ``<case>/aux/<name>``, the head gradients
``<case>/ograd/<i>``, and what MXNet computed: ``<case>/out/<i>`` (forward outputs),
``<case>/grad/<name>`` (input gradients, when the case runs backward) and
``<case>/aux_after/<name>`` (auxiliary states after forward and backward).
"""
import os

import numpy as np

from reference_npz import write_cases
import symbolic_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'ops_nn_reference.npz')

RNG = np.random.RandomState(1234)


def randn(*shape):
    return RNG.randn(*shape).astype(np.float32)


def ints(low, high, *shape):
    return RNG.randint(low, high, size=shape).astype(np.float32)


CASES = []


def case(name, op, params, args, aux=None, is_train=True, backward=True, no_grad=()):
    CASES.append(dict(name=name, op=op, params=params, args=args, aux=aux or {},
                      is_train=is_train, backward=backward, no_grad=list(no_grad)))


def build_cases():
    x34 = randn(3, 4) * 2
    for act in ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'):
        case('act_' + act, 'Activation', {'act_type': act}, {'data': x34})
    case('act_softrelu_big', 'Activation', {'act_type': 'softrelu'},
         {'data': np.array([[-30, -5, 19.5, 20.5, 50]], np.float32)})

    x4 = randn(2, 3, 4, 2)
    case('leaky', 'LeakyReLU', {'act_type': 'leaky', 'slope': 0.1}, {'data': x4})
    case('leaky_default', 'LeakyReLU', {}, {'data': x4})
    case('elu', 'LeakyReLU', {'act_type': 'elu', 'slope': 0.7}, {'data': x4})
    case('selu', 'LeakyReLU', {'act_type': 'selu'}, {'data': x4})
    case('gelu', 'LeakyReLU', {'act_type': 'gelu'}, {'data': x4})
    case('prelu', 'LeakyReLU', {'act_type': 'prelu'},
         {'data': x4, 'gamma': np.array([0.1, 0.25, 0.5], np.float32)})
    case('prelu_shared', 'LeakyReLU', {'act_type': 'prelu'},
         {'data': x4, 'gamma': np.array([0.3], np.float32)})
    case('rrelu_eval', 'LeakyReLU', {'act_type': 'rrelu', 'lower_bound': 0.1,
                                     'upper_bound': 0.4},
         {'data': x4}, is_train=False, backward=False)

    case('fc_flatten', 'FullyConnected', {'num_hidden': 5},
         {'data': randn(3, 2, 4), 'weight': randn(5, 8), 'bias': randn(5)})
    case('fc_noflatten', 'FullyConnected', {'num_hidden': 5, 'flatten': False},
         {'data': randn(3, 2, 4), 'weight': randn(5, 4), 'bias': randn(5)})
    case('fc_nobias', 'FullyConnected', {'num_hidden': 3, 'no_bias': True},
         {'data': randn(4, 6), 'weight': randn(3, 6)})

    case('conv2d', 'Convolution', {'kernel': (3, 3), 'num_filter': 4, 'pad': (1, 1)},
         {'data': randn(2, 3, 6, 5), 'weight': randn(4, 3, 3, 3), 'bias': randn(4)})
    case('conv2d_group', 'Convolution',
         {'kernel': (3, 2), 'num_filter': 6, 'num_group': 2, 'stride': (2, 1),
          'dilate': (1, 2), 'pad': (1, 2)},
         {'data': randn(2, 4, 9, 8), 'weight': randn(6, 2, 3, 2), 'bias': randn(6)})
    case('conv1d', 'Convolution', {'kernel': (3,), 'num_filter': 4, 'stride': (2,),
                                   'pad': (1,), 'no_bias': True},
         {'data': randn(2, 3, 10), 'weight': randn(4, 3, 3)})
    case('conv3d', 'Convolution', {'kernel': (2, 3, 2), 'num_filter': 3, 'pad': (1, 0, 1)},
         {'data': randn(2, 2, 4, 5, 3), 'weight': randn(3, 2, 2, 3, 2), 'bias': randn(3)})

    xp = randn(2, 3, 7, 6)
    pools = {
        'pool_max_valid': {'kernel': (2, 2), 'stride': (2, 2)},
        'pool_max_full_pad': {'kernel': (3, 2), 'stride': (2, 2), 'pad': (1, 1),
                              'pooling_convention': 'full'},
        'pool_max_overlap': {'kernel': (3, 3), 'stride': (1, 2), 'pad': (1, 0)},
        'pool_avg_full_pad': {'kernel': (3, 3), 'stride': (2, 2), 'pad': (1, 1),
                              'pool_type': 'avg', 'pooling_convention': 'full'},
        'pool_avg_nopadcount': {'kernel': (3, 3), 'stride': (2, 2), 'pad': (1, 1),
                                'pool_type': 'avg', 'count_include_pad': False},
        'pool_sum': {'kernel': (2, 3), 'stride': (1, 2), 'pool_type': 'sum'},
        'pool_global_avg': {'kernel': (1, 1), 'global_pool': True, 'pool_type': 'avg'},
        'pool_global_max': {'global_pool': True, 'pool_type': 'max'},
        'pool_lp2': {'kernel': (2, 2), 'stride': (1, 1), 'pool_type': 'lp', 'p_value': 2},
    }
    for name, params in pools.items():
        case(name, 'Pooling', params, {'data': xp})
    case('pool_max_ties', 'Pooling', {'kernel': (3, 3), 'stride': (1, 1), 'pad': (1, 1)},
         {'data': ints(0, 3, 2, 2, 5, 5)})
    case('pool_1d_max', 'Pooling', {'kernel': (3,), 'stride': (2,), 'pad': (1,)},
         {'data': randn(2, 3, 9)})
    case('pool_3d_avg', 'Pooling', {'kernel': (2, 3, 2), 'stride': (2, 2, 1),
                                    'pad': (1, 1, 0), 'pool_type': 'avg'},
         {'data': randn(2, 2, 4, 5, 3)})

    xb = randn(4, 3, 2, 2) * 2 + 1
    bn_args = {'data': xb, 'gamma': np.array([0.5, 2.0, 1.5], np.float32),
               'beta': np.array([0.1, -0.2, 0.3], np.float32)}
    bn_aux = {'moving_mean': np.array([0.2, -0.1, 0.0], np.float32),
              'moving_var': np.array([1.5, 0.8, 1.0], np.float32)}
    case('bn_train', 'BatchNorm', {'fix_gamma': False}, bn_args, bn_aux)
    case('bn_train_fixgamma', 'BatchNorm', {}, bn_args, bn_aux)
    case('bn_train_meanvar', 'BatchNorm', {'fix_gamma': False, 'output_mean_var': True,
                                           'momentum': 0.8, 'eps': 1e-4}, bn_args, bn_aux)
    case('bn_global', 'BatchNorm', {'fix_gamma': False, 'use_global_stats': True},
         bn_args, bn_aux)
    case('bn_eval', 'BatchNorm', {'fix_gamma': False}, bn_args, bn_aux, is_train=False,
         backward=False)
    case('bn_axis_last', 'BatchNorm', {'fix_gamma': False, 'axis': -1},
         {'data': randn(3, 4, 2), 'gamma': randn(2), 'beta': randn(2)},
         {'moving_mean': np.zeros(2, np.float32), 'moving_var': np.ones(2, np.float32)})

    xs = randn(3, 4, 5)
    case('softmax', 'softmax', {}, {'data': xs})
    case('softmax_axis0_temp', 'softmax', {'axis': 0, 'temperature': 2.5}, {'data': xs})
    case('log_softmax_temp', 'log_softmax', {'axis': 1, 'temperature': 0.5}, {'data': xs})
    case('softmax_length', 'softmax', {'axis': 1, 'use_length': True},
         {'data': xs, 'length': np.array([[1, 4, 2, 0, 3]] * 3, np.int32)},
         no_grad=['length'])
    case('softmax_act_instance', 'SoftmaxActivation', {}, {'data': xs})
    case('softmax_act_channel', 'SoftmaxActivation', {'mode': 'channel'}, {'data': xs})

    case('embedding', 'Embedding', {'input_dim': 5, 'output_dim': 3},
         {'data': np.array([[0, 1, 7], [-1, 2.7, 4], [1, 1, 3]], np.float32),
          'weight': randn(5, 3)}, no_grad=['data'])


def run(c):
    def make_ograd(i, out):
        zero = c['op'] == 'BatchNorm' and i > 0
        return np.zeros_like(out) if zero else randn(*out.shape)
    return symbolic_cases.run(c, make_ograd)


def main():
    build_cases()
    write_cases(OUT, CASES, run)


if __name__ == '__main__':
    main()
