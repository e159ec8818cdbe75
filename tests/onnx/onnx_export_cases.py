"""One small graph per exported operator (and per distinct parameter path)."""
import numpy as np

import symmod as mx
from onnx_check import NEWEST, OPSETS

S = mx.sym
RNG = np.random.RandomState(42)


def x(*shape, low=-2.0, high=2.0, dtype=np.float32):
    return RNG.uniform(low, high, shape).astype(dtype)


def ints(*shape, high=5):
    return RNG.randint(0, high, shape).astype(np.float32)


D = S.var('data')
D2 = S.var('data2')


def case(name, sym, inputs, **options):
    return (name, sym, inputs, options)


def _unary_cases():
    cases = []
    positive = ['sqrt', 'rsqrt', 'log', 'log10', 'log2', 'cbrt', 'rcbrt']
    unit = ['arcsin', 'arccos', 'arctanh']
    for name in ['relu', 'sigmoid', 'tanh', 'softsign', 'negative', 'reciprocal', 'abs',
                 'sign', 'ceil', 'floor', 'exp', 'sin', 'cos', 'tan', 'arctan', 'sinh', 'cosh',
                 'arcsinh', 'erf', 'square', 'log1p', 'expm1', 'degrees', 'radians', 'round',
                 'rint', 'trunc', 'fix', 'logical_not', 'identity', 'BlockGrad', 'make_loss',
                 'MakeLoss'] + positive + unit + ['arccosh']:
        if name in positive:
            data = x(3, 4, low=0.1, high=3.0)
        elif name in unit:
            data = x(3, 4, low=-0.9, high=0.9)
        elif name == 'arccosh':
            data = x(3, 4, low=1.1, high=3.0)
        elif name in ('round', 'rint', 'trunc', 'fix'):
            data = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 0.4, -0.6],
                             [3.7, -3.7, 0.0, 2.49]], np.float32)
        elif name == 'logical_not':
            data = ints(3, 4, high=2)
        elif name == 'reciprocal':
            data = x(3, 4, low=0.5, high=2.0)
        else:
            data = x(3, 4)
        cases.append(case(name, getattr(S, name)(D, name='op'), {'data': data}))
    return cases


def _binary_cases():
    cases = []
    a, b = x(2, 3, 4), x(2, 3, 4, low=0.5, high=2.0)
    bb = x(1, 3, 1, low=0.5, high=2.0)
    for name in ['elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div', '_maximum',
                 '_minimum', '_power', '_mod', '_hypot', '_equal', '_not_equal', '_greater',
                 '_greater_equal', '_lesser', '_lesser_equal', '_logical_and', '_logical_or',
                 '_logical_xor']:
        lhs = np.abs(a) + 0.5 if name == '_power' else a
        if name.startswith('_logical') or name in ('_equal', '_not_equal'):
            lhs, rhs = ints(2, 3, 4, high=2), ints(2, 3, 4, high=2)
        else:
            rhs = b
        cases.append(case(name, getattr(S, name)(D, D2, name='op'),
                          {'data': lhs, 'data2': rhs}))
    for name in ['broadcast_add', 'broadcast_sub', 'broadcast_mul', 'broadcast_div',
                 'broadcast_power', 'broadcast_maximum', 'broadcast_minimum', 'broadcast_mod',
                 'broadcast_hypot', 'broadcast_equal', 'broadcast_not_equal',
                 'broadcast_greater', 'broadcast_greater_equal', 'broadcast_lesser',
                 'broadcast_lesser_equal', 'broadcast_logical_and', 'broadcast_logical_or',
                 'broadcast_logical_xor']:
        lhs = np.abs(a) + 0.5 if name == 'broadcast_power' else a
        cases.append(case(name, getattr(S, name)(D, D2, name='op'),
                          {'data': lhs, 'data2': bb}))
    scalars = ['_plus_scalar', '_minus_scalar', '_rminus_scalar', '_mul_scalar',
               '_div_scalar', '_rdiv_scalar', '_power_scalar', '_rpower_scalar',
               '_maximum_scalar', '_minimum_scalar', '_mod_scalar', '_rmod_scalar',
               '_hypot_scalar', '_equal_scalar', '_not_equal_scalar', '_greater_scalar',
               '_greater_equal_scalar', '_lesser_scalar', '_lesser_equal_scalar',
               '_logical_and_scalar', '_logical_or_scalar', '_logical_xor_scalar']
    for name in scalars:
        data = x(3, 4, low=0.5, high=3.0) if 'power' in name or 'rdiv' in name \
            or 'rmod' in name else x(3, 4)
        scalar = 0.0 if 'logical' in name else 1.5
        if name.startswith('_logical'):
            data = ints(3, 4, high=2)
        sym = getattr(mx.sym, name)(D, scalar=scalar, name='op')
        cases.append(case(name, sym, {'data': data}))
    cases.append(case('_mod_negative', S._mod(D, D2, name='op'),
                      {'data': x(3, 4, low=-5, high=5), 'data2': x(3, 4, low=-3, high=-0.5)}))
    return cases


CONV_CASES = [
    case('Convolution_2d', S.Convolution(D, kernel=(3, 3), num_filter=4, name='op'),
         {'data': x(2, 3, 7, 7)}),
    case('Convolution_groups_dilate_stride_pad',
         S.Convolution(D, kernel=(3, 3), num_filter=4, num_group=2, dilate=(2, 1),
                       stride=(2, 1), pad=(1, 2), name='op'), {'data': x(2, 4, 9, 8)}),
    case('Convolution_1d', S.Convolution(D, kernel=(3,), num_filter=3, stride=(2,), pad=(1,),
                                         no_bias=True, name='op'), {'data': x(2, 2, 10)}),
    case('Convolution_3d', S.Convolution(D, kernel=(2, 3, 2), num_filter=3, pad=(1, 0, 1),
                                         name='op'), {'data': x(1, 2, 4, 5, 4)}),
    case('Deconvolution_2d', S.Deconvolution(D, kernel=(4, 4), stride=(2, 2), pad=(1, 1),
                                             num_filter=3, name='op'),
         {'data': x(2, 4, 5, 5)}),
    case('Deconvolution_adj_groups_bias',
         S.Deconvolution(D, kernel=(3, 3), stride=(2, 2), pad=(1, 1), adj=(1, 0),
                         num_filter=4, num_group=2, no_bias=False, name='op'),
         {'data': x(1, 4, 4, 5)}),
    case('Deconvolution_target_shape',
         S.Deconvolution(D, kernel=(3, 3), stride=(2, 2), target_shape=(9, 10), num_filter=2,
                         name='op'), {'data': x(1, 3, 5, 5)}),
    case('Deconvolution_1d', S.Deconvolution(D, kernel=(3,), stride=(2,), num_filter=2,
                                             name='op'), {'data': x(2, 3, 6)}),
]

