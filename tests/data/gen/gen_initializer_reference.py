"""Record MXNet 1.9.1's deterministic initializer results for tests/test_initializer.py.

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_initializer_reference.py

Writes tests/data/initializer_reference.json.
"""
import json
import os
import warnings

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'initializer_reference.json')


def run(init, name, shape, attrs=None, legacy=False):
    """Fill an array of 7s with ``init`` and return the values or the error."""
    arr = mx.nd.full(shape, 7.0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            desc = name if legacy else mx.init.InitDesc(name, attrs)
            init(desc, arr)
        return {'values': arr.asnumpy().tolist(),
                'warnings': [w.category.__name__ for w in caught]}
    except Exception as err:      # record what MXNet raises
        return {'error': type(err).__name__, 'message': str(err)}


def main():
    ref = {'mxnet_version': mx.__version__}
    ref['dumps'] = {
        'zero': mx.init.Zero().dumps(), 'one': mx.init.One().dumps(),
        'constant': mx.init.Constant(0.25).dumps(),
        'constant_array': mx.init.Constant(mx.nd.array([1, 2])).dumps(),
        'uniform': mx.init.Uniform().dumps(), 'uniform_0.2': mx.init.Uniform(0.2).dumps(),
        'normal': mx.init.Normal().dumps(),
        'xavier': mx.init.Xavier().dumps(),
        'xavier_custom': mx.init.Xavier('gaussian', 'in', 2.34).dumps(),
        'msraprelu': mx.init.MSRAPrelu().dumps(),
        'msraprelu_custom': mx.init.MSRAPrelu('in', 0.1).dumps(),
        'orthogonal': mx.init.Orthogonal().dumps(),
        'bilinear': mx.init.Bilinear().dumps(), 'lstmbias': mx.init.LSTMBias(2.0).dumps(),
        'fusedrnn': mx.init.FusedRNN(mx.init.Xavier(), 8, 2, 'gru', True, 1.5).dumps(),
    }
    const = mx.init.Constant(3.0)
    names = ['fc_weight', 'fc_bias', 'bn_gamma', 'bn_beta', 'q_min', 'q_max', 'bn_moving_mean',
             'bn_moving_var', 'x_moving_inv_var', 'x_moving_avg', 'upsampling0_weight',
             'stn_loc_weight', 'stn_loc_bias', 'data', 'conv_weight_quantize_no']
    ref['dispatch'] = {name: run(const, name, (6, 1, 2, 2) if 'upsampling' in name else (6,))
                       for name in names}
    ref['legacy_dispatch'] = {name: run(const, name,
                                        (6, 1, 2, 2) if 'upsampling' in name else (6,),
                                        legacy=True)
                              for name in names}
    ref['init_attr'] = {
        'zero': run(const, 'bn_moving_mean', (4,), {'__init__': '["zero", {}]'}),
        'one': run(const, 'bn_moving_var', (4,), {'__init__': '["one", {}]'}),
        'constant': run(const, 'p_gamma', (4,), {'__init__': '["Constant", {"value": 0.25}]'}),
        'name_only': run(const, 'w', (4,), {'__init__': 'ones'}),
        'lstmbias': run(const, 'lstm_i2h_bias', (8,), {'__init__': '["lstmbias", {}]'}),
    }
    ref['bilinear'] = {str(shape): run(mx.init.Bilinear(), 'up_weight', shape)
                       for shape in [(1, 1, 4, 4), (2, 3, 3, 3), (1, 2, 5, 6), (1, 1, 2, 7)]}
    ref['lstmbias'] = run(mx.init.LSTMBias(2.5), 'lstm_i2h_bias', (12,),
                          {'__init__': '["lstmbias", {"forget_bias": 2.5}]'})
    ref['errors'] = {
        'xavier_vector': run(mx.init.Xavier(), 'v_weight', (5,)),
        'xavier_factor': run(mx.init.Xavier(factor_type='bad'), 'v_weight', (5, 2)),
        'xavier_rnd': run(mx.init.Xavier(rnd_type='bad'), 'v_weight', (5, 2)),
    }
    # FusedRNN with One(): weights become 1, biases 0, LSTM forget-gate biases forget_bias
    fused = {}
    for key, (hidden, layers, mode, bidir, inputs) in {
            'lstm_1layer': (4, 1, 'lstm', False, 3),
            'gru_2layer_bidir': (3, 2, 'gru', True, 2),
            'rnn_tanh_2layer': (2, 2, 'rnn_tanh', False, 3),
            'lstm_2layer_bidir': (2, 2, 'lstm', True, 3)}.items():
        gates = {'lstm': 4, 'gru': 3, 'rnn_tanh': 1}[mode]
        b = 2 if bidir else 1
        size = (inputs + hidden + 2) * hidden * gates * b \
            + (layers - 1) * gates * hidden * (hidden + b * hidden + 2) * b
        init = mx.init.FusedRNN(mx.init.One(), hidden, layers, mode, bidir, forget_bias=5.0)
        arr = mx.nd.zeros((size,))
        init._init_weight(mx.init.InitDesc('rnn_parameters', global_init=mx.init.Zero()), arr)
        fused[key] = {'args': [hidden, layers, mode, bidir], 'size': size,
                      'values': arr.asnumpy().tolist()}
    ref['fusedrnn'] = fused
    with open(OUT, 'w') as f:
        json.dump(ref, f, sort_keys=True, separators=(',', ':'))
        f.write('\n')


if __name__ == '__main__':
    main()
