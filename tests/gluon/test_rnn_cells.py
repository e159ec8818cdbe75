"""gluon.rnn's recurrent cells against MXNet 1.9.1's numbers and graphs
(tests/data/gen/gen_gluon_rnn_cells_reference.py), hybridized against imperative,
autograd against finite differences, and LSTMCell/GRUCell/RNNCell against the fused
layers."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.gluon import nn, rnn
from symmod.test_utils import assert_almost_equal

from rnn_cell_cases import build, run_cell, step_through, symbolic_graph, unroll_runs

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                    'gluon_rnn_cells_reference.npz')
REF = dict(np.load(DATA))
SPECS = {key[:-len('/spec')]: json.loads(str(REF[key]))
         for key in REF if key.endswith('/spec')}
N, T, C = REF['lstm/x'].shape
VALID_LENGTH = REF['valid_length']


def reference_cell(case):
    """The cell of ``case`` with MXNet's parameter values set."""
    spec = SPECS[case]
    cell = build(mx, spec)
    cell.initialize()
    x = mx.nd.array(REF[case + '/x'])
    if spec.get('step'):
        step_through(cell, x, None, 'NTC')
    else:
        cell.unroll(T, x, merge_outputs=True)      # finishes the deferred initialization
    params = cell.collect_params()
    for name, param in params.items():
        param.set_data(mx.nd.array(REF['%s/param/%s' % (case, name)]))
    return cell, params


def run(cell, params, case, layout, merge, valid_length, given_states, step=False,
        train=True):
    """``run_cell`` with the reference input, begin states (``given_states``) and heads
    of ``case``."""
    num_states = SPECS[case]['num_states']
    begin = None
    if given_states:
        begin = [REF['%s/begin_state%d' % (case, k)] for k in range(num_states)]
    heads = [REF['%s/head%d' % (case, k)] for k in range(num_states + 1)]
    return run_cell(mx, cell, params, REF[case + '/x'], begin, heads, layout, merge,
                    VALID_LENGTH if valid_length else None, train, step)


RUNS = unroll_runs(SPECS)


@pytest.mark.parametrize('case,layout,merge,vl', RUNS)
def test_unroll_against_mxnet(case, layout, merge, vl):
    spec = SPECS[case]
    cell, params = reference_cell(case)
    assert sorted(params.keys()) == spec['params']
    assert repr(cell) == spec['repr']
    res = run(cell, params, case, layout, merge, vl, given_states=layout == 'NTC',
              step=spec.get('step', False), train=spec.get('train', True))
    key = '%s/%s/%s/' % (case, layout, vl)
    expected = {k[len(key):]: REF[k] for k in REF if k.startswith(key)}
    assert sorted(res) == sorted(expected)
    for name, value in expected.items():
        assert_almost_equal(res[name], value, rtol=1e-4, atol=1e-5, names=(name, 'mxnet'))


@pytest.mark.parametrize('case', [c for c, s in SPECS.items() if 'graph' in s])
def test_symbolic_unroll_graph_names(case):
    """The graph of a symbolic unroll names its nodes and arguments as MXNet's."""
    spec = SPECS[case]
    cell = build(mx, spec)
    graph = symbolic_graph(mx, cell, spec.get('vl'))
    assert graph['outputs'] == spec['graph']['outputs']
    assert graph['arguments'] == spec['graph']['arguments']
    assert graph['internals'] == spec['graph']['internals']


# ---- shapes, names, state handling ---------------------------------------------------
@pytest.mark.parametrize('cls,gates,states', [(rnn.RNNCell, 1, 1), (rnn.LSTMCell, 4, 2),
                                              (rnn.GRUCell, 3, 1)])