POOL_CASES = []
for _conv in ('valid', 'full'):
    for _type in ('max', 'avg', 'sum', 'lp'):
        for _pad in ((0, 0), (1, 1)):
            for _cip in ((True, False) if _type == 'avg' else (None,)):
                _kwargs = dict(kernel=(3, 3), stride=(2, 2), pad=_pad, pool_type=_type,
                               pooling_convention=_conv)
                if _cip is not None:
                    _kwargs['count_include_pad'] = _cip
                if _type == 'lp':
                    _kwargs['p_value'] = 2
                POOL_CASES.append(case(
                    'Pooling_%s_%s_pad%d%s' % (_type, _conv, _pad[0],
                                               '' if _cip is None else '_cip%d' % _cip),
                    S.Pooling(D, name='op', **_kwargs), {'data': x(2, 2, 8, 7)}))
for _type in ('max', 'avg', 'sum', 'lp'):
    _kwargs = {'p_value': 2} if _type == 'lp' else {}
    POOL_CASES.append(case('Pooling_global_%s' % _type,
                           S.Pooling(D, global_pool=True, kernel=(1, 1), pool_type=_type,
                                     name='op', **_kwargs), {'data': x(2, 3, 5, 4)}))
POOL_CASES += [
    case('Pooling_1d_same', S.Pooling(D, kernel=(3,), stride=(2,), pooling_convention='same',
                                      name='op'), {'data': x(2, 3, 9)}),
    case('Pooling_3d_avg', S.Pooling(D, kernel=(2, 2, 2), stride=(2, 1, 2), pool_type='avg',
                                     name='op'), {'data': x(1, 2, 4, 5, 6)}),
]
# 'full' with a stride above the kernel: the last windows lie wholly past the input
for _type in ('max', 'avg', 'sum'):
    for _pad in ((0, 0), (1, 2)):
        POOL_CASES.append(case(
            'Pooling_%s_full_windows_past_the_end_pad%d' % (_type, _pad[0]),
            S.Pooling(D, kernel=(2, 3), stride=(4, 5), pad=_pad, pool_type=_type,
                      pooling_convention='full', name='op'), {'data': x(1, 2, 12, 15)}))

NN_CASES = [
    case('FullyConnected', S.FullyConnected(D, num_hidden=5, name='op'), {'data': x(3, 4)}),
    case('FullyConnected_flatten_no_bias',
         S.FullyConnected(D, num_hidden=5, no_bias=True, name='op'), {'data': x(3, 2, 3)}),
    case('FullyConnected_no_flatten', S.FullyConnected(D, num_hidden=5, flatten=False,
                                                       name='op'), {'data': x(3, 2, 4)}),
    case('FullyConnected_no_flatten_no_bias',
         S.FullyConnected(D, num_hidden=5, flatten=False, no_bias=True, name='op'),
         {'data': x(3, 2, 4)}),
    case('BatchNorm', S.BatchNorm(D, fix_gamma=False, eps=1e-3, name='op'),
         {'data': x(2, 3, 4, 4)}),
    case('BatchNorm_fix_gamma', S.BatchNorm(D, name='op'), {'data': x(2, 3, 4)}),
    case('BatchNorm_axis_last', S.BatchNorm(D, axis=-1, fix_gamma=False, name='op'),
         {'data': x(2, 4, 3)}),
    case('LayerNorm', S.LayerNorm(D, name='op'), {'data': x(2, 3, 5)}),
    case('LayerNorm_axis1', S.LayerNorm(D, axis=1, eps=1e-3, name='op'), {'data': x(2, 3, 5)}),
    case('InstanceNorm', S.InstanceNorm(D, eps=1e-4, name='op'), {'data': x(2, 3, 4, 5)}),
    case('GroupNorm', S.GroupNorm(D, num_groups=2, name='op'), {'data': x(2, 4, 3, 3)}),
    case('LRN', S.LRN(D, nsize=3, alpha=1e-3, beta=0.6, knorm=1.5, name='op'),
         {'data': x(2, 5, 3, 3)}),
    case('L2Normalization_instance', S.L2Normalization(D, name='op'),
         {'data': x(2, 3, 4)}),
    case('L2Normalization_channel', S.L2Normalization(D, mode='channel', name='op'),
         {'data': x(2, 3, 4)}),
    case('L2Normalization_spatial', S.L2Normalization(D, mode='spatial', name='op'),
         {'data': x(2, 3, 4, 2)}),
    case('Dropout', S.Dropout(D, p=0.3, name='op'), {'data': x(3, 4)}),
    case('Embedding', S.Embedding(D, input_dim=10, output_dim=4, name='op'),
         {'data': ints(3, 5, high=10)}),
    case('UpSampling_nearest', S.UpSampling(D, scale=2, sample_type='nearest', name='op'),
         {'data': x(2, 3, 3, 4)}),
    case('UpSampling_nearest_two_inputs_sum',
         S.UpSampling(D, D2, scale=2, sample_type='nearest', multi_input_mode='sum',
                      name='op'), {'data': x(1, 2, 2, 2), 'data2': x(1, 2, 4, 4)}),
    case('UpSampling_nearest_two_inputs_concat',
         S.UpSampling(D, D2, scale=2, sample_type='nearest', name='op'),
         {'data': x(1, 2, 2, 2), 'data2': x(1, 1, 4, 4)}),
    case('UpSampling_bilinear', S.UpSampling(D, scale=2, sample_type='bilinear', num_filter=3,
                                             name='op'), {'data': x(1, 3, 3, 3)}),
    case('Activation_relu', S.Activation(D, act_type='relu', name='op'), {'data': x(3, 4)}),
    case('Activation_sigmoid', S.Activation(D, act_type='sigmoid', name='op'),
         {'data': x(3, 4)}),
    case('Activation_tanh', S.Activation(D, act_type='tanh', name='op'), {'data': x(3, 4)}),
    case('Activation_softrelu', S.Activation(D, act_type='softrelu', name='op'),
         {'data': x(3, 4)}),
    case('Activation_softsign', S.Activation(D, act_type='softsign', name='op'),
         {'data': x(3, 4)}),
    case('LeakyReLU_leaky', S.LeakyReLU(D, slope=0.1, name='op'), {'data': x(3, 4)}),
    case('LeakyReLU_elu', S.LeakyReLU(D, act_type='elu', slope=0.7, name='op'),
         {'data': x(3, 4)}),
    case('LeakyReLU_selu', S.LeakyReLU(D, act_type='selu', name='op'), {'data': x(3, 4)}),
    case('LeakyReLU_gelu', S.LeakyReLU(D, act_type='gelu', name='op'), {'data': x(3, 4)}),
    case('LeakyReLU_rrelu', S.LeakyReLU(D, act_type='rrelu', name='op'), {'data': x(3, 4)}),
    case('LeakyReLU_prelu', S.LeakyReLU(D, act_type='prelu', name='op'),
         {'data': x(2, 3, 4)}),
    case('hard_sigmoid', S.hard_sigmoid(D, alpha=0.3, beta=0.4, name='op'), {'data': x(3, 4)}),
    case('softmax', S.softmax(D, name='op'), {'data': x(2, 3, 4)}),
    case('arange_like', S.contrib.arange_like(D, start=2, step=0.25, name='op'),
         {'data': x(3, 4)}),
    case('arange_like_axis_repeat', S.contrib.arange_like(D, axis=-1, repeat=3, name='op'),
         {'data': x(2, 7)}),
    case('softmax_length_axis0_temperature', S.softmax(D, S.var('length'), use_length=True,
                                                       axis=0, temperature=0.5, name='op'),
         {'data': x(4, 3, 2), 'length': np.array([[0, 4], [2, 1], [3, 0]], np.int32)}),
    case('softmax_length_last_axis', S.softmax(D, S.var('length'), use_length=True, name='op'),
         {'data': x(2, 3, 5), 'length': np.array([[5, 1, 3], [0, 2, 4]], np.float32)}),
    case('softmax_axis1_temperature', S.softmax(D, axis=1, temperature=2.0, name='op'),
         {'data': x(2, 3, 4)}),
    case('log_softmax', S.log_softmax(D, axis=1, name='op'), {'data': x(2, 3, 4)}),
    case('SoftmaxActivation_instance', S.SoftmaxActivation(D, name='op'), {'data': x(3, 4)}),
    case('SoftmaxActivation_channel', S.SoftmaxActivation(D, mode='channel', name='op'),
         {'data': x(2, 3, 4)}),
    case('SoftmaxOutput', S.SoftmaxOutput(D, name='op'), {'data': x(3, 4)}),
    case('SoftmaxOutput_nd', S.SoftmaxOutput(D, name='op'), {'data': x(2, 3, 4)}),
    case('SoftmaxOutput_multi_output', S.SoftmaxOutput(D, multi_output=True, name='op'),
         {'data': x(2, 3, 4)}),
    case('SoftmaxOutput_preserve_shape', S.SoftmaxOutput(D, preserve_shape=True, name='op'),
         {'data': x(2, 3, 4)}),
    case('LinearRegressionOutput', S.LinearRegressionOutput(D, name='op'), {'data': x(3, 4)}),
    case('MAERegressionOutput', S.MAERegressionOutput(D, name='op'), {'data': x(3, 4)}),
    case('SVMOutput', S.SVMOutput(D, name='op'), {'data': x(3, 4)}),
    case('IdentityAttachKLSparseReg', S.IdentityAttachKLSparseReg(D, name='op'),
         {'data': x(3, 4, low=0.1, high=0.9)}),
    case('LogisticRegressionOutput', S.LogisticRegressionOutput(D, name='op'),
         {'data': x(3, 4)}),
]

