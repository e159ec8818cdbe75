"""Cell API beyond the graphs: begin states, state info, weight (un)packing, parameter
sharing, the modifier cells' behaviour, and MXNet's errors for misuse."""
import contextlib
import io

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal

import rnn_cases


# ---- begin states -------------------------------------------------------------------------
def _named_attrs(states):
    return [[s.name, s.list_attr()] for s in states]


def test_begin_state_names_attrs_and_counter(mxnet_ref):
    ref = mxnet_ref['begin_state']
    lstm = mx.rnn.LSTMCell(3, prefix='l_')
    first = lstm.begin_state()
    second = lstm.begin_state(func=mx.sym.Variable)
    assert _named_attrs(first + second) == ref['lstm_twice']
    lstm.reset()
    assert [s.name for s in lstm.begin_state()] == ref['lstm_after_reset']
    assert _named_attrs(lstm.begin_state(dtype='float64')) == ref['lstm_dtype']


def test_begin_state_of_composite_and_modifier_cells(mxnet_ref):
    ref = mxnet_ref['begin_state']
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(3, prefix='a_'))
    stack.add(mx.rnn.DropoutCell(0.5))
    stack.add(mx.rnn.GRUCell(4, prefix='b_'))
    assert _named_attrs(stack.begin_state()) == ref['stack']
    assert [[list(i['shape']), i['__layout__']] for i in stack.state_info] == \
        ref['stack_state_info']
    assert [list(s) for s in stack.state_shape] == ref['stack_state_shape']
    bi = mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2, prefix='x_'),
                                  mx.rnn.LSTMCell(2, prefix='y_'))
    assert [s.name for s in bi.begin_state()] == ref['bi']
    zone = mx.rnn.ZoneoutCell(mx.rnn.GRUCell(6, prefix='z_'), 0.1, 0.1)
    assert _named_attrs(zone.begin_state()) == ref['zoneout']
    res = mx.rnn.ResidualCell(mx.rnn.LSTMCell(2, prefix='r_'))
    assert _named_attrs(res.begin_state(mx.sym.Variable)) == ref['residual_var']


@pytest.mark.parametrize('kind,count', [('lstm', 2), ('gru', 1), ('rnn_tanh', 1)])
def test_begin_state_shapes_follow_the_batch(kind, count):
    cell = rnn_cases.make_cell(mx, kind, 'c_', hidden=7)
    assert cell.state_shape == [(0, 7)] * count
    assert [i['__layout__'] for i in cell.state_info] == ['NC'] * count
    _, states = cell.unroll(2, mx.sym.var('data'))
    begin = mx.sym.Group(cell.begin_state())
    _, out_shapes, _ = mx.sym.Group(states).infer_shape(data=(5, 2, 3))
    assert out_shapes == [(5, 7)] * count
    # the zeros of an unrolled graph take the batch size from the graph
    exe = mx.sym.Group(states).simple_bind(mx.cpu(), grad_req='null', data=(5, 2, 3))
    assert [o.shape for o in exe.outputs] == [(5, 7)] * count
    assert len(begin.list_outputs()) == count


def test_unroll_restarts_names_each_time():
    cell = mx.rnn.GRUCell(3, prefix='g_')
    first, _ = cell.unroll(2, mx.sym.var('data'))
    second, _ = cell.unroll(2, mx.sym.var('data'))
    assert [o.name for o in first] == [o.name for o in second] == ['g_t0_out', 'g_t1_out']
    assert mx.sym.Group(second).list_arguments() == mx.sym.Group(first).list_arguments()


# ---- packing --------------------------------------------------------------------------------
def _unpack_cell(name):
    makers = {
        'lstm': lambda: mx.rnn.LSTMCell(3, prefix='l_'),
        'gru': lambda: mx.rnn.GRUCell(3, prefix='g_'),
        'rnn': lambda: mx.rnn.RNNCell(3, prefix='r_'),
        'bi': lambda: mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(3, prefix='bl_'),
                                               mx.rnn.GRUCell(3, prefix='br_')),
        'zoneout': lambda: mx.rnn.ZoneoutCell(mx.rnn.GRUCell(3, prefix='zg_'), 0.2, 0.2),
    }
    stack = mx.rnn.SequentialRNNCell()
    stack.add(makers[name]())
    stack.add(mx.rnn.RNNCell(3, prefix='top_'))
    return stack