def test_step_cell_parameters_and_shapes(cls, gates, states):
    cell = cls(6, input_size=5)
    alias = {rnn.RNNCell: 'rnn', rnn.LSTMCell: 'lstm', rnn.GRUCell: 'gru'}[cls]
    assert cell.prefix.startswith(alias) and cell.prefix.endswith('_')
    shapes = {name[len(cell.prefix):]: p.shape for name, p in cell.params.items()}
    assert shapes == {'i2h_weight': (gates * 6, 5), 'h2h_weight': (gates * 6, 6),
                      'i2h_bias': (gates * 6,), 'h2h_bias': (gates * 6,)}
    assert cell.state_info(3) == [{'shape': (3, 6), '__layout__': 'NC'}] * states
    cell.initialize()
    begin = cell.begin_state(batch_size=3)
    assert [s.shape for s in begin] == [(3, 6)] * states
    out, new_states = cell(mx.nd.ones((3, 5)), begin)
    assert out.shape == (3, 6) and [s.shape for s in new_states] == [(3, 6)] * states
    for name in ('i2h_bias', 'h2h_bias'):       # default bias initializer: zeros
        assert not cell.params[cell.prefix + name].data().asnumpy().any()


def test_begin_state_names_count_up_and_reset():
    cell = rnn.LSTMCell(3, prefix='x_')
    names = [s.name for s in cell.begin_state(func=mx.sym.var)]
    names += [s.name for s in cell.begin_state(func=mx.sym.var)]
    assert names == ['x_begin_state_%d' % k for k in range(4)]
    cell.reset()
    assert cell.begin_state(func=mx.sym.var)[0].name == 'x_begin_state_0'
    ones = cell.begin_state(batch_size=2, func=mx.nd.ones, dtype='float64')
    assert ones[0].dtype == np.float64 and ones[0].asnumpy().sum() == 6


def test_unroll_output_forms():
    cell = rnn.GRUCell(4, input_size=5)
    cell.initialize()
    x = mx.nd.array(np.random.uniform(-1, 1, (2, 3, 5)))
    merged, states = cell.unroll(3, x, layout='NTC', merge_outputs=True)
    listed, _ = cell.unroll(3, x, layout='NTC', merge_outputs=False)
    default, _ = cell.unroll(3, x, layout='NTC')
    steps = [x[:, t] for t in range(3)]
    from_list, _ = cell.unroll(3, steps, merge_outputs=True)
    assert merged.shape == (2, 3, 4) and len(states) == 1
    assert isinstance(default, list) and len(default) == 3
    for t in range(3):
        assert_almost_equal(listed[t].asnumpy(), merged.asnumpy()[:, t])
    assert_almost_equal(from_list.asnumpy(), merged.asnumpy())
    with pytest.raises(AssertionError):
        cell.unroll(4, x, merge_outputs=True)


def test_counter_names_steps():
    cell = rnn.RNNCell(3, prefix='c_')
    x, h = mx.sym.var('x'), mx.sym.var('h')
    out0, _ = cell(x, [h])
    out1, _ = cell(x, [h])
    assert (out0.name, out1.name) == ('c_t0_out', 'c_t1_out')
    assert cell._counter == 1
    cell.reset()
    assert cell._counter == -1


def test_sequential_cells():
    stack = rnn.SequentialRNNCell(prefix='s_')
    with stack.name_scope():
        stack.add(rnn.LSTMCell(4))
        stack.add(rnn.GRUCell(3))
    assert len(stack) == 2 and stack[1].prefix == 's_gru0_'
    assert [i['shape'] for i in stack.state_info(2)] == [(2, 4), (2, 4), (2, 3)]
    stack.initialize()
    out, states = stack(mx.nd.ones((2, 5)), stack.begin_state(batch_size=2))
    assert out.shape == (2, 3) and [s.shape for s in states] == [(2, 4), (2, 4), (2, 3)]
    assert repr(stack).startswith('SequentialRNNCell(\n(0): LSTMCell(5 -> 16)')
    hybrid = rnn.HybridSequentialRNNCell()
    hybrid.add(rnn.RNNCell(3))
    with pytest.raises(ValueError):
        hybrid.add(rnn.SequentialRNNCell())