SHAPE_CASES = [
    case('Reshape_codes', S.Reshape(D, shape=(0, -3, -2)), {'data': x(2, 3, 4, 5)}),
    case('Reshape_split', S.Reshape(D, shape=(-4, 2, -1, -2)), {'data': x(6, 4, 5)}),
    case('Reshape_minus1', S.Reshape(D, shape=(-1, 5)), {'data': x(2, 3, 5)}),
    case('Reshape_reverse', S.Reshape(D, shape=(-1, 0), reverse=True), {'data': x(2, 3, 5)}),
    case('reshape_like', S.reshape_like(D, D2), {'data': x(2, 6), 'data2': x(3, 4)}),
    case('Flatten', S.Flatten(D), {'data': x(2, 3, 4)}),
    case('transpose', S.transpose(D, axes=(1, 2, 0)), {'data': x(2, 3, 4)}),
    case('transpose_reverse', S.transpose(D), {'data': x(2, 3, 4)}),
    case('SwapAxis', S.SwapAxis(D, dim1=0, dim2=2), {'data': x(2, 3, 4)}),
    case('expand_dims', S.expand_dims(D, axis=-1), {'data': x(2, 3)}),
    case('squeeze', S.squeeze(D, axis=(1,)), {'data': x(2, 1, 3, 1)}),
    case('squeeze_all', S.squeeze(D), {'data': x(2, 1, 3, 1)}),
    case('Concat', S.Concat(D, D2, dim=1), {'data': x(2, 3), 'data2': x(2, 4)}),
    case('stack', S.stack(D, D2, axis=1), {'data': x(2, 3), 'data2': x(2, 3)}),
    case('SliceChannel', S.SliceChannel(D, num_outputs=3, axis=1), {'data': x(2, 6, 2)}),
    case('SliceChannel_squeeze', S.SliceChannel(D, num_outputs=3, axis=1, squeeze_axis=True),
         {'data': x(2, 3, 2)}),
    case('slice', S.slice(D, begin=(0, 1), end=(2, None)), {'data': x(3, 4)}),
    case('slice_step', S.slice(D, begin=(None, 3), end=(None, 0), step=(2, -1)),
         {'data': x(5, 4)}),
    case('slice_axis', S.slice_axis(D, axis=1, begin=1, end=-1), {'data': x(3, 5)}),
    case('slice_like', S.slice_like(D, D2, axes=(1,)), {'data': x(3, 5), 'data2': x(3, 2)}),
    case('take', S.take(D, D2), {'data': x(5, 3), 'data2': ints(2, 4, high=7)}),
    case('take_wrap_axis1', S.take(D, D2, axis=1, mode='wrap'),
         {'data': x(2, 3), 'data2': ints(4, high=7)}),
    case('pick', S.pick(D, D2, axis=1), {'data': x(3, 4), 'data2': ints(3, high=4)}),
    case('pick_keepdims', S.pick(D, D2, axis=0, keepdims=True),
         {'data': x(3, 4), 'data2': ints(4, high=3)}),
    case('tile', S.tile(D, reps=(2, 1, 3)), {'data': x(2, 3)}),
    case('repeat', S.repeat(D, repeats=2, axis=1), {'data': x(2, 3)}),
    case('repeat_flat', S.repeat(D, repeats=3), {'data': x(2, 3)}),
    case('reverse', S.reverse(D, axis=(0, 1)), {'data': x(2, 3)}),
    case('broadcast_to', S.broadcast_to(D, shape=(2, 0, 4)), {'data': x(1, 3, 1)}),
    case('broadcast_axis', S.broadcast_axis(D, axis=(0, 2), size=(2, 3)),
         {'data': x(1, 3, 1)}),
    case('broadcast_like', S.broadcast_like(D, D2), {'data': x(1, 3), 'data2': x(4, 3)}),
    case('Pad_constant', S.Pad(D, mode='constant', pad_width=(0, 0, 0, 0, 1, 2, 2, 1),
                               constant_value=0.5), {'data': x(1, 2, 3, 3)}),
    case('Pad_edge', S.Pad(D, mode='edge', pad_width=(0, 0, 0, 0, 1, 2, 2, 1)),
         {'data': x(1, 2, 3, 3)}),
    case('Pad_reflect', S.Pad(D, mode='reflect', pad_width=(0, 0, 0, 0, 1, 2, 2, 1)),
         {'data': x(1, 2, 3, 3)}),
    case('depth_to_space', S.depth_to_space(D, block_size=2), {'data': x(1, 8, 2, 3)}),
    case('space_to_depth', S.space_to_depth(D, block_size=2), {'data': x(1, 2, 4, 6)}),
    case('Cast', S.Cast(D, dtype='int32'), {'data': x(3, 4, low=-9, high=9)}),
    case('zeros_ones_full', S.zeros(shape=(2, 3)) + S.ones(shape=(2, 3)) + D
         + S.full(shape=(2, 3), val=2.5), {'data': x(2, 3)}),
    case('zeros_without_dtype', S._zeros_without_dtype(shape=(2, 3)) + D, {'data': x(2, 3)}),
    case('zeros_like_ones_like', S.zeros_like(D) + S.ones_like(D), {'data': x(2, 3)}),
    case('arange', S.broadcast_add(D, S.arange(0, 3)), {'data': x(2, 3)}),
    case('shape_array', S.shape_array(D), {'data': x(2, 3)}),
    case('size_array', S.size_array(D), {'data': x(2, 3)}),
    case('one_hot', S.one_hot(D, depth=5, on_value=2.0, off_value=-1.0),
         {'data': ints(2, 3, high=5)}),
]

