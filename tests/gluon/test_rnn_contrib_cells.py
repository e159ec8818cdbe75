"""gluon.contrib.rnn's LSTMPCell and VariationalDropoutCell against MXNet 1.9.1's numbers,
names and graphs (tests/data/gen/gen_gluon_rnn_contrib_reference.py), LSTMPCell against
a numpy formula and hybridized against imperative, and the variational masks by their
defining property: one mask per sequence, the same at every step."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.gluon import rnn
from symmod.gluon.contrib.rnn import LSTMPCell, VariationalDropoutCell
from symmod.test_utils import assert_almost_equal

from rnn_cell_cases import run_cell, symbolic_graph, unroll_runs
from rnn_contrib_cases import build

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                    'gluon_rnn_contrib_reference.npz')
REF = dict(np.load(DATA))
SPECS = {key[:-len('/spec')]: json.loads(str(REF[key]))
         for key in REF if key.endswith('/spec')}
N, T, C = REF['lstmp/x'].shape
VALID_LENGTH = REF['valid_length']


def reference_cell(case):
    """The cell of ``case`` with MXNet's parameter values set."""
    cell = build(mx, SPECS[case])
    cell.initialize()
    cell.unroll(T, mx.nd.array(REF[case + '/x']), merge_outputs=True)
    params = cell.collect_params()
    for name, param in params.items():
        param.set_data(mx.nd.array(REF['%s/param/%s' % (case, name)]))
    return cell, params


RUNS = unroll_runs(SPECS)


@pytest.mark.parametrize('case,layout,merge,vl', RUNS)
def test_unroll_and_gradients_against_mxnet(case, layout, merge, vl):
    spec = SPECS[case]
    cell, params = reference_cell(case)
    assert sorted(params.keys()) == spec['params']
    assert {k: list(p.shape) for k, p in params.items()} == spec['shapes']
    assert repr(cell) == spec['repr']
    num_states = spec['num_states']
    begin = ([REF['%s/begin_state%d' % (case, k)] for k in range(num_states)]
             if layout == 'NTC' else None)
    heads = [REF['%s/head%d' % (case, k)] for k in range(num_states + 1)]
    res = run_cell(mx, cell, params, REF[case + '/x'], begin, heads, layout, merge,
                   VALID_LENGTH if vl else None, spec.get('train', True))
    key = '%s/%s/%s/' % (case, layout, vl)
    expected = {k[len(key):]: REF[k] for k in REF if k.startswith(key)}
    assert sorted(res) == sorted(expected)
    for name, value in expected.items():
        assert_almost_equal(res[name], value, rtol=1e-4, atol=1e-5, names=(name, 'mxnet'))


@pytest.mark.parametrize('case', sorted(SPECS))
def test_symbolic_unroll_graph_names(case):
    spec = SPECS[case]
    cell = build(mx, spec)
    graph = symbolic_graph(mx, cell, spec.get('vl'))
    assert graph['outputs'] == spec['graph']['outputs']
    assert graph['arguments'] == spec['graph']['arguments']
    assert graph['internals'] == spec['graph']['internals']


# ---- LSTMPCell -------------------------------------------------------------------------
def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_lstmp_parameters_states_and_numpy_step():
    cell = LSTMPCell(6, 2, input_size=5)
    assert cell.prefix.startswith('lstmp') and cell.prefix.endswith('_')
    shapes = {name[len(cell.prefix):]: p.shape for name, p in cell.params.items()}
    assert shapes == {'i2h_weight': (24, 5), 'h2h_weight': (24, 2), 'h2r_weight': (2, 6),
                      'i2h_bias': (24,), 'h2h_bias': (24,)}
    assert cell.state_info(3) == [{'shape': (3, 2), '__layout__': 'NC'},
                                  {'shape': (3, 6), '__layout__': 'NC'}]
    cell.initialize(mx.init.Uniform(0.5))
    for name in ('i2h_bias', 'h2h_bias'):
        cell.params[cell.prefix + name].set_data(mx.nd.array(np.random.randn(24)))
    rng = np.random.RandomState(0)
    x, r, c = rng.randn(3, 5), rng.randn(3, 2), rng.randn(3, 6)
    out, (new_r, new_c) = cell(mx.nd.array(x), [mx.nd.array(r), mx.nd.array(c)])
    w = {k[len(cell.prefix):]: p.data().asnumpy() for k, p in cell.params.items()}
    gates = x @ w['i2h_weight'].T + w['i2h_bias'] + r @ w['h2h_weight'].T + w['h2h_bias']
    i, f, g, o = np.split(gates, 4, axis=1)
    want_c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    want_r = (_sigmoid(o) * np.tanh(want_c)) @ w['h2r_weight'].T
    assert_almost_equal(new_c.asnumpy(), want_c, rtol=1e-4, atol=1e-5)
    assert_almost_equal(out.asnumpy(), want_r, rtol=1e-4, atol=1e-5)
    assert_almost_equal(new_r.asnumpy(), want_r, rtol=1e-4, atol=1e-5)