def test_modifier_rules():
    base = rnn.GRUCell(3, prefix='g_')
    zone = rnn.ZoneoutCell(base, zoneout_outputs=0.5)
    assert zone.prefix == 'g_zoneout' and zone.params is base.params
    assert repr(zone) == 'ZoneoutCell(p_out=0.5, p_state=0.0, GRUCell(None -> 9))'
    with pytest.raises(AssertionError):
        base.begin_state()                         # the base cell is modified
    with pytest.raises(AssertionError):
        rnn.ResidualCell(base)                     # a cell is modified only once
    begin = zone.begin_state(batch_size=2)         # MXNet's default func: sym.zeros
    assert isinstance(begin[0], mx.sym.Symbol) and begin[0].name == 'g_begin_state_0'
    assert rnn.ResidualCell(rnn.GRUCell(3)).prefix.endswith('_residualcell')
    with pytest.raises(AssertionError):
        rnn.DropoutCell('0.5')
    bi = rnn.BidirectionalCell(rnn.LSTMCell(2), rnn.LSTMCell(2))
    with pytest.raises(NotImplementedError):
        bi(mx.nd.ones((1, 2)), bi.begin_state(batch_size=1))
    with pytest.raises(AssertionError):
        rnn.ZoneoutCell(bi)


def test_zoneout_in_training_keeps_old_or_new_values():
    base = rnn.LSTMCell(20, input_size=4)
    base.initialize(mx.init.Uniform(1.0))
    cell = rnn.ZoneoutCell(base, zoneout_outputs=0.5, zoneout_states=0.5)
    x = mx.nd.array(np.random.uniform(-1, 1, (8, 4)))
    states = [mx.nd.array(np.random.uniform(-1, 1, (8, 20))) for _ in range(2)]
    base._modified = False
    new_out, new_states = base(x, states)          # what the base cell computes
    base._modified = True
    with mx.autograd.record():
        out, zoned = cell(x, states)
    out = out.asnumpy()
    assert np.all((out == new_out.asnumpy()) | (out == 0))
    assert 0 < (out == 0).mean() < 1
    for z, new, old in zip(zoned, new_states, states):
        z = z.asnumpy()
        took_new, kept_old = z == new.asnumpy(), z == old.asnumpy()
        assert np.all(took_new | kept_old) and kept_old.any() and took_new.any()


def test_dropout_cell():
    cell = rnn.DropoutCell(0.5)
    x = mx.nd.ones((4, 3, 50))
    out, states = cell.unroll(3, x, merge_outputs=True)
    assert states == [] and np.array_equal(out.asnumpy(), x.asnumpy())   # not training
    with mx.autograd.record():
        out, _ = cell.unroll(3, x, merge_outputs=True)
        steps, _ = cell.unroll(3, x, merge_outputs=False)
    values = set(np.unique(out.asnumpy())) | set(np.unique(steps[0].asnumpy()))
    assert values == {0.0, 2.0}
    assert repr(cell) == 'DropoutCell(rate=0.5, axes=())'
    shared = rnn.DropoutCell(0.5, axes=(1,))       # one mask value per row
    with mx.autograd.record():
        rows, _ = shared(mx.nd.ones((6, 40)), [])
    rows = rows.asnumpy()
    assert np.all(rows.min(axis=1) == rows.max(axis=1))


def test_residual_cell_adds_input():
    base = rnn.RNNCell(5, input_size=5)
    base.initialize()
    x = mx.nd.array(np.random.uniform(-1, 1, (2, 3, 5)))
    base_out, _ = base.unroll(3, x, merge_outputs=True)
    cell = rnn.ResidualCell(base)
    out, _ = cell.unroll(3, x, merge_outputs=True)
    assert_almost_equal(out.asnumpy(), base_out.asnumpy() + x.asnumpy())
    steps, _ = cell.unroll(3, x, merge_outputs=False)
    assert_almost_equal(steps[1].asnumpy(), out.asnumpy()[:, 1])
    step_out, _ = cell(x[:, 0], cell.begin_state(batch_size=2, func=mx.nd.zeros))
    assert_almost_equal(step_out.asnumpy(), out.asnumpy()[:, 0], rtol=1e-5, atol=1e-6)


def test_leaky_activation_cell_unrolls_like_stepping():
    """MXNet's unroll() fails here (its reset() reaches the LeakyReLU child)."""
    cell = rnn.RNNCell(4, activation=nn.LeakyReLU(0.1), input_size=5)
    cell.initialize(mx.init.Uniform(1.0))
    x = mx.nd.array(np.random.uniform(-1, 1, (2, 3, 5)))
    out, _ = cell.unroll(3, x, merge_outputs=True)
    steps, _ = step_through(cell, x, None, 'NTC')
    assert_almost_equal(out.asnumpy(), mx.nd.stack(*steps, axis=1).asnumpy())