MATH_CASES = [
    case('sum', S.sum(D, axis=1), {'data': x(2, 3, 4)}),
    case('sum_all', S.sum(D), {'data': x(2, 3, 4)}),
    case('sum_exclude_keepdims', S.sum(D, axis=1, exclude=True, keepdims=True),
         {'data': x(2, 3, 4)}),
    case('mean', S.mean(D, axis=(0, 2)), {'data': x(2, 3, 4)}),
    case('prod', S.prod(D, axis=2, keepdims=True), {'data': x(2, 3, 4)}),
    case('max', S.max(D, axis=1), {'data': x(2, 3, 4)}),
    case('min', S.min(D, axis=-1), {'data': x(2, 3, 4)}),
    case('nansum', S.nansum(D, axis=1), {'data': np.where(x(2, 3) > 1, np.nan, x(2, 3))
                                         .astype(np.float32)}),
    case('nanprod', S.nanprod(D, axis=0), {'data': np.where(x(2, 3) > 1, np.nan, x(2, 3))
                                           .astype(np.float32)}),
    case('norm', S.norm(D), {'data': x(2, 3, 4)}),
    case('norm_l1_axis', S.norm(D, ord=1, axis=(1,), keepdims=True), {'data': x(2, 3, 4)}),
    case('argmax', S.argmax(D, axis=1), {'data': x(2, 3, 4)}),
    case('argmax_flat', S.argmax(D), {'data': x(2, 3)}),
    case('argmin_keepdims', S.argmin(D, axis=0, keepdims=True), {'data': x(2, 3)}),
    case('argmax_channel', S.argmax_channel(D), {'data': x(3, 5)}),
    case('topk_indices', S.topk(D, k=2, axis=1), {'data': x(3, 5)}),
    case('topk_value_ascend', S.topk(D, k=3, ret_typ='value', is_ascend=True),
         {'data': x(3, 5)}),
    case('topk_both', S.Group(list(S.topk(D, k=2, ret_typ='both', axis=0))),
         {'data': x(4, 3)}),
    case('sort', S.sort(D, axis=0, is_ascend=False), {'data': x(4, 3)}),
    case('argsort', S.argsort(D), {'data': x(4, 3)}),
    case('clip', S.clip(D, a_min=-0.5, a_max=1.0), {'data': x(3, 4)}),
    case('where', S.where(D, D2, S.var('data3')),
         {'data': ints(2, 3, high=2), 'data2': x(2, 3), 'data3': x(2, 3)}),
    case('where_rows', S.where(D, D2, S.var('data3')),
         {'data': ints(2, high=2), 'data2': x(2, 3), 'data3': x(2, 3)}),
    case('add_n', S.add_n(D, D2, D), {'data': x(2, 3), 'data2': x(2, 3)}),
    case('dot', S.dot(D, D2), {'data': x(2, 3), 'data2': x(3, 4)}),
    case('dot_transpose', S.dot(D, D2, transpose_a=True, transpose_b=True),
         {'data': x(3, 2), 'data2': x(4, 3)}),
    case('dot_nd', S.dot(D, D2), {'data': x(2, 2, 3), 'data2': x(3, 2, 2)}),
    case('batch_dot', S.batch_dot(D, D2, transpose_b=True),
         {'data': x(2, 3, 4), 'data2': x(2, 5, 4)}),
    case('linalg_gemm2', S.linalg.gemm2(D, D2, transpose_a=True, alpha=2.0),
         {'data': x(2, 4, 3), 'data2': x(2, 4, 5)}),
]

CASES = (_unary_cases() + _binary_cases() + CONV_CASES + POOL_CASES + NN_CASES + SHAPE_CASES
         + MATH_CASES)


def _rnn_case(mode, layers, bidirectional, state_outputs, zero_state, params_input=False):
    dirs = 2 if bidirectional else 1
    T, N, I, H = 4, 3, 5, 6
    inputs = {'data': x(T, N, I, low=-1, high=1)}
    lstm = mode == 'lstm'
    if zero_state:
        state = S.zeros(shape=(layers * dirs, 0, H))
        cell = S.zeros(shape=(layers * dirs, 0, H)) if lstm else None
    else:
        state = S.var('state')
        inputs['state'] = x(layers * dirs, N, H, low=-1, high=1)
        cell = None
        if lstm:
            cell = S.var('state_cell')
            inputs['state_cell'] = x(layers * dirs, N, H, low=-1, high=1)
    params = S.var('rnn_parameters')
    kwargs = dict(state_size=H, num_layers=layers, mode=mode, bidirectional=bidirectional,
                  state_outputs=state_outputs, name='rnn')
    sym = S.RNN(D, params, state, cell, **kwargs) if lstm else S.RNN(D, params, state,
                                                                     **kwargs)
    name = 'RNN_%s_l%d%s%s%s' % (mode, layers, '_bi' if bidirectional else '',
                                 '_states' if state_outputs else '',
                                 '_zero' if zero_state else '')
    if params_input:     # the weights fed at run time (MXNet's own ONNX tests do this)
        shapes = {k: v.shape for k, v in inputs.items()}
        size = dict(zip(sym.list_arguments(), sym.infer_shape(**shapes)[0]))['rnn_parameters']
        inputs['rnn_parameters'] = x(*size, low=-0.5, high=0.5)
        name += '_params_input'
    return case(name, sym, inputs, rtol=1e-4, atol=1e-5)


RNN_CASES = [
    _rnn_case('lstm', 1, False, False, True),
    _rnn_case('lstm', 2, True, True, False),
    _rnn_case('gru', 2, False, True, True),
    _rnn_case('gru', 1, True, False, False),
    _rnn_case('rnn_tanh', 2, True, True, False),
    _rnn_case('rnn_relu', 1, False, True, True),
    _rnn_case('lstm', 2, True, True, False, params_input=True),
    _rnn_case('gru', 1, True, False, True, params_input=True),
    _rnn_case('rnn_relu', 2, False, True, False, params_input=True),
]
CASES += RNN_CASES

LENGTHS = S.var('lengths')
SEQUENCE_CASES = [
    case('SequenceMask', S.SequenceMask(D, LENGTHS, use_sequence_length=True, value=-1.0),
         {'data': x(4, 3, 2), 'lengths': np.array([1, 4, 2.7], np.float32)}),
    case('SequenceMask_axis1', S.SequenceMask(D, LENGTHS, use_sequence_length=True, axis=1),
         {'data': x(3, 4), 'lengths': np.array([0, 3, 4], np.float32)}),
    case('SequenceMask_no_length', S.SequenceMask(D), {'data': x(3, 2)}),
    case('SequenceReverse', S.SequenceReverse(D, LENGTHS, use_sequence_length=True),
         {'data': x(4, 3, 2), 'lengths': np.array([1, 4, 2], np.float32)}),
    case('SequenceReverse_no_length', S.SequenceReverse(D), {'data': x(4, 3)}),
    case('SequenceLast', S.SequenceLast(D, LENGTHS, use_sequence_length=True),
         {'data': x(4, 3, 2), 'lengths': np.array([1, 4, 2], np.float32)}),
    case('SequenceLast_axis1', S.SequenceLast(D, LENGTHS, use_sequence_length=True, axis=1),
         {'data': x(3, 4), 'lengths': np.array([2, 1, 4], np.float32)}),
    case('SequenceLast_no_length', S.SequenceLast(D, axis=1), {'data': x(3, 4, 2)}),
]
CASES += SEQUENCE_CASES