def test_lstmp_hybridized_matches_imperative():
    x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (2, 4, 5)))
    plain = LSTMPCell(4, 3, prefix='h_')
    plain.initialize(mx.init.Xavier())
    want, want_states = plain.unroll(4, x, merge_outputs=True)
    hybrid = LSTMPCell(4, 3, prefix='h_')
    hybrid.initialize()
    hybrid.unroll(4, x, merge_outputs=True)
    for name, p in hybrid.collect_params().items():
        p.set_data(plain.collect_params()[name].data())
    hybrid.hybridize()
    for _ in range(2):      # the second run goes through the cached graph
        got, got_states = hybrid.unroll(4, x, merge_outputs=True)
        assert_almost_equal(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
        for g, w in zip(got_states, want_states):
            assert_almost_equal(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_contrib_path_and_rnn_path_are_the_same_classes():
    assert mx.gluon.contrib.rnn.LSTMPCell is rnn.LSTMPCell
    assert mx.gluon.contrib.rnn.VariationalDropoutCell is rnn.VariationalDropoutCell


# ---- VariationalDropoutCell ----------------------------------------------------------
def _pass_through(size):
    """A ReLU RNNCell with all-zero parameters; the tests set i2h or h2h to the
    identity so that its output shows the input or state it was given."""
    cell = rnn.RNNCell(size, activation='relu', input_size=size)
    cell.initialize(mx.init.Zero())
    return cell


@pytest.mark.parametrize('drop_states', [0., 0.3])
@pytest.mark.parametrize('layout', ['NTC', 'TNC'])
def test_input_and_output_masks_are_shared_across_steps(drop_states, layout):
    size, length, rate = 40, 5, 0.5
    base = _pass_through(size)
    base.i2h_weight.set_data(mx.nd.array(np.eye(size)))
    cell = VariationalDropoutCell(base, drop_inputs=rate, drop_states=drop_states,
                                  drop_outputs=rate)
    shape = (6, length, size) if layout == 'NTC' else (length, 6, size)
    with mx.autograd.train_mode():
        out, _ = cell.unroll(length, mx.nd.ones(shape), layout=layout, merge_outputs=True)
    out = out.asnumpy()
    steps = [out[:, t] if layout == 'NTC' else out[t] for t in range(length)]
    scale = 1 / (1 - rate)
    # out = input_mask * output_mask: values 0 or scale**2, the same at every step
    assert set(np.unique(steps[0])) == {0., np.float32(scale * scale)}
    for step in steps[1:]:
        assert np.array_equal(step, steps[0])
    # a fresh unroll draws fresh masks
    with mx.autograd.train_mode():
        again, _ = cell.unroll(length, mx.nd.ones(shape), layout=layout, merge_outputs=True)
    assert not np.array_equal(again.asnumpy(), out)


def test_state_mask_is_shared_across_steps():
    size, length, rate = 50, 4, 0.5
    base = _pass_through(size)
    base.h2h_weight.set_data(mx.nd.array(np.eye(size)))
    cell = VariationalDropoutCell(base, drop_states=rate)
    begin = [mx.nd.ones((3, size))]
    with mx.autograd.train_mode():
        out, _ = cell.unroll(length, mx.nd.ones((3, length, size)), begin_state=begin,
                             merge_outputs=True)
    out = out.asnumpy()
    mask = out[:, 0]        # h_1 = mask * h_0 = mask
    assert set(np.unique(mask)) == {0., 2.}
    for t in range(length):      # h_t = mask**t: the same mask at every step
        assert_almost_equal(out[:, t], mask ** (t + 1))


def test_stepping_keeps_masks_until_reset():
    base = _pass_through(30)
    base.i2h_weight.set_data(mx.nd.array(np.eye(30)))
    cell = VariationalDropoutCell(base, drop_inputs=0.5)
    states = cell.begin_state(batch_size=4, func=mx.nd.zeros)
    with mx.autograd.train_mode():
        first, states = cell(mx.nd.ones((4, 30)), states)
        second, _ = cell(mx.nd.ones((4, 30)), states)
        assert np.array_equal(first.asnumpy(), second.asnumpy())
        cell.reset()
        third, _ = cell(mx.nd.ones((4, 30)), cell.begin_state(batch_size=4,
                                                               func=mx.nd.zeros))
    assert not np.array_equal(third.asnumpy(), first.asnumpy())


@pytest.mark.parametrize('drop_states', [0., 0.4])
def test_identity_outside_training_and_unroll_shapes(drop_states):
    base = rnn.LSTMCell(4, input_size=5)
    base.initialize()
    x = mx.nd.array(np.random.RandomState(3).uniform(-1, 1, (2, 3, 5)))
    want, want_states = base.unroll(3, x, merge_outputs=True)
    cell = VariationalDropoutCell(base, drop_inputs=0.5, drop_states=drop_states,
                                  drop_outputs=0.5)
    out, states = cell.unroll(3, x, merge_outputs=True)
    assert out.shape == (2, 3, 4) and [s.shape for s in states] == [(2, 4), (2, 4)]
    assert_almost_equal(out.asnumpy(), want.asnumpy())
    for got, exp in zip(states, want_states):
        assert_almost_equal(got.asnumpy(), exp.asnumpy())
    listed, _ = cell.unroll(3, x, merge_outputs=False)
    assert isinstance(listed, list) and [o.shape for o in listed] == [(2, 4)] * 3
    tnc, _ = cell.unroll(3, x.transpose((1, 0, 2)), layout='TNC', merge_outputs=True)
    assert tnc.shape == (3, 2, 4)


def test_modifier_rules():
    base = rnn.GRUCell(3, prefix='g_')
    cell = VariationalDropoutCell(base, drop_outputs=0.1)
    assert cell.prefix == 'g_vardrop' and cell.params is base.params
    assert repr(cell) == 'VariationalDropoutCell(p_out = 0.1, p_state = 0.0)'
    with pytest.raises(AssertionError):
        VariationalDropoutCell(base)        # a cell is modified once
    bi = rnn.BidirectionalCell(rnn.GRUCell(3), rnn.GRUCell(3))
    with pytest.raises(AssertionError, match='variational state dropout'):
        VariationalDropoutCell(bi, drop_states=0.2)