@pytest.mark.parametrize('name', ['lstm', 'gru', 'rnn', 'bi', 'zoneout'])
def test_unpack_and_pack_match_mxnet(name, mxnet_ref, mxnet_arrays):
    ref = mxnet_ref['unpack'][name]
    stack = _unpack_cell(name)
    tag = 'unpack_%s/packed/' % name
    packed = {k[len(tag):]: mx.nd.array(v) for k, v in mxnet_arrays.items()
              if k.startswith(tag)}
    unpacked = stack.unpack_weights(packed)
    assert sorted(unpacked) == ref['unpacked']
    assert sorted(packed) == ref['packed']          # the input dict is left alone
    for k, v in unpacked.items():
        assert_almost_equal(v.asnumpy(), mxnet_arrays['unpack_%s/unpacked/%s' % (name, k)],
                            rtol=0, atol=0)
    repacked = stack.pack_weights(unpacked)
    assert sorted(repacked) == ref['repacked']
    for k, v in repacked.items():
        np.testing.assert_array_equal(v.asnumpy(), packed[k].asnumpy())


@pytest.mark.parametrize('cell,gates', [(mx.rnn.LSTMCell, ['_i', '_f', '_c', '_o']),
                                        (mx.rnn.GRUCell, ['_r', '_z', '_o']),
                                        (mx.rnn.RNNCell, [''])])
def test_unpack_slices_rows_per_gate(cell, gates):
    hidden, dim = 4, 3
    c = cell(hidden, prefix='p_')
    rng = np.random.RandomState(0)
    packed = {'p_i2h_weight': rng.rand(len(gates) * hidden, dim),
              'p_h2h_weight': rng.rand(len(gates) * hidden, hidden),
              'p_i2h_bias': rng.rand(len(gates) * hidden),
              'p_h2h_bias': rng.rand(len(gates) * hidden)}
    unpacked = c.unpack_weights({k: mx.nd.array(v) for k, v in packed.items()})
    for j, gate in enumerate(gates):
        rows = slice(j * hidden, (j + 1) * hidden)
        for group in ['i2h', 'h2h']:
            for kind in ['weight', 'bias']:
                got = unpacked['p_%s%s_%s' % (group, gate, kind)].asnumpy()
                want = packed['p_%s_%s' % (group, kind)][rows].astype(np.float32)
                np.testing.assert_array_equal(got, want)
    # copies, not views of the packed arrays
    packed_nd = {k: mx.nd.array(v) for k, v in packed.items()}
    first = c.unpack_weights(packed_nd)['p_i2h%s_weight' % gates[0]]
    first[:] = -1
    assert (packed_nd['p_i2h_weight'].asnumpy() != -1).all()


def test_weightless_cells_pass_arguments_through():
    args = {'w': mx.nd.ones((2,))}
    for cell in [mx.rnn.DropoutCell(0.5), mx.rnn.BaseRNNCell('x_')]:
        out = cell.unpack_weights(args)
        assert out == args and out is not args
        assert cell.pack_weights(args) == args


# ---- parameters ---------------------------------------------------------------------------
def test_rnn_params_creates_once():
    params = mx.rnn.RNNParams('p_')
    w = params.get('w', shape=(2, 3))
    assert w.name == 'p_w'
    assert params.get('w', shape=(9,)) is w
    assert w.attr('__shape__') == '(2, 3)'
    assert sorted(params._params) == ['p_w']


def test_cells_on_one_container_share_weights():
    params = mx.rnn.RNNParams('tied_')
    a = mx.rnn.GRUCell(3, prefix='a_', params=params)
    b = mx.rnn.GRUCell(3, prefix='b_', params=params)
    assert not a._own_params and not b._own_params
    out_a, _ = a.unroll(2, mx.sym.var('x'), merge_outputs=True)
    out_b, _ = b.unroll(2, mx.sym.var('x'), merge_outputs=True)
    assert out_a.list_arguments() == out_b.list_arguments() == \
        ['x', 'tied_i2h_weight', 'tied_i2h_bias', 'tied_h2h_weight', 'tied_h2h_bias']
    assert out_a.name.startswith('concat')