ROIS = S.var('rois')
_ROI_ROWS = np.array([[0, 0, 0, 7, 7], [1, 2, 1, 30, 20], [-1, 1, 1, 4, 4],
                      [1, 10, 12, 18, 30], [0, 3.4, 2.6, 9.5, 8.5], [2, 0, 0, 5, 5]],
                     np.float32)
_ALIGN_ROWS = np.array([[0, 0, 0, 8, 6], [1, 2, 2, 14, 12], [-1, 1, 1, 4, 4],
                        [1, 4, 6, 6, 16], [0, 6, 2, 6, 10]], np.float32)   # last: zero width
_GRID_SAMPLE_OPSETS = [o for o in OPSETS if o >= 16]
# ONNX Runtime (1.32) has kernels for MaxRoiPool and RoiAlign up to their opset-21
# versions only: the opset 22 revisions (bfloat16 types) are valid ONNX it cannot run
_ROI_OPSETS = sorted({12, 13, min(NEWEST, 21)})
_ROI_ALIGNED_OPSETS = sorted({16, min(NEWEST, 21)})
VISION_CASES = [
    case('Crop', S.Crop(D, h_w=(3, 4), offset=(1, 2), num_args=1), {'data': x(2, 3, 6, 7)}),
    case('Crop_like_center', S.Crop(D, D2, num_args=2, center_crop=True),
         {'data': x(2, 3, 7, 8), 'data2': x(2, 1, 4, 5)}),
    case('Crop_center_dynamic', S.Crop(D, h_w=(3, 3), center_crop=True, num_args=1),
         {'data': x(1, 2, 7, 8)}, dynamic=True, dynamic_input_shapes=[('n', 2, 'h', 'w')],
         dynamic_inputs=[{'data': x(2, 2, 9, 6)}]),
    case('ROIPooling', S.ROIPooling(D, ROIS, pooled_size=(2, 3), spatial_scale=0.5),
         {'data': x(2, 3, 8, 9), 'rois': _ROI_ROWS}, opsets=_ROI_OPSETS),
    case('ROIAlign', S.contrib.ROIAlign(D, ROIS, pooled_size=(2, 2), spatial_scale=0.5,
                                       sample_ratio=2), {'data': x(2, 3, 8, 9),
                                                         'rois': _ALIGN_ROWS},
         opsets=_ROI_OPSETS),
    case('ROIAlign_adaptive', S.contrib.ROIAlign(D, ROIS, pooled_size=(3, 2),
                                                spatial_scale=1.0),
         {'data': x(2, 3, 8, 9), 'rois': _ALIGN_ROWS}, opsets=_ROI_OPSETS),
    case('ROIAlign_position_sensitive',
         S.contrib.ROIAlign(D, ROIS, pooled_size=(2, 2), spatial_scale=0.5, sample_ratio=2,
                            position_sensitive=True),
         {'data': x(2, 8, 8, 9), 'rois': _ALIGN_ROWS}, opsets=_ROI_OPSETS),
    case('ROIAlign_aligned', S.contrib.ROIAlign(D, ROIS, pooled_size=(2, 3), spatial_scale=0.5,
                                               sample_ratio=2, aligned=True),
         {'data': x(2, 3, 8, 9), 'rois': _ALIGN_ROWS}, opsets=_ROI_ALIGNED_OPSETS),
    case('ROIAlign_aligned_adaptive',     # the zero-width box: symmod's 0 / 0 = NaN
         S.contrib.ROIAlign(D, ROIS, pooled_size=(2, 3), spatial_scale=1.0, aligned=True),
         {'data': x(2, 3, 8, 9), 'rois': _ALIGN_ROWS}, opsets=_ROI_ALIGNED_OPSETS),
    case('GridGenerator_affine', S.GridGenerator(D, transform_type='affine',
                                                 target_shape=(4, 5)), {'data': x(2, 6)}),
    case('GridGenerator_warp', S.GridGenerator(D, transform_type='warp'),
         {'data': x(2, 2, 4, 5)}),
    case('BilinearSampler', S.BilinearSampler(D, D2),
         {'data': x(2, 3, 5, 6), 'data2': x(2, 2, 4, 4, low=-1.2, high=1.2)},
         opsets=_GRID_SAMPLE_OPSETS),
    case('SpatialTransformer',
         S.SpatialTransformer(D, D2, target_shape=(5, 4), transform_type='affine',
                              sampler_type='bilinear'),
         {'data': x(2, 3, 6, 6), 'data2': (np.array([1, 0, 0, 0, 1, 0], np.float32)
                                           + x(2, 6, low=-0.3, high=0.3))},
         opsets=_GRID_SAMPLE_OPSETS),
]
CASES += VISION_CASES

ARRAY_CASES = [
    case('eye_linspace_arange', S.broadcast_add(S.broadcast_add(D, S.eye(3, 4, k=1)),
                                                S.linspace(0, 1, 4) + S.arange(2, 6)),
         {'data': x(3, 4)}),
    case('diag_1d', S.diag(D, k=1), {'data': x(3)}),
    case('diag_1d_below', S.diag(D, k=-2), {'data': x(3)}),
    case('diag_2d', S.diag(D, k=-1), {'data': x(4, 3)}),
    case('diag_nd_axes', S.diag(D, k=1, axis1=2, axis2=0), {'data': x(3, 2, 4)},
         dynamic=True, dynamic_input_shapes=[(3, 'n', 4)], dynamic_inputs=[{'data': x(3, 5, 4)}]),
    case('cumsum', S.cumsum(D, axis=1), {'data': x(3, 4)}),
    case('cumsum_flat_dtype', S.cumsum(D, dtype='float64'), {'data': x(3, 4)}),
    case('cumsum_int', S.cumsum(S.Cast(D, dtype='int32'), axis=0),
         {'data': x(3, 4, low=-9, high=9)}),
    case('moments', S.Group(list(S.moments(D, axes=(0, 2)))), {'data': x(2, 3, 4)}),
    case('moments_keepdims', S.Group(list(S.moments(D, axes=(1,), keepdims=True))),
         {'data': x(2, 3, 4)}),
]
CASES += ARRAY_CASES

I = S.image


# ONNX Runtime (1.32) has no kernels for the opset-22 RandomUniform / RandomNormal
_RANDOM_OPSETS = sorted({12, 13, min(NEWEST, 21)})


def pixels(*shape):
    return RNG.randint(0, 256, shape).astype(np.uint8)