# ---- hybridized ------------------------------------------------------------------------
class UnrollBlock(mx.gluon.HybridBlock):
    """Unroll a cell inside hybrid_forward (a symbolic unroll once hybridized, with
    begin states from ``begin_state``)."""

    def __init__(self, cell, layout):
        super().__init__()
        self.cell = cell
        self._layout = layout

    def hybrid_forward(self, F, x, valid_length=None):
        out, states = self.cell.unroll(T, x, layout=self._layout, merge_outputs=True,
                                       valid_length=valid_length)
        return [out] + list(states)


HYBRID_CASES = [c for c, s in SPECS.items() if 'Sequential' not in s['cls'] or
                s['cls'] == 'HybridSequentialRNNCell']


@pytest.mark.parametrize('case,vl', [(c, vl) for c in HYBRID_CASES
                                     for vl in ((False, True) if SPECS[c].get('vl')
                                                else (False,))])
def test_hybridized_unroll_in_parent_matches_mxnet(case, vl):
    """TNC runs of the reference start from begin_state() zeros: so does the symbolic
    unroll, whose zeros(shape=(0, H)) states get their batch size from the graph."""
    spec = SPECS[case]
    cell, params = reference_cell(case)
    block = UnrollBlock(cell, 'TNC')
    block.hybridize()
    x = mx.nd.array(REF[case + '/x'].transpose(1, 0, 2))
    x.attach_grad()
    args = [x, mx.nd.array(VALID_LENGTH)] if vl else [x]
    for _ in range(2):                       # the second call reuses the graph
        with mx.autograd.record(train_mode=spec.get('train', True)):
            out, *states = block(*args)
            loss = (out * mx.nd.array(REF[case + '/head0'].transpose(1, 0, 2))).sum()
            for k, s in enumerate(states):
                loss = loss + (s * mx.nd.array(REF['%s/head%d' % (case, k + 1)])).sum()
        loss.backward()
    assert block._cached_op is not None
    key = '%s/TNC/%s/' % (case, vl)
    assert_almost_equal(out.asnumpy(), REF[key + 'out'], rtol=1e-4, atol=1e-5)
    for k, s in enumerate(states):
        assert_almost_equal(s.asnumpy(), REF[key + 'state%d' % k], rtol=1e-4, atol=1e-5)
    assert_almost_equal(x.grad.asnumpy(), REF[key + 'grad_x'], rtol=1e-4, atol=1e-5)
    for name, p in params.items():
        assert_almost_equal(p.grad().asnumpy(), REF[key + 'grad_param/' + name],
                            rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('case', ['lstm', 'gru', 'hseq', 'zoneout', 'bi', 'residual'])
def test_hybridized_cell_steps_match_imperative(case):
    """A hybridized cell runs each step through its cached graph."""
    spec = SPECS[case]
    vl = bool(spec.get('vl'))
    cell, params = reference_cell(case)
    cell.hybridize()
    res = run(cell, params, case, 'NTC', False, vl, given_states=True,
              train=spec.get('train', True))
    key = '%s/NTC/%s/' % (case, vl)
    for name, value in res.items():
        assert_almost_equal(value, REF[key + name], rtol=1e-4, atol=1e-5, names=(name, 'ref'))
    # the blocks whose forward the unroll calls (containers call their children's)
    if case in ('hseq', 'bi'):
        graphs = list(cell._children.values())
    else:
        graphs = [cell.base_cell] if case == 'residual' else [cell]
    assert all(c._cached_op is not None for c in graphs)


# ---- gradients against finite differences ----------------------------------------------
def _fd_cells():
    return {
        'lstm': lambda: rnn.LSTMCell(2, input_size=3),
        'gru': lambda: rnn.GRUCell(2, input_size=3),
        'rnn': lambda: rnn.RNNCell(2, input_size=3),
        'bi': lambda: rnn.BidirectionalCell(rnn.LSTMCell(2, input_size=3),
                                            rnn.GRUCell(2, input_size=3)),
    }


@pytest.mark.parametrize('kind', ['lstm', 'gru', 'rnn', 'bi'])
def test_gradients_against_finite_differences(kind):
    cell = _fd_cells()[kind]()
    cell.initialize(mx.init.Uniform(0.8))
    cell.cast('float64')
    rng = np.random.RandomState(3)
    x = mx.nd.array(rng.uniform(-1, 1, (2, 3, 3)), dtype='float64')
    vl = mx.nd.array([3, 2], dtype='float64') if kind == 'bi' else None
    out_w = 4 if kind == 'bi' else 2
    head = mx.nd.array(rng.normal(0, 1, (2, 3, out_w)), dtype='float64')

    # begin_state() makes float32 zeros (as MXNet's): give float64 states
    begin = [mx.nd.zeros(info['shape'], dtype='float64') for info in cell.state_info(2)]

    def loss_fn():
        out, states = cell.unroll(3, x, begin_state=begin, merge_outputs=True,
                                  valid_length=vl)
        loss = (out * head).sum()
        for s in states:
            loss = loss + (s * s).sum()
        return loss

    x.attach_grad()
    with mx.autograd.record():
        loss = loss_fn()
    loss.backward()
    eps = 1e-6
    targets = [('x', x, x.grad.asnumpy())]
    targets += [(name, p.data(), p.grad().asnumpy())
                for name, p in cell.collect_params().items()]
    for name, array, grad in targets:
        assert grad.dtype == np.float64
        value = array.asnumpy()
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            for sign in (1, -1):
                shifted = value.copy()
                shifted[idx] += sign * eps
                array[:] = shifted
                numeric[idx] += sign * loss_fn().asscalar() / (2 * eps)
        array[:] = value
        assert_almost_equal(grad, numeric, rtol=1e-5, atol=1e-7, names=(name, 'numeric'))


# ---- the cells against the fused layers --------------------------------------------------
@pytest.mark.parametrize('cell_cls,layer_cls,kwargs', [
    (rnn.LSTMCell, rnn.LSTM, {}),
    (rnn.GRUCell, rnn.GRU, {}),
    (rnn.RNNCell, rnn.RNN, {'activation': 'tanh'}),
    (rnn.RNNCell, rnn.RNN, {'activation': 'relu'}),
])
def test_unrolled_cell_equals_fused_layer(cell_cls, layer_cls, kwargs):
    hidden, width = 4, 5
    cell = cell_cls(hidden, input_size=width, **kwargs)
    cell.initialize(mx.init.Uniform(0.6))
    layer = layer_cls(hidden, input_size=width, **kwargs)
    layer.initialize()
    for name in ('i2h_weight', 'h2h_weight', 'i2h_bias', 'h2h_bias'):
        value = getattr(cell, name).data()
        if 'bias' in name:
            value = mx.nd.array(np.random.uniform(-0.5, 0.5, value.shape))
            getattr(cell, name).set_data(value)
        getattr(layer, 'l0_' + name).set_data(value)
    x = mx.nd.array(np.random.uniform(-1, 1, (6, 3, width)))       # TNC
    begin = [mx.nd.array(np.random.uniform(-1, 1, (3, hidden)))
             for _ in cell.state_info(3)]
    head = mx.nd.array(np.random.normal(0, 1, (6, 3, hidden)))
    results = []
    for block, states in ((cell, begin), (layer, [s.expand_dims(0) for s in begin])):
        x.attach_grad()
        with mx.autograd.record():
            if block is cell:
                out, new_states = cell.unroll(6, x, begin_state=states, layout='TNC',
                                              merge_outputs=True)
            else:
                out, new_states = layer(x, states)
                new_states = [s[0] for s in new_states]
            loss = (out * head).sum() + sum((s * s).sum() for s in new_states)
        loss.backward()
        prefix = '' if block is cell else 'l0_'
        grads = [getattr(block, prefix + n).grad().asnumpy()
                 for n in ('i2h_weight', 'h2h_weight', 'i2h_bias', 'h2h_bias')]
        results.append([out.asnumpy(), x.grad.asnumpy()] +
                       [s.asnumpy() for s in new_states] + grads)
    for got, want in zip(*results):
        assert_almost_equal(got, want, rtol=1e-4, atol=1e-5)