def test_composites_collect_child_params():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(2, prefix='a_'))
    stack.add(mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix='l_'),
                                       mx.rnn.RNNCell(2, prefix='r_')))
    assert sorted(stack.params._params) == sorted(
        '%s%s_%s' % (p, g, k) for p in ['a_', 'l_', 'r_'] for g in ['i2h', 'h2h']
        for k in ['weight', 'bias'])
    zone = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(2, prefix='z_'), 0.1)
    assert zone.params is zone.base_cell.params


# ---- modifier cells ---------------------------------------------------------------------------
def _bind(sym, values):
    return sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in values.items()},
                    grad_req='null')


def _values(sym, shapes, seed=0):
    arg_shapes, _, _ = sym.infer_shape(**shapes)
    rng = np.random.RandomState(seed)
    return {n: rng.uniform(-1, 1, s) for n, s in zip(sym.list_arguments(), arg_shapes)}


def test_zoneout_is_the_base_cell_at_inference():
    zone = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(4, prefix='z_'), 0.5, 0.5)
    out_z, st_z = zone.unroll(3, mx.sym.var('data'), merge_outputs=True)
    plain = mx.rnn.LSTMCell(4, prefix='z_')
    out_p, st_p = plain.unroll(3, mx.sym.var('data'), merge_outputs=True)
    zoned, base = mx.sym.Group([out_z] + st_z), mx.sym.Group([out_p] + st_p)
    values = _values(base, {'data': (3, 3, 2)})
    for a, b in zip(_bind(zoned, values).forward(is_train=False),
                    _bind(base, values).forward(is_train=False)):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


def test_zoneout_keeps_old_values_in_training():
    zone = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(50, prefix='z_'), zoneout_outputs=0.5,
                              zoneout_states=0.3)
    begin = zone.begin_state(mx.sym.Variable)
    out, states = zone.unroll(1, mx.sym.var('data'), begin_state=begin, merge_outputs=False)
    internals = out[0].get_internals()
    new_h, new_c = internals['z_t0_out_output'], internals['z_t0_state_output']
    group = mx.sym.Group([out[0], states[0], states[1], new_h, new_c])
    shapes = {'data': (40, 1, 3), 'z_begin_state_0': (40, 50), 'z_begin_state_1': (40, 50)}
    values = _values(group, shapes)
    zoned_out, zoned_h, zoned_c, h, c = [o.asnumpy() for o in
                                         _bind(group, values).forward(is_train=True)]
    kept = zoned_out == 0                              # previous output: zeros
    assert np.all(kept | np.isclose(zoned_out, h))
    assert 0.4 < kept.mean() < 0.6
    for zoned, new, old in [(zoned_h, h, values['z_begin_state_0']),
                            (zoned_c, c, values['z_begin_state_1'])]:
        old = old.astype(np.float32)
        took_old = np.isclose(zoned, old) & ~np.isclose(zoned, new)
        assert np.all(np.isclose(zoned, new) | np.isclose(zoned, old))
        assert 0.2 < took_old.mean() < 0.4


def test_modifier_begin_state_takes_func_by_either_name():
    """MXNet names the argument init_sym; func= (what stacks pass on) works too."""
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.ResidualCell(mx.rnn.GRUCell(3, prefix='g_')))
    stack.add(mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(3, prefix='l_'), 0.1, 0.1))
    states = stack.begin_state(func=mx.sym.Variable)
    assert [s.name for s in states] == ['g_begin_state_0', 'l_begin_state_0',
                                        'l_begin_state_1']
    assert all(s.list_arguments() == [s.name] for s in states)  # variables, not zeros
    zone = mx.rnn.ZoneoutCell(mx.rnn.GRUCell(3, prefix='z_'), 0.1)
    var = zone.begin_state(init_sym=mx.sym.Variable)[0]
    assert var.list_arguments() == ['z_begin_state_0']
    zeros = zone.begin_state()[0]
    assert zeros.list_arguments() == [] and zeros.list_attr()['shape'] == '(0, 3)'