IMAGE_CASES = [
    case('SyncBatchNorm', S.contrib.SyncBatchNorm(D, fix_gamma=False, eps=1e-4, key='bn'),
         {'data': x(2, 3, 4, 5)}),
    case('image_to_tensor', I.to_tensor(D), {'data': pixels(5, 6, 3)}),
    case('image_to_tensor_batch', I.to_tensor(D), {'data': x(2, 5, 6, 1, low=0, high=255)}),
    case('image_normalize', I.normalize(D, mean=(0.5, 0.4, 0.3), std=(0.2, 0.3, 0.25)),
         {'data': x(3, 4, 5, low=0, high=1)}),
    case('image_normalize_batch_one_value', I.normalize(D, mean=0.5, std=0.25),
         {'data': x(2, 1, 4, 5, low=0, high=1)}, dynamic=True,
         dynamic_input_shapes=[('n', 1, 'h', 'w')], dynamic_inputs=[{'data': x(3, 1, 2, 7)}]),
    case('image_crop', I.crop(D, x=1, y=2, width=3, height=4), {'data': pixels(7, 6, 3)}),
    case('image_crop_batch', I.crop(D, x=0, y=1, width=5, height=2),
         {'data': x(2, 4, 6, 1)}),
    case('image_flip_left_right', I.flip_left_right(D), {'data': pixels(4, 5, 3)}),
    case('image_flip_top_bottom', I.flip_top_bottom(D), {'data': x(2, 4, 5, 3)},
         dynamic=True, dynamic_input_shapes=[('n', 'h', 'w', 3)],
         dynamic_inputs=[{'data': x(1, 6, 2, 3)}]),
    case('image_resize_nearest', I.resize(D, size=(7, 5), interp=0), {'data': pixels(8, 3, 3)}),
    case('image_resize_bilinear_float', I.resize(D, size=(7, 3)),
         {'data': x(2, 5, 4, 3, low=0, high=255)}),
    case('image_resize_bilinear_uint8', I.resize(D, size=(5, 9)), {'data': pixels(6, 7, 3)}),
    case('image_resize_bilinear_uint8_halving', I.resize(D, size=(3, 2)),
         {'data': pixels(4, 6, 1)}),
    case('image_resize_bicubic_float', I.resize(D, size=4, keep_ratio=True, interp=2),
         {'data': x(6, 9, 3, low=0, high=255)}),
    case('image_adjust_lighting', I.adjust_lighting(D, alpha=(0.05, -0.1, 0.2)),
         {'data': pixels(4, 5, 3)}),
    case('image_adjust_lighting_grey', I.adjust_lighting(D, alpha=(0.05, -0.1, 0.2)),
         {'data': x(4, 5, 1, low=0, high=255)}),
    # the random factors pinned (low == high, std 0) so ONNX Runtime must give symmod's numbers
    case('image_random_brightness_pinned', I.random_brightness(D, min_factor=1.3, max_factor=1.3),
         {'data': pixels(4, 5, 3)}, opsets=_RANDOM_OPSETS),
    case('image_random_contrast_pinned', I.random_contrast(D, min_factor=0.7, max_factor=0.7),
         {'data': x(4, 5, 3, low=0, high=255)}, opsets=_RANDOM_OPSETS),
    case('image_random_saturation_pinned',
         I.random_saturation(D, min_factor=1.4, max_factor=1.4),
         {'data': x(4, 5, 3, low=0, high=255)}, opsets=_RANDOM_OPSETS),
    case('image_random_hue_pinned', I.random_hue(D, min_factor=0.2, max_factor=0.2),
         {'data': x(6, 7, 3, low=0, high=255)}, opsets=_RANDOM_OPSETS),
    case('image_random_hue_pinned_uint8', I.random_hue(D, min_factor=-0.45, max_factor=-0.45),
         {'data': pixels(6, 7, 3)}, opsets=_RANDOM_OPSETS),
    case('image_random_lighting_pinned', I.random_lighting(D, alpha_std=0.0),
         {'data': x(4, 5, 3, low=0, high=255)}, opsets=_RANDOM_OPSETS),
]
CASES += IMAGE_CASES

C = S.contrib
_HALVES = np.array([[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 0.4, -0.6], [3.7, -3.7, 0.0, 2.49]],
                   np.float32)
CONTRIB_CASES = [
    case('softmin', S.softmin(D, axis=1, temperature=2.0), {'data': x(2, 3, 4)}),
    case('smooth_l1', S.smooth_l1(D, scalar=1.5), {'data': x(3, 4, low=-1.5, high=1.5)}),
    case('quadratic', C.quadratic(D, a=0.5, b=-2, c=1.25), {'data': x(3, 4)}),
    case('div_sqrt_dim', C.div_sqrt_dim(D), {'data': x(2, 3, 5)}, dynamic=True,
         dynamic_input_shapes=[('n', 3, 'd')], dynamic_inputs=[{'data': x(1, 3, 7)}]),
    case('gradientmultiplier', C.gradientmultiplier(D, scalar=0.5), {'data': x(3, 4)}),
    case('round_ste', C.round_ste(D), {'data': _HALVES}),
    case('sign_ste', C.sign_ste(D), {'data': _HALVES}),
    case('allclose', C.allclose(D, D2, rtol=1e-2, atol=1e-3),
         {'data': np.array([1.0, np.nan, 3.0, 0.0], np.float32),
          'data2': np.array([1.005, np.nan, 3.02, 0.0005], np.float32)}),
    case('allclose_not', C.allclose(D, D2, equal_nan=False),
         {'data': np.array([1.0, np.nan], np.float32),
          'data2': np.array([1.0, np.nan], np.float32)}),
    case('amp_cast', S.Group([S.amp_cast(D, dtype='float16'),
                              S.amp_cast(S.Cast(D2, dtype='int32'), dtype='float16')]),
         {'data': x(3, 4), 'data2': x(3, 4, low=0, high=9)}),
    case('amp_multicast', S.Group(list(S.amp_multicast(S.Cast(D, dtype='float16'), D2,
                                                       num_outputs=2))),
         {'data': x(3, 4), 'data2': x(3, 4)}),
    case('cast_storage', S.cast_storage(D, stype='default'), {'data': x(3, 4)}),
    case('split_v2', S.Group(list(S._split_v2(D, indices=(0, 1, 3), axis=2))),
         {'data': x(2, 3, 5)}),
    case('split_v2_sections_squeeze',
         S.Group(list(S._split_v2(D, indices=(), sections=3, axis=0, squeeze_axis=True))),
         {'data': x(3, 2, 4)}),
    case('rnn_param_concat', S._rnn_param_concat(D, D2, num_args=2, dim=0),
         {'data': x(6), 'data2': x(4)}),
    case('batch_take', S.batch_take(D, D2),
         {'data': x(4, 3), 'data2': np.array([0, 2, 5, -1], np.int32)}),
    case('gather_nd', S.gather_nd(D, D2),
         {'data': x(3, 4, 2), 'data2': np.array([[0, 2, -1], [1, 3, -4]], np.float32)}),
    case('khatri_rao', S.khatri_rao(D, D2, S.var('data3'), num_args=3),
         {'data': x(2, 3), 'data2': x(4, 3), 'data3': x(1, 3)}),
    case('index_array', C.index_array(D, axes=(0, -1)), {'data': x(2, 3, 4)}),
    case('MultiBoxPrior', C.MultiBoxPrior(D, sizes=(0.5, 0.25), ratios=(1, 2), clip=True),
         {'data': x(1, 3, 4, 5)}),
    case('Convolution_v1', S.Convolution_v1(D, kernel=(3, 3), num_filter=2, pad=(1, 1)),
         {'data': x(2, 3, 5, 5)}),
    case('Pooling_v1', S.Pooling_v1(D, kernel=(2, 2), stride=(2, 2), pool_type='avg'),
         {'data': x(2, 3, 5, 5)}),
    case('BatchNorm_v1', S.BatchNorm_v1(D, fix_gamma=False), {'data': x(2, 3, 4)}),
]
CASES += CONTRIB_CASES

