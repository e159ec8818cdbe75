"""FusedRNNCell: names, states, weight (un)packing, unfusing, JSON, and the fused
forward against the equivalent unfused stack of cells."""
import json
import os
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                    'rnn_fused_reference.npz')
MODES = ['rnn_relu', 'rnn_tanh', 'lstm', 'gru']


@pytest.fixture(scope='module')
def fused_ref():
    with np.load(DATA) as z:
        return {'json': str(z['fused_cell_json']), 'names': json.loads(str(z['cell_names']))}


def flatten(states):
    """Bidirectional cells nest their states as [l_states, r_states]."""
    if isinstance(states, mx.sym.Symbol):
        return [states]
    return [s for item in states for s in flatten(item)]


def unroll(cell, length, inputs, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return cell.unroll(length, inputs, **kwargs)


# ---- names and states ---------------------------------------------------------------------
@pytest.mark.parametrize('mode', ['lstm', 'gru', 'rnn_relu'])
def test_names_match_mxnet(fused_ref, mode):
    ref = fused_ref['names'][mode]
    cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode=mode, bidirectional=True, dropout=0.5,
                               prefix='f_')
    outputs, states = unroll(cell, 2, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    assert states == []
    assert outputs.list_arguments() == ref['fused_arguments']
    assert [dict(info, shape=list(info['shape'])) for info in cell.state_info] \
        == ref['state_info']
    stack = cell.unfuse()
    s_out, _ = stack.unroll(2, mx.sym.var('data'), layout='TNC', merge_outputs=True)
    assert s_out.list_arguments() == ref['unfused_arguments']
    assert s_out.list_outputs() == ref['unfused_outputs']


def test_default_prefix_and_gate_names():
    assert mx.rnn.FusedRNNCell(4)._prefix == 'lstm_'
    assert mx.rnn.FusedRNNCell(4, mode='gru')._gate_names == ['_r', '_z', '_o']
    assert mx.rnn.FusedRNNCell(4, mode='rnn_tanh')._gate_names == ['']
    cell = mx.rnn.FusedRNNCell(4, num_layers=3, mode='lstm', bidirectional=True)
    assert cell.state_info == [{'shape': (6, 0, 4), '__layout__': 'LNC'}] * 2
    assert [s.name for s in cell.begin_state(func=mx.sym.Variable)] \
        == ['lstm_begin_state_0', 'lstm_begin_state_1']


def test_cannot_be_stepped():
    cell = mx.rnn.FusedRNNCell(4)
    with pytest.raises(NotImplementedError):
        cell(mx.sym.var('x'), cell.begin_state())


@pytest.mark.parametrize('layout', ['TNC', 'NTC'])
def test_unroll_layouts_and_next_state(layout):
    cell = mx.rnn.FusedRNNCell(4, num_layers=2, mode='lstm', get_next_state=True,
                               prefix='lstm_')
    outputs, states = unroll(cell, 3, mx.sym.var('data'), layout=layout,
                             merge_outputs=True)
    data_shape = (3, 2, 5) if layout == 'TNC' else (2, 3, 5)
    out_shapes = mx.sym.Group([outputs] + states).infer_shape(data=data_shape)[1]
    assert out_shapes[0] == data_shape[:2] + (4,)
    assert out_shapes[1:] == [(2, 2, 4), (2, 2, 4)]
    assert states[0].attr('__layout__') == 'LNC'
    # a list of steps in, a list of steps out
    steps = [mx.sym.var('x%d' % t) for t in range(3)]
    outputs, _ = unroll(cell, 3, steps, layout=layout, merge_outputs=False)
    assert isinstance(outputs, list) and len(outputs) == 3
    shapes = mx.sym.Group(outputs).infer_shape(**{'x%d' % t: (2, 5) for t in range(3)})[1]
    assert shapes == [(2, 4)] * 3


def test_ntc_layout_warns():
    cell = mx.rnn.FusedRNNCell(4)
    with pytest.warns(UserWarning, match='NTC layout'):
        cell.unroll(3, mx.sym.var('data'), layout='NTC')


def test_parameters_carry_the_fused_initializer():
    cell = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru', bidirectional=True,
                               forget_bias=2.0, prefix='g_')
    outputs, _ = unroll(cell, 3, mx.sym.var('data'), layout='TNC')
    attrs = outputs.attr_dict()['g_parameters']
    klass, kwargs = json.loads(attrs['__init__'])
    assert klass == 'fusedrnn'
    assert kwargs == {'init': None, 'num_hidden': 4, 'num_layers': 2, 'mode': 'gru',
                      'bidirectional': True, 'forget_bias': 2.0}