def test_zoneout_accepts_a_plain_stack():
    """MXNet 1.9.1 fails on any SequentialRNNCell here (AttributeError); symmod only
    refuses stacks holding a bidirectional layer."""
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.GRUCell(3, prefix='g_'))
    out, _ = mx.rnn.ZoneoutCell(stack, 0.2, 0.2).unroll(2, mx.sym.var('data'))
    assert len(out) == 2
    bi_stack = mx.rnn.SequentialRNNCell()
    bi_stack.add(mx.rnn.BidirectionalCell(mx.rnn.GRUCell(3, prefix='l_'),
                                          mx.rnn.GRUCell(3, prefix='r_')))
    with pytest.raises(AssertionError, match='Bidirectional SequentialRNNCell'):
        mx.rnn.ZoneoutCell(bi_stack, 0.1)


def test_residual_adds_the_input():
    res = mx.rnn.ResidualCell(mx.rnn.GRUCell(3, prefix='g_'))
    out_r, _ = res.unroll(2, mx.sym.var('data'), merge_outputs=True)
    out_p, _ = mx.rnn.GRUCell(3, prefix='g_').unroll(2, mx.sym.var('data'), merge_outputs=True)
    values = _values(out_p, {'data': (4, 2, 3)})
    got = _bind(out_r, values).forward()[0].asnumpy()
    base = _bind(out_p, values).forward()[0].asnumpy()
    np.testing.assert_allclose(got, base + values['data'], rtol=1e-6, atol=1e-7)


def test_dropout_cell_drops_in_training_only():
    cell = mx.rnn.DropoutCell(0.5)
    out, states = cell.unroll(3, mx.sym.var('data'), merge_outputs=True)
    assert states == []
    data = np.ones((20, 3, 10))
    exe = _bind(out, {'data': data})
    np.testing.assert_array_equal(exe.forward(is_train=False)[0].asnumpy(), data)
    dropped = exe.forward(is_train=True)[0].asnumpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0}
    assert 0.4 < (dropped == 0).mean() < 0.6
    # p=0 builds no Dropout node at all
    out0, _ = mx.rnn.DropoutCell(0.0).unroll(3, mx.sym.var('data'), merge_outputs=True)
    assert out0.name == 'data'


# ---- misuse ---------------------------------------------------------------------------------
@pytest.mark.parametrize('name', sorted(rnn_cases.error_cases()))
def test_errors_match_mxnet(name, mxnet_ref):
    kind, message = mxnet_ref['errors'][name]
    if name == 'iter_layout':
        message = message.replace('%s', 'TC')     # symmod fills in the layout
    with pytest.raises(Exception) as info:
        with contextlib.redirect_stdout(io.StringIO()):
            rnn_cases.error_cases()[name](mx)
    assert type(info.value).__name__ == kind
    assert str(info.value) == message


def test_abstract_cell_methods_say_what_is_missing():
    cell = mx.rnn.BaseRNNCell('x_')
    with pytest.raises(NotImplementedError, match='state_info'):
        cell.state_info
    with pytest.raises(NotImplementedError, match='__call__'):
        cell(mx.sym.var('x'), [])


def test_rnn_unroll_is_deprecated_but_works():
    cell = mx.rnn.LSTMCell(2, prefix='l_')
    with pytest.warns(UserWarning, match='rnn_unroll is deprecated'):
        outputs, states = mx.rnn.rnn_unroll(cell, 2, mx.sym.var('data'), input_prefix='x')
    assert [o.name for o in outputs] == ['l_t0_out', 'l_t1_out']
    assert [s.name for s in states] == ['l_t1_out', 'l_t1_state']


def test_module_paths():
    from symmod.rnn import rnn_cell
    assert rnn_cell.LSTMCell is mx.rnn.LSTMCell
    assert mx.rnn.io.BucketSentenceIter is mx.rnn.BucketSentenceIter