L = S.linalg
_SPD = (np.eye(3) * 2 + 0.1).astype(np.float32)[None].repeat(2, 0) + x(2, 3, 3, low=0, high=0.3)
LINALG_CASES = [
    case('linalg_gemm', L.gemm(D, D2, S.var('c'), transpose_a=True, alpha=0.5, beta=2.0),
         {'data': x(2, 4, 3), 'data2': x(2, 4, 5), 'c': x(2, 3, 5)}),
    case('linalg_syrk', L.syrk(D, alpha=1.5), {'data': x(2, 3, 4)}),
    case('linalg_syrk_transpose', L.syrk(D, transpose=True), {'data': x(3, 4)}),
    case('linalg_trmm', L.trmm(D, D2, alpha=2.0), {'data': x(2, 3, 3), 'data2': x(2, 3, 4)}),
    case('linalg_trmm_upper_right_t', L.trmm(D, D2, lower=False, rightside=True,
                                             transpose=True),
         {'data': x(3, 3), 'data2': x(4, 3)}),
    case('linalg_sumlogdiag', L.sumlogdiag(D), {'data': _SPD}),
    case('linalg_det', L.det(D), {'data': _SPD}, rtol=1e-4, atol=1e-4),
    case('linalg_extractdiag', L.extractdiag(D, offset=1), {'data': x(2, 4, 4)}),
    case('linalg_makediag', L.makediag(D, offset=-1), {'data': x(2, 3)}),
    case('linalg_extracttrian', L.extracttrian(D, offset=-1), {'data': x(2, 4, 4)}),
    case('linalg_maketrian_upper', L.maketrian(D, lower=False), {'data': x(2, 6)}),
    case('slice_assign', S._slice_assign(D, D2, begin=(1, None), end=(3, None), step=(1, 2)),
         {'data': x(4, 5), 'data2': x(2, 3)}),
    case('slice_assign_scalar', S._slice_assign_scalar(D, scalar=2.5, begin=(0, 1),
                                                       end=(None, 3)), {'data': x(3, 4)}),
    case('im2col', S.im2col(D, kernel=(2, 3), stride=(1, 2), pad=(1, 1), dilate=(1, 1)),
         {'data': x(2, 2, 4, 5)}),
    case('ravel_multi_index', S._ravel_multi_index(D, shape=(4, 3, 5)),
         {'data': np.array([[0, 3, 2], [1, 0, 2], [4, 1, 0]], np.float32)}),
    case('unravel_index', S._unravel_index(D, shape=(4, 3, 5)),
         {'data': np.array([0, 7, 59, 31], np.float32)}),
    case('softmax_cross_entropy', S.softmax_cross_entropy(D, D2),
         {'data': x(4, 5), 'data2': np.array([0, 4, 2, 1], np.float32)}),
    case('gluon_softmax_ce_loss', S._internal._gluon_softmax_ce_loss(D, D2),
         {'data': x(4, 5), 'data2': np.array([0, 4, 7, -1], np.float32)}),
]
CASES += LINALG_CASES

QKV = S.var('qkv')
ATT = S.var('att')
ATTENTION_CASES = [
    case('interleaved_selfatt', S.Group([
        C.interleaved_matmul_selfatt_qk(QKV, heads=2),
        C.interleaved_matmul_selfatt_valatt(QKV, ATT, heads=2)]),
        {'qkv': x(4, 3, 2 * 3 * 5), 'att': x(6, 4, 4)}),
    case('interleaved_encdec', S.Group([
        C.interleaved_matmul_encdec_qk(D, QKV, heads=3),
        C.interleaved_matmul_encdec_valatt(QKV, ATT, heads=3)]),
        {'data': x(2, 2, 3 * 4), 'qkv': x(5, 2, 3 * 2 * 4), 'att': x(6, 2, 5)}),
    case('interleaved_selfatt_dynamic',     # one source: length and batch vary together
         C.interleaved_matmul_selfatt_valatt(
             QKV, S.softmax(C.interleaved_matmul_selfatt_qk(QKV, heads=2), axis=-1), heads=2),
         {'qkv': x(4, 3, 2 * 3 * 5)}, dynamic=True, dynamic_input_shapes=[('L', 'B', 30)],
         dynamic_inputs=[{'qkv': x(6, 1, 30)}]),
    case('AdaptiveAvgPooling2D', C.AdaptiveAvgPooling2D(D, output_size=(3, 2)),
         {'data': x(2, 3, 7, 5)}),
    case('BilinearResize2D', C.BilinearResize2D(D, height=5, width=9), {'data': x(1, 2, 4, 6)}),
    case('BilinearResize2D_like_unaligned', C.BilinearResize2D(D, D2, mode='like',
                                                              align_corners=False),
         {'data': x(1, 2, 6, 5), 'data2': x(1, 1, 3, 8)}),
]
CASES += ATTENTION_CASES

