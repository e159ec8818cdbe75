"""gluon.rnn's fused layers (RNN, LSTM, GRU) against MXNet 1.9.1's numbers
(tests/data/gen/gen_rnn_fused_reference.py) and their shape/state behaviour."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                    'rnn_fused_reference.npz')


@pytest.fixture(scope='module')
def ref():
    with np.load(DATA) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize('cls_name', ['LSTM', 'GRU', 'RNN'])
def test_layer_against_mxnet(ref, cls_name):
    key = 'gluon_%s@' % cls_name
    meta = json.loads(str(ref[key + 'meta']))
    x_np = ref[key + 'x']
    layout = meta['kwargs'].get('layout', 'TNC')
    layer = getattr(mx.gluon.rnn, cls_name)(3, prefix='layer_', **meta['kwargs'])
    layer.initialize()
    states = [mx.nd.array(ref[key + 'state%d' % i]) for i in range(2 if cls_name == 'LSTM'
                                                                    else 1)]
    x = mx.nd.array(x_np)
    layer(x, states)      # deferred initialization from the input
    params = layer.collect_params()
    assert sorted(k[len('layer_'):] for k in params.keys()) == meta['param_names']
    assert sorted(layer._collect_params_with_prefix()) == meta['saved_keys']
    assert repr(layer) == meta['repr']
    for name in meta['param_names']:
        params['layer_' + name].set_data(mx.nd.array(ref[key + 'param_' + name]))
    x.attach_grad()
    with mx.autograd.record():
        out, new_states = layer(x, states)
        loss = sum((a * mx.nd.array(ref[key + 'head%d' % i])).sum()
                   for i, a in enumerate([out] + new_states))
    loss.backward()
    assert_almost_equal(out.asnumpy(), ref[key + 'out'], rtol=1e-5, atol=1e-6)
    for i, state in enumerate(new_states):
        assert_almost_equal(state.asnumpy(), ref[key + 'new_state%d' % i], rtol=1e-5,
                            atol=1e-6)
    assert_almost_equal(x.grad.asnumpy(), ref[key + 'x_grad'], rtol=1e-4, atol=1e-5)
    for name in meta['param_names']:
        assert_almost_equal(params['layer_' + name].grad().asnumpy(),
                            ref[key + 'grad_' + name], rtol=1e-4, atol=1e-5)
    assert out.shape[layout.find('T')] == x_np.shape[layout.find('T')]


def test_states_returned_only_when_given():
    layer = mx.gluon.rnn.GRU(4, num_layers=2, bidirectional=True)
    layer.initialize()
    x = mx.nd.ones((3, 2, 5))
    out = layer(x)
    assert isinstance(out, mx.nd.NDArray) and out.shape == (3, 2, 8)
    out, states = layer(x, layer.begin_state(batch_size=2))
    assert [s.shape for s in states] == [(4, 2, 4)]


def test_hybridized_layer_matches_imperative():
    layer = mx.gluon.rnn.LSTM(4, num_layers=2, layout='NTC')
    layer.initialize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3, 5)))
    states = layer.begin_state(batch_size=2)
    out, new_states = layer(x, states)
    layer.hybridize()
    h_out, h_states = layer(x, states)
    assert_almost_equal(h_out.asnumpy(), out.asnumpy(), rtol=1e-6, atol=1e-7)
    for a, b in zip(h_states, new_states):
        assert_almost_equal(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)


def test_wrong_state_shape():
    layer = mx.gluon.rnn.GRU(4, input_size=5)
    layer.initialize()
    with pytest.raises(ValueError, match='Invalid recurrent state shape'):
        layer(mx.nd.ones((3, 2, 5)), mx.nd.zeros((1, 3, 4)))


def test_begin_state_names_and_lstm_states():
    layer = mx.gluon.rnn.LSTM(6, num_layers=3, prefix='enc_')
    states = layer.begin_state(batch_size=4)
    assert [s.shape for s in states] == [(3, 4, 6), (3, 4, 6)]
    syms = layer.begin_state(func=mx.sym.var)
    assert [s.name for s in syms] == ['enc_h0_0', 'enc_h0_1']
    assert layer.state_info(2)[0] == {'shape': (3, 2, 6), '__layout__': 'LNC',
                                      'dtype': 'float32'}


def test_symbolic_graph_uses_the_fused_operator():
    layer = mx.gluon.rnn.LSTM(3, num_layers=2, input_size=5, prefix='lstm_')
    out = layer(mx.sym.var('data'))
    ops = [n['op'] for n in json.loads(out.tojson())['nodes']]
    assert ops.count('RNN') == 1 and ops.count('_rnn_param_concat') == 1
    assert ops.count('Reshape') == 8
    assert out.infer_shape(data=(4, 2, 5))[1] == [(4, 2, 3)]


# ---- _unfuse: the layer as a stack of step cells ------------------------------------------
@pytest.mark.parametrize('cls,kwargs', [(mx.gluon.rnn.LSTM, {'bidirectional': True}),
                                        (mx.gluon.rnn.GRU, {}),
                                        (mx.gluon.rnn.RNN, {'activation': 'tanh'})])
def test_unfused_stack_shares_parameters_and_computes_the_same(cls, kwargs):
    layer = cls(4, num_layers=2, input_size=3, **kwargs)
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (5, 2, 3)))
    want = layer(x).asnumpy()
    stack = layer._unfuse()
    assert list(stack.collect_params().keys()) == list(layer.collect_params().keys())
    for name, param in stack.collect_params().items():
        assert param is layer.collect_params()[name]
    got, _ = stack.unroll(5, x, layout='TNC', merge_outputs=True)
    assert_almost_equal(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_unfused_stack_structure_is_mxnets():
    # reprs MXNet 1.9.1 gives for the same layers
    lstm = mx.gluon.rnn.LSTM(4, num_layers=2, bidirectional=True, input_size=3, dropout=0.2,
                             prefix='lstm_')
    assert repr(lstm._unfuse()) == (
        'HybridSequentialRNNCell(\n(0): BidirectionalCell(forward=LSTMCell(3 -> 16), '
        'backward=LSTMCell(3 -> 16))\n(1): DropoutCell(rate=0.2, axes=())\n'
        '(2): BidirectionalCell(forward=LSTMCell(8 -> 16), backward=LSTMCell(8 -> 16))\n)')
    rnn = mx.gluon.rnn.RNN(4, activation='tanh', prefix='r_')
    assert repr(rnn._unfuse()) == 'HybridSequentialRNNCell(\n(0): RNNCell(None -> 4, tanh)\n)'
    with pytest.raises(AssertionError, match='projection'):
        mx.gluon.rnn.LSTM(4, projection_size=2)._unfuse()
