"""Initializers: name rules, __init__ attributes, dumps/create, and the values,
against MXNet 1.9.1 (tests/data/initializer_reference.json) where they are
deterministic and against the distributions' formulas where they are random."""
import json
import logging
import math
import os
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod.initializer import InitDesc

REF = json.load(open(os.path.join(os.path.dirname(__file__), 'data',
                                  'initializer_reference.json')))


def run(init, name, shape, attrs=None, legacy=False):
    """The same probe as the generator: fill 7s, return values or the error."""
    arr = mx.nd.full(shape, 7.0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            init(name if legacy else InitDesc(name, attrs), arr)
        return {'values': arr.asnumpy().tolist(),
                'warnings': [w.category.__name__ for w in caught]}
    except Exception as err:
        return {'error': type(err).__name__, 'message': str(err)}


def test_init_desc_is_a_string_with_attrs():
    desc = InitDesc('fc1_weight', {'__init__': '["zero", {}]'})
    assert desc == 'fc1_weight' and isinstance(desc, str)
    assert desc.attrs == {'__init__': '["zero", {}]'} and desc.global_init is None
    assert InitDesc('x').attrs == {}


@pytest.mark.parametrize('key', sorted(REF['dumps']))
def test_dumps_matches_mxnet(key):
    inits = {
        'zero': mx.init.Zero(), 'one': mx.init.One(), 'constant': mx.init.Constant(0.25),
        'constant_array': mx.init.Constant(mx.nd.array([1, 2])),
        'uniform': mx.init.Uniform(), 'uniform_0.2': mx.init.Uniform(0.2),
        'normal': mx.init.Normal(), 'xavier': mx.init.Xavier(),
        'xavier_custom': mx.init.Xavier('gaussian', 'in', 2.34),
        'msraprelu': mx.init.MSRAPrelu(), 'msraprelu_custom': mx.init.MSRAPrelu('in', 0.1),
        'orthogonal': mx.init.Orthogonal(), 'bilinear': mx.init.Bilinear(),
        'lstmbias': mx.init.LSTMBias(2.0),
        'fusedrnn': mx.init.FusedRNN(mx.init.Xavier(), 8, 2, 'gru', True, 1.5)}
    assert inits[key].dumps() == REF['dumps'][key]


@pytest.mark.parametrize('key', sorted(REF['dumps']))
def test_create_reads_dumps(key):
    created = mx.init.create(REF['dumps'][key])
    assert created.dumps() == REF['dumps'][key]


@pytest.mark.parametrize('name', sorted(REF['dispatch']))
def test_name_rules_match_mxnet(name):
    shape = (6, 1, 2, 2) if 'upsampling' in name else (6,)
    assert run(mx.init.Constant(3.0), name, shape) == REF['dispatch'][name]


@pytest.mark.parametrize('name', sorted(REF['legacy_dispatch']))
def test_legacy_string_calls_match_mxnet(name):
    shape = (6, 1, 2, 2) if 'upsampling' in name else (6,)
    assert run(mx.init.Constant(3.0), name, shape, legacy=True) == REF['legacy_dispatch'][name]


def test_legacy_call_checks_types():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with pytest.raises(TypeError, match='arr must be NDArray'):
            mx.init.Zero()('w_weight', np.zeros(3))
        with pytest.raises(TypeError, match='name must be string'):
            mx.init.Zero()._legacy_init(3, mx.nd.zeros(3))


@pytest.mark.parametrize('key', sorted(REF['init_attr']))
def test_init_attribute_overrides_name_rules(key):
    cases = {'zero': ('bn_moving_mean', (4,), '["zero", {}]'),
             'one': ('bn_moving_var', (4,), '["one", {}]'),
             'constant': ('p_gamma', (4,), '["Constant", {"value": 0.25}]'),
             'name_only': ('w', (4,), 'ones'),
             'lstmbias': ('lstm_i2h_bias', (8,), '["lstmbias", {}]')}
    name, shape, attr = cases[key]
    assert run(mx.init.Constant(3.0), name, shape, {'__init__': attr}) == REF['init_attr'][key]


def test_global_init_defaults_to_the_caller():
    desc = InitDesc('fc_weight')
    init = mx.init.Zero()
    init(desc, mx.nd.ones((2, 2)))
    assert desc.global_init is init


@pytest.mark.parametrize('shape', sorted(REF['bilinear']))
def test_bilinear_matches_mxnet(shape):
    shape_t = tuple(int(s) for s in shape.strip('()').split(','))
    assert run(mx.init.Bilinear(), 'up_weight', shape_t) == REF['bilinear'][shape]


def test_lstm_bias_matches_mxnet():
    got = run(mx.init.LSTMBias(2.5), 'lstm_i2h_bias', (12,),
              {'__init__': '["lstmbias", {"forget_bias": 2.5}]'})
    assert got == REF['lstmbias']


@pytest.mark.parametrize('key', sorted(REF['errors']))
def test_error_messages_match_mxnet(key):
    init = {'xavier_vector': mx.init.Xavier(), 'xavier_factor': mx.init.Xavier(factor_type='bad'),
            'xavier_rnd': mx.init.Xavier(rnd_type='bad')}[key]
    shape = (5,) if key == 'xavier_vector' else (5, 2)
    assert run(init, 'v_weight', shape) == REF['errors'][key]


@pytest.mark.parametrize('key', sorted(REF['fusedrnn']))
def test_fused_rnn_layout_matches_mxnet(key):
    ref = REF['fusedrnn'][key]
    hidden, layers, mode, bidir = ref['args']
    arr = mx.nd.zeros((ref['size'],))
    init = mx.init.FusedRNN(mx.init.One(), hidden, layers, mode, bidir, forget_bias=5.0)
    init._init_weight(InitDesc('rnn_parameters', global_init=mx.init.Zero()), arr)
    assert arr.asnumpy().tolist() == ref['values']


def test_fused_rnn_through_init_attribute_and_global_fallback():
    arr = mx.nd.zeros((4 * 3 * (2 + 3 + 2),))        # lstm, 3 hidden, 2 inputs
    fused = mx.init.FusedRNN(None, 3, 1, 'lstm', forget_bias=2.0)
    mx.init.One()(InitDesc('lstm_parameters', {'__init__': fused.dumps()}), arr)
    values = arr.asnumpy()
    assert np.all(values[:4 * 3 * 5] == 1)            # weights from the global One()
    biases = values[4 * 3 * 5:].reshape(2, 4, 3)      # i2h, h2h x gates i f c o
    np.testing.assert_array_equal(biases[:, 1], 2.0)
    np.testing.assert_array_equal(biases[:, [0, 2, 3]], 0.0)
    with pytest.raises(ValueError, match='Invalid parameters size for FusedRNNCell'):
        fused._init_weight(InitDesc('p', global_init=mx.init.One()), mx.nd.zeros((7,)))


@pytest.mark.parametrize('shape', [(64, 32), (16, 8, 3, 3), (50, 20, 5)])
@pytest.mark.parametrize('factor_type', ['avg', 'in', 'out'])
@pytest.mark.parametrize('rnd_type', ['uniform', 'gaussian'])
def test_xavier_scale_and_statistics(shape, factor_type, rnd_type):
    magnitude = 2.5
    init = mx.init.Xavier(rnd_type, factor_type, magnitude)
    receptive = float(np.prod(shape[2:])) if len(shape) > 2 else 1.
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    factor = {'avg': (fan_in + fan_out) / 2., 'in': fan_in, 'out': fan_out}[factor_type]
    scale = math.sqrt(magnitude / factor)
    assert init.scale(shape) == pytest.approx(scale)
    arr = mx.nd.zeros(shape)
    init(InitDesc('w_weight'), arr)
    values = arr.asnumpy().ravel()
    n = values.size
    if rnd_type == 'uniform':
        assert np.abs(values).max() <= scale
        expected_std = scale / math.sqrt(3)
    else:
        expected_std = scale
    # sample std within 5 standard errors; mean within 5 standard errors of 0
    assert abs(values.std() - expected_std) < 5 * expected_std / math.sqrt(2 * n) + \
        (0.05 * expected_std if rnd_type == 'uniform' else 0)
    assert abs(values.mean()) < 5 * expected_std / math.sqrt(n)


def test_msra_prelu_is_gaussian_xavier_with_he_magnitude():
    init = mx.init.MSRAPrelu(factor_type='in', slope=0.0)
    assert (init.rnd_type, init.magnitude) == ('gaussian', 2.0)
    arr = mx.nd.zeros((256, 128))
    init(InitDesc('w_weight'), arr)
    assert arr.asnumpy().std() == pytest.approx(math.sqrt(2.0 / 128), rel=0.02)


@pytest.mark.parametrize('shape', [(6, 10), (10, 6), (4, 2, 3, 3)])
@pytest.mark.parametrize('rand_type', ['uniform', 'normal'])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, rand_type):
    arr = mx.nd.zeros(shape)
    mx.init.Orthogonal(scale=1.5, rand_type=rand_type)(InitDesc('w_weight'), arr)
    w = arr.asnumpy().reshape(shape[0], -1) / 1.5
    gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(gram, np.eye(gram.shape[0]), atol=1e-5)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