_BOXES_A = np.array([[0, 0, 4, 4], [1, 1, 3, 5], [2, 2, 2, 2], [5, 5, 3, 3]], np.float32)
_BOXES_B = np.array([[[1, 1, 5, 5], [0, 0, 1, 1], [3, 0, 6, 2]]], np.float32)
_ANCHORS = np.array([[[0, 0, 2, 2], [1, 1, 4, 3], [2, 0, 5, 4]]], np.float32)
BOX_CASES = [
    case('box_iou', C.box_iou(D, D2), {'data': _BOXES_A, 'data2': _BOXES_B}),
    case('box_iou_center', C.box_iou(D, D2, format='center'),
         {'data': _BOXES_A + np.float32([0, 0, 1, 1]), 'data2': _BOXES_B[0]}),
    case('box_decode', C.box_decode(D, S.var('anchors'), std0=0.1, std1=0.1, std2=0.2,
                                    std3=0.2, format='corner'),
         {'data': x(2, 3, 4, low=-1, high=1), 'anchors': _ANCHORS}),
    case('box_decode_center_clip', C.box_decode(D, S.var('anchors'), clip=0.5),
         {'data': x(1, 3, 4, low=-1, high=1), 'anchors': _ANCHORS + np.float32([0, 0, 1, 1])}),
    case('box_encode', S.Group(list(C.box_encode(
        S.var('samples'), S.var('matches'), S.var('anchors'), S.var('refs'), S.var('means'),
        S.var('stds')))),
        {'samples': np.array([[1, 0, 1]], np.float32), 'matches': np.array([[2, 0, 1]], np.float32),
         'anchors': _ANCHORS, 'refs': _BOXES_B[:, :, :] + np.float32([0, 0, 1, 1]),
         'means': np.array([0, 0.1, 0, 0], np.float32),
         'stds': np.array([0.1, 0.1, 0.2, 0.2], np.float32)}),
]
CASES += BOX_CASES
CASES += [   # sparse-storage operators on dense arrays
    case('SparseEmbedding', C.SparseEmbedding(D, S.var('weight'), input_dim=6, output_dim=3),
         {'data': np.array([[0, 5], [2, 2]], np.float32)}),
    case('square_sum', S._square_sum(D, axis=1, keepdims=True), {'data': x(3, 4)}),
    case('scatter_elemwise_div', S._scatter_elemwise_div(D, D2),
         {'data': x(3, 4), 'data2': x(3, 4, low=0.5, high=2)}),
    case('scatter_plus_minus_scalar', S._scatter_minus_scalar(S._scatter_plus_scalar(
        D, scalar=2.5), scalar=0.75), {'data': x(3, 4)}),
    case('sparse_retain', S._sparse_retain(D, D2),
         {'data': x(5, 2), 'data2': np.array([3, 0, 9], np.float32)}),
]
CASES += [
    case('scatter_nd', S.scatter_nd(D, D2, shape=(3, 4, 2)),
         {'data': x(3, 2), 'data2': np.array([[0, 2, -1], [1, -1, 0]], np.float32)}),
    case('index_copy', C.index_copy(D, D2, S.var('new')),
         {'data': x(5, 3), 'data2': np.array([3, -5], np.float32), 'new': x(2, 3)}),
    case('fill_element_0index', S.fill_element_0index(D, D2, S.var('cols')),
         {'data': x(3, 4), 'data2': x(3), 'cols': np.array([0, 3, -1], np.float32)}),
    case('identity_with_attr_like_rhs', S._internal._identity_with_attr_like_rhs(D, D2),
         {'data': x(3, 4), 'data2': x(3, 4)}),
]
_PDF_PARAMS = np.array([[0.5, 1.5], [2.0, 3.0]], np.float32)
CASES += [
    case('random_pdf_uniform', S._random_pdf_uniform(D, S.var('low'), S.var('high')),
         {'data': x(2, 3, low=0, high=1), 'low': np.array([-1, 0], np.float32),
          'high': np.array([2, 0.5], np.float32)}),
    case('random_pdf_normal_log', S._random_pdf_normal(D, S.var('mu'), S.var('sigma'),
                                                       is_log=True),
         {'data': x(2, 2, 3), 'mu': _PDF_PARAMS, 'sigma': _PDF_PARAMS + 0.5}),
    case('random_pdf_exponential', S._random_pdf_exponential(D, S.var('lam')),
         {'data': x(2, 4, low=0, high=3), 'lam': np.array([0.5, 2], np.float32)}),
]
CASES += [   # a normal of scale 0 is its mean (no RandomNormal: ONNX Runtime aborts on it)
    case('random_normal_scale0', S._random_normal(loc=1.5, scale=0, shape=(2, 3)), {}),
    case('random_normal_like_scale0', S._random_normal_like(D, loc=-2, scale=0),
         {'data': x(3, 2)}),
]

# Random augmentations: ONNX Runtime draws its own numbers, so these are checked by
# test_onnx_export_random.py (draws pinned to chosen values, distribution parameters)
RANDOM_CASES = [
    case('image_random_flip_left_right', I.random_flip_left_right(D), {'data': pixels(4, 5, 3)}),
    case('image_random_flip_top_bottom', I.random_flip_top_bottom(D), {'data': x(2, 4, 5, 3)}),
    case('image_random_brightness', I.random_brightness(D, min_factor=0.5, max_factor=1.5),
         {'data': pixels(4, 5, 3)}),
    case('image_random_contrast', I.random_contrast(D, min_factor=0.3, max_factor=1.2),
         {'data': x(4, 5, 3, low=0, high=255)}),
    case('image_random_saturation', I.random_saturation(D, min_factor=0.1, max_factor=1.9),
         {'data': pixels(4, 5, 3)}),
    case('image_random_hue', I.random_hue(D, min_factor=-0.3, max_factor=0.4),
         {'data': x(5, 4, 3, low=0, high=255)}),
    case('image_random_lighting', I.random_lighting(D, alpha_std=0.3),
         {'data': x(4, 5, 3, low=0, high=255)}),
    case('image_random_color_jitter', I.random_color_jitter(
        D, brightness=0.3, contrast=0.4, saturation=0.5, hue=0.2),
        {'data': x(4, 5, 3, low=0, high=255)}),
    case('image_random_color_jitter_two', I.random_color_jitter(
        D, brightness=0.0, contrast=0.4, saturation=0.0, hue=0.2), {'data': pixels(4, 5, 3)}),
    case('random_uniform', S._random_uniform(low=2, high=3, shape=(3, 40)), {}),
    case('random_uniform_like', S._random_uniform_like(D, low=-1, high=1), {'data': x(4, 30)}),
    case('random_normal', S._random_normal(loc=1, scale=2, shape=(400,)), {}),
    case('random_normal_like', S._random_normal_like(D, loc=-1, scale=0.5),
         {'data': x(20, 20)}),
    case('random_exponential', S._random_exponential(lam=2, shape=(400,)), {}),
    case('random_exponential_like', S._random_exponential_like(D, lam=4), {'data': x(400)}),
    case('random_randint', S._random_randint(low=-3, high=5, shape=(400,)), {}),
    case('sample_uniform', S._sample_uniform(D, D2, shape=(200,)),
         {'data': np.array([0, 10], np.float32), 'data2': np.array([1, 12], np.float32)}),
    case('sample_normal', S._sample_normal(D, D2, shape=(200,)),
         {'data': np.array([0, 10], np.float32), 'data2': np.array([1, 0.5], np.float32)}),
    case('sample_exponential', S._sample_exponential(D, shape=(400,)),
         {'data': np.array([1, 4], np.float32)}),
    case('sample_multinomial', S.Group(list(S._sample_multinomial(D, shape=(200,),
                                                                   get_prob=True))),
         {'data': np.array([[0.2, 0.8, 0.0], [0.5, 0.25, 0.25]], np.float32)}),
    case('shuffle', S._shuffle(D), {'data': np.arange(24, dtype=np.float32).reshape(8, 3)}),
]

from onnx_export_cases_graphs import (GRAPH_CASES, OPTIMIZER_CASES,  # noqa: E402
                                      QUANTIZATION_CASES, BLOCK_CASES, SPECIAL_CASES,
                                      DENSITY_CASES, VISION_CASES, CTC_CASES, NMS_CASES,
                                      MULTIBOX_CASES, MATCHING_CASES, CHOLESKY_CASES,
                                      FACTORIZATION_CASES, HAWKES_CASES)
CASES += (GRAPH_CASES + OPTIMIZER_CASES + QUANTIZATION_CASES + BLOCK_CASES + SPECIAL_CASES
          + DENSITY_CASES + VISION_CASES + CTC_CASES + NMS_CASES + MULTIBOX_CASES
          + MATCHING_CASES + CHOLESKY_CASES + FACTORIZATION_CASES + HAWKES_CASES)