# ---- symbol JSON --------------------------------------------------------------------------
def test_json_matches_mxnet(fused_ref):
    cell = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru', bidirectional=True,
                               get_next_state=True, prefix='fused_')
    with mx.name.NameManager():     # fresh auto-name counters, as in MXNet's script
        outputs, states = unroll(cell, 3, mx.sym.var('data'), layout='NTC',
                                 merge_outputs=True)
    assert mx.sym.Group([outputs] + states).tojson() == fused_ref['json']
    loaded = mx.sym.load_json(fused_ref['json'])
    assert loaded.list_outputs() == ['swapaxes1_output', 'fused_rnn_state_output']
    assert loaded.infer_shape(data=(2, 3, 5))[1] == [(2, 3, 8), (4, 2, 4)]


# ---- weights ------------------------------------------------------------------------------
@pytest.mark.parametrize('mode', ['lstm', 'gru', 'rnn_relu'])
def test_unpack_weights_like_mxnet(fused_ref, mode):
    ref = fused_ref['names'][mode]['unpacked']
    cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode=mode, bidirectional=True, prefix='f_')
    size = sum(len(np.ravel(v)) for v in ref.values())
    unpacked = cell.unpack_weights({'f_parameters': mx.nd.arange(size), 'other': 1})
    assert unpacked.pop('other') == 1
    assert list(unpacked) == list(ref)
    for name, value in ref.items():
        assert_almost_equal(unpacked[name].asnumpy(), np.array(value))
    packed = cell.pack_weights(unpacked)
    assert list(packed) == ['f_parameters']
    assert_almost_equal(packed['f_parameters'].asnumpy(), np.arange(size))


# ---- fused against unfused -------------------------------------------------------------------
@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('layers,bidirectional', [(1, False), (2, True)])
def test_fused_equals_unfused(mode, layers, bidirectional):
    T, N, I, H = 4, 3, 5, 3
    rng = np.random.RandomState(5)
    fused = mx.rnn.FusedRNNCell(H, num_layers=layers, mode=mode, bidirectional=bidirectional,
                                get_next_state=True, prefix='f_')
    data = mx.sym.var('data')
    f_out, f_states = unroll(fused, T, data, layout='NTC', merge_outputs=True,
                             begin_state=fused.begin_state(dtype='float64'))
    f_sym = mx.sym.Group([f_out] + f_states)
    f_shapes = dict(zip(f_sym.list_arguments(), f_sym.infer_shape(data=(N, T, I))[0]))
    args = {k: mx.nd.array(rng.uniform(-0.6, 0.6, s), dtype=np.float64)
            for k, s in f_shapes.items()}
    exe = f_sym.bind(mx.cpu(), args)
    exe.forward(is_train=False)
    fused_outputs = [o.asnumpy() for o in exe.outputs]

    stack = fused.unfuse()
    s_out, s_states = stack.unroll(T, data, layout='NTC', merge_outputs=True,
                                   begin_state=stack.begin_state(dtype='float64'))
    weights = stack.pack_weights(fused.unpack_weights({'f_parameters': args['f_parameters']}))
    s_sym = mx.sym.Group([s_out] + flatten(s_states))
    s_args = {k: weights[k] for k in s_sym.list_arguments() if k != 'data'}
    s_args['data'] = args['data']
    s_exe = s_sym.bind(mx.cpu(), s_args)
    s_exe.forward(is_train=False)
    stacked = [o.asnumpy() for o in s_exe.outputs]
    assert_almost_equal(fused_outputs[0], stacked[0], rtol=1e-10, atol=1e-12)
    # fused states are (layers * dirs, N, H); the stack lists them per cell (h[, c])
    per_state = 2 if mode == 'lstm' else 1
    for k in range(per_state):
        fused_state = fused_outputs[1 + k]
        unfused = np.stack(stacked[1 + k::per_state])
        assert_almost_equal(fused_state, unfused, rtol=1e-10, atol=1e-12)