def test_uniform_and_normal_ranges_and_dtypes(dtype):
    arr = mx.nd.zeros((200, 50), dtype=dtype)
    mx.init.Uniform(0.2)(InitDesc('w_weight'), arr)
    values = arr.asnumpy()
    assert values.dtype == np.dtype(dtype)
    assert values.min() >= -0.2 and values.max() <= 0.2
    assert values.std() == pytest.approx(0.2 / math.sqrt(3), rel=0.03)
    mx.init.Normal(0.3)(InitDesc('w_weight'), arr)
    assert arr.asnumpy().std() == pytest.approx(0.3, rel=0.03)


def test_random_initializers_follow_mx_random_seed():
    def draw():
        arr = mx.nd.zeros((5, 4))
        mx.init.Xavier()(InitDesc('w_weight'), arr)
        return arr.asnumpy()
    mx.random.seed(7)
    first = draw()
    mx.random.seed(7)
    np.testing.assert_array_equal(first, draw())
    assert not np.array_equal(first, draw())


def test_constant_with_array_value():
    arr = mx.nd.zeros((2, 2))
    mx.init.Constant(mx.nd.array([[1, 2], [3, 4]]))(InitDesc('w_weight'), arr)
    np.testing.assert_array_equal(arr.asnumpy(), [[1, 2], [3, 4]])


