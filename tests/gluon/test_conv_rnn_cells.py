"""gluon.contrib.rnn's convolutional cells (Conv1D/2D/3D RNN, LSTM, GRU) against MXNet
1.9.1's numbers, names and graphs (tests/data/gen/gen_gluon_contrib_reference.py), a
numpy step of the LSTM, and hybridized against imperative."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.gluon.contrib import rnn as crnn
from symmod.test_utils import assert_almost_equal

from contrib_nn_cases import CONV_CELLS, STEPS, conv_cell, run_conv_cell
from rnn_cell_cases import symbolic_graph

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                    'gluon_contrib_reference.npz')
REF = dict(np.load(DATA))


def spec(case):
    return json.loads(str(REF['conv/%s/spec' % case]))


def reference_cell(case):
    cell = conv_cell(mx, case)
    cell.initialize()
    x = REF['conv/%s/x' % case]
    cell.unroll(STEPS, mx.nd.array(x), merge_outputs=True)
    for name, param in cell.collect_params().items():
        param.set_data(mx.nd.array(REF['conv/%s/param/%s' % (case, name)]))
    return cell


@pytest.mark.parametrize('case', sorted(CONV_CELLS))
def test_unroll_and_gradients_against_mxnet(case):
    cell = reference_cell(case)
    s = spec(case)
    params = cell.collect_params()
    assert sorted(params.keys()) == s['params']
    assert {k: list(p.shape) for k, p in params.items()} == s['shapes']
    assert repr(cell) == s['repr']
    assert [list(i['shape']) for i in cell.state_info(2)] == s['state_shapes']
    states = [REF['conv/%s/begin_state%d' % (case, k)] for k in range(len(s['state_shapes']))]
    heads = [REF['conv/%s/head%d' % (case, k)] for k in range(len(states) + 1)]
    res = run_conv_cell(mx, cell, REF['conv/%s/x' % case], states, heads)
    prefix = 'conv/%s/run/' % case
    expected = {k[len(prefix):]: REF[k] for k in REF if k.startswith(prefix)}
    assert sorted(res) == sorted(expected)
    for name, value in expected.items():
        assert_almost_equal(res[name], value, rtol=1e-4, atol=1e-5, names=(name, 'mxnet'))


@pytest.mark.parametrize('case', sorted(CONV_CELLS))
def test_symbolic_unroll_graph_names(case):
    graph = symbolic_graph(mx, conv_cell(mx, case), False)
    assert graph == spec(case)['graph']


def _conv1d(x, w, b, pad, dilate=1):
    """numpy 'same-stride' 1-D convolution: x (N, C, W), w (F, C, K)."""
    n, _, width = x.shape
    f, _, k = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    out_w = width + 2 * pad - dilate * (k - 1)
    out = np.zeros((n, f, out_w))
    for i in range(out_w):
        window = xp[:, :, i:i + dilate * (k - 1) + 1:dilate]
        out[:, :, i] = np.einsum('nck,fck->nf', window, w)
    return out + b[None, :, None]


def test_lstm_step_matches_numpy():
    cell = crnn.Conv1DLSTMCell((2, 6), 3, i2h_kernel=3, h2h_kernel=3, i2h_pad=1)
    cell.initialize(mx.init.Uniform(0.5))
    rng = np.random.RandomState(0)
    x, h, c = rng.randn(2, 2, 6), rng.randn(2, 3, 6), rng.randn(2, 3, 6)
    for p in (cell.i2h_bias, cell.h2h_bias):
        p.set_data(mx.nd.array(rng.randn(12)))
    out, (new_h, new_c) = cell(mx.nd.array(x), [mx.nd.array(h), mx.nd.array(c)])
    w = {k[len(cell.prefix):]: p.data().asnumpy() for k, p in cell.params.items()}
    gates = (_conv1d(x, w['i2h_weight'], w['i2h_bias'], 1)
             + _conv1d(h, w['h2h_weight'], w['h2h_bias'], 1))
    i, f, g, o = np.split(gates, 4, axis=1)
    sig = lambda v: 1 / (1 + np.exp(-v))   # noqa: E731
    want_c = sig(f) * c + sig(i) * np.tanh(g)
    want_h = sig(o) * np.tanh(want_c)
    assert_almost_equal(new_c.asnumpy(), want_c, rtol=1e-4, atol=1e-5)
    assert_almost_equal(out.asnumpy(), want_h, rtol=1e-4, atol=1e-5)
    assert_almost_equal(new_h.asnumpy(), want_h, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('case', ['gru2d', 'lstm1d'])
def test_hybridized_matches_imperative(case):
    plain = reference_cell(case)
    x = mx.nd.array(REF['conv/%s/x' % case])
    want, want_states = plain.unroll(STEPS, x, merge_outputs=True)
    hybrid = reference_cell(case)
    hybrid.hybridize()
    for _ in range(2):
        got, got_states = hybrid.unroll(STEPS, x, merge_outputs=True)
        assert_almost_equal(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
        for g, w in zip(got_states, want_states):
            assert_almost_equal(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_shapes_of_channels_last_layout_and_checks():
    cell = crnn.Conv2DGRUCell((5, 4, 3), 6, i2h_kernel=3, h2h_kernel=3, conv_layout='NHWC')
    assert cell.i2h_weight.shape == (18, 3, 3, 3) and cell.h2h_weight.shape == (18, 3, 3, 6)
    assert cell.state_info(2)[0]['shape'] == (2, 3, 2, 6)
    with pytest.raises(AssertionError, match='odd'):
        crnn.Conv1DRNNCell((3, 5), 2, i2h_kernel=3, h2h_kernel=2)
    with pytest.raises(AssertionError, match='length 2'):
        crnn.Conv2DLSTMCell((3, 5, 5), 2, i2h_kernel=(3, 3, 3), h2h_kernel=3)