def test_mixed_uses_first_matching_pattern():
    init = mx.init.Mixed(['.*bias', '.*'], [mx.init.Constant(5.0), mx.init.One()])
    bias, weight = mx.nd.zeros((3,)), mx.nd.zeros((2, 2))
    init(InitDesc('fc_bias'), bias)
    init(InitDesc('fc_weight'), weight)
    assert bias.asnumpy().tolist() == [0, 0, 0]            # Constant's bias rule still applies
    assert weight.asnumpy().tolist() == [[1, 1], [1, 1]]
    init = mx.init.Mixed(['fc.*'], [mx.init.One()])
    with pytest.raises(ValueError, match='Parameter name conv_weight did not match any pattern'):
        init(InitDesc('conv_weight'), weight)


def test_load_from_dict_and_file(tmp_path, caplog):
    params = {'arg:fc_weight': mx.nd.array([[1., 2.]]), 'aux:bn_moving_mean': mx.nd.array([3.]),
              'plain': mx.nd.array([4.])}
    init = mx.init.Load(params, default_init=mx.init.One(), verbose=True)
    weight, other = mx.nd.zeros((1, 2)), mx.nd.zeros((2,))
    with caplog.at_level(logging.INFO):
        init(InitDesc('fc_weight'), weight)
        init(InitDesc('out_weight'), other)
    assert weight.asnumpy().tolist() == [[1., 2.]] and other.asnumpy().tolist() == [1., 1.]
    assert caplog.messages == ['Initialized fc_weight by loading',
                               'Initialized out_weight by default']
    with pytest.raises(AssertionError, match=r'Shape mismatch, target \(3,\) vs loaded \(1,\)'):
        init(InitDesc('plain'), mx.nd.zeros((3,)))
    with pytest.raises(AssertionError, match='no default Initializer is provided'):
        mx.init.Load(params)(InitDesc('missing'), mx.nd.zeros((1,)))
    path = str(tmp_path / 'p.params')
    mx.nd.save(path, params)
    loaded = mx.init.Load(path)
    target = mx.nd.zeros((1,))
    loaded(InitDesc('bn_moving_mean'), target)
    assert target.asnumpy().tolist() == [3.]


def test_register_create_and_equality():
    @mx.init.register
    @mx.init.alias('tenfold')
    class TenInit(mx.init.Initializer):
        def _init_weight(self, _, arr):
            arr[:] = 10

    arr = mx.nd.zeros((2,))
    mx.init.create('tenfold')(InitDesc('a_weight'), arr)
    assert arr.asnumpy().tolist() == [10, 10]
    assert isinstance(mx.init.create('teninit'), TenInit)
    assert mx.init.create({'initializer': 'normal', 'sigma': 0.3}) == mx.init.Normal(0.3)
    assert mx.init.Normal(0.3) != mx.init.Normal(0.2)
    assert mx.init.Uniform(0.3) != mx.init.Normal(0.3)
    xavier = mx.init.Xavier()
    assert mx.init.create(xavier) is xavier
    with pytest.raises(AssertionError, match='bogus is not registered'):
        mx.init.create('bogus')
    with pytest.raises(NotImplementedError, match='Must override it'):
        mx.init.Initializer()(InitDesc('w_weight'), arr)
    with pytest.warns(UserWarning, match='TenInit registered with name teninit is '
                                         'overriding existing initializer'):
        mx.init.register(TenInit)


def test_fixed_rules_can_be_overridden_one_at_a_time():
    class BiasTwo(mx.init.Zero):
        def _init_bias(self, _, arr):
            arr[:] = 2.0

    init = BiasTwo()
    values = {}
    for name in ('fc_bias', 'bn_beta', 'bn_gamma', 'q_min', 'q_max'):
        arr = mx.nd.full((2,), 7.0)
        init(InitDesc(name), arr)
        values[name] = arr.asnumpy().tolist()
    assert values == {'fc_bias': [2., 2.], 'bn_beta': [0., 0.], 'bn_gamma': [1., 1.],
                      'q_min': [0., 0.], 'q_max': [1., 1.]}
    quantized = mx.nd.full((3,), 7, dtype='int8')
    init(InitDesc('fc_bias_quantize'), quantized)
    assert quantized.dtype == np.int8 and quantized.asnumpy().tolist() == [0, 0, 0]


def test_verbose_logging(caplog):
    init = mx.init.One().set_verbosity(True)
    arr = mx.nd.full((4,), 3.0)
    with caplog.at_level(logging.INFO):
        init(InitDesc('fc_weight'), arr)
        init(InitDesc('fc_bias'), arr)
        init(InitDesc('bn_moving_var', {'__init__': '["one", {}]'}), arr)
    assert caplog.messages == ['Initialized fc_weight as weight: 1.0',
                               'Initialized fc_bias as bias: 0.0',
                               'Initialized bn_moving_var as ["one", {}]: 1.0']


def test_quantized_weight_is_one_int8_value():
    arr = mx.nd.zeros((5,), dtype='int8')
    mx.init.Zero()(InitDesc('conv_weight_quantize'), arr)
    values = arr.asnumpy()
    assert values.dtype == np.int8 and len(set(values.tolist())) == 1
    assert -127 <= values[0] < 127
