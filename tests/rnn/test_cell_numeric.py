"""Numbers of unrolled cells: forward outputs and gradients against MXNet's, forward
against numpy formulas of each cell, and backward against finite differences."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

import rnn_cases


def _build(name):
    with mx.name.NameManager():
        return rnn_cases.graph_cases()[name](mx)


@pytest.mark.parametrize('name', rnn_cases.NUMERIC_CASES)
def test_forward_backward_match_mxnet(name, mxnet_arrays):
    _, outputs, states, _ = _build(name)
    group = rnn_cases.as_group(mx, outputs, states)
    names = group.list_arguments()
    values = {k: mxnet_arrays['%s/arg/%s' % (name, k)] for k in names}
    train = 'zoneout' not in name       # zoneout is random in training
    args = {k: mx.nd.array(v) for k, v in values.items()}
    grads = {k: mx.nd.zeros(v.shape) for k, v in values.items()}
    exe = group.bind(mx.cpu(), args=args, args_grad=grads)
    exe.forward(is_train=train)
    for i, out in enumerate(exe.outputs):
        assert_almost_equal(out.asnumpy(), mxnet_arrays['%s/out/%d' % (name, i)],
                            rtol=1e-5, atol=1e-6)
    if not train:
        return
    heads = [mx.nd.array(mxnet_arrays['%s/head/%d' % (name, i)])
             for i in range(len(exe.outputs))]
    exe.backward(heads)
    for k in names:
        assert_almost_equal(grads[k].asnumpy(), mxnet_arrays['%s/grad/%s' % (name, k)],
                            rtol=1e-4, atol=1e-5, names=('symmod_' + k, 'mxnet_' + k))


# ---- independent numpy formulas ------------------------------------------------------
def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _numpy_rnn(kind, xs, w, h0, c0=None):
    """Step-by-step numpy reference; ``w`` holds i2h/h2h weight and bias."""
    h, c, outs = h0, c0, []
    for x in xs:
        i2h = x @ w['i2h_weight'].T + w['i2h_bias']
        h2h = h @ w['h2h_weight'].T + w['h2h_bias']
        if kind == 'lstm':
            i, f, g, o = np.split(i2h + h2h, 4, axis=1)
            c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            h = _sigmoid(o) * np.tanh(c)
        elif kind == 'gru':
            ir, iz, io = np.split(i2h, 3, axis=1)
            hr, hz, ho = np.split(h2h, 3, axis=1)
            r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
            h = (1 - z) * np.tanh(io + r * ho) + z * h
        elif kind == 'rnn_tanh':
            h = np.tanh(i2h + h2h)
        else:
            h = np.maximum(i2h + h2h, 0)
        outs.append(h)
    return outs, h, c


@pytest.mark.parametrize('kind', ['lstm', 'gru', 'rnn_tanh', 'rnn_relu'])
@pytest.mark.parametrize('layout', ['NTC', 'TNC'])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_forward_matches_numpy(kind, layout, dtype):
    batch, length, dim, hidden = 3, 4, 5, 6
    cell = rnn_cases.make_cell(mx, kind, 'c_', hidden=hidden)
    begin = cell.begin_state(func=mx.sym.Variable)
    outputs, states = cell.unroll(length, mx.sym.var('data'), begin_state=begin,
                                  layout=layout, merge_outputs=True)
    group = mx.sym.Group([outputs] + states)
    gates = {'lstm': 4, 'gru': 3}.get(kind, 1)
    rng = np.random.RandomState(5)
    shape = (batch, length, dim) if layout == 'NTC' else (length, batch, dim)
    data = rng.uniform(-1, 1, shape).astype(dtype)
    w = {'i2h_weight': rng.uniform(-0.5, 0.5, (gates * hidden, dim)),
         'h2h_weight': rng.uniform(-0.5, 0.5, (gates * hidden, hidden)),
         'i2h_bias': rng.uniform(-0.5, 0.5, gates * hidden),
         'h2h_bias': rng.uniform(-0.5, 0.5, gates * hidden)}
    w = {k: v.astype(dtype) for k, v in w.items()}
    init = [rng.uniform(-1, 1, (batch, hidden)).astype(dtype) for _ in begin]
    args = {'data': data, **{'c_' + k: v for k, v in w.items()},
            **{s.name: v for s, v in zip(begin, init)}}
    exe = group.bind(mx.cpu(), {k: mx.nd.array(v, dtype=dtype) for k, v in args.items()},
                     grad_req='null')
    got = [o.asnumpy() for o in exe.forward()]

    steps = data if layout == 'TNC' else data.transpose(1, 0, 2)
    outs, h, c = _numpy_rnn(kind, list(steps.astype(np.float64)), w, init[0].astype(np.float64),
                            init[1].astype(np.float64) if kind == 'lstm' else None)
    merged = np.stack(outs, axis=layout.find('T'))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    assert got[0].dtype == dtype
    assert_almost_equal(got[0], merged, rtol=tol, atol=tol)
    assert_almost_equal(got[1], h, rtol=tol, atol=tol)
    if kind == 'lstm':
        assert_almost_equal(got[2], c, rtol=tol, atol=tol)


def test_forget_bias_initializer():
    """LSTMCell puts forget_bias into the forget quarter of i2h_bias through the
    variable's initializer, as MXNet does."""
    cell = mx.rnn.LSTMCell(3, prefix='l_', forget_bias=2.5)
    outputs, _ = cell.unroll(2, mx.sym.var('data'), merge_outputs=True)
    attrs = outputs.attr_dict()
    assert attrs['l_i2h_bias']['__init__'] == '["lstmbias", {"forget_bias": 2.5}]'
    assert '__init__' not in attrs.get('l_h2h_bias', {})
    bias = mx.nd.zeros((12,))
    mx.init.Xavier()(mx.init.InitDesc('l_i2h_bias', attrs['l_i2h_bias']), bias)
    np.testing.assert_array_equal(bias.asnumpy(), [0] * 3 + [2.5] * 3 + [0] * 6)


# ---- finite differences ---------------------------------------------------------------
def _gradient_point(group, shapes, seed):
    arg_shapes, _, _ = group.infer_shape(**shapes)
    rng = np.random.RandomState(seed)
    return {n: rng.uniform(-0.7, 0.7, s) for n, s in zip(group.list_arguments(), arg_shapes)}


@pytest.mark.parametrize('kind,layout', [('lstm', 'NTC'), ('gru', 'TNC'), ('rnn_tanh', 'NTC')])
def test_unrolled_numeric_gradient(kind, layout):
    """Gradients of every weight, the input and the initial states (float64)."""
    cell = rnn_cases.make_cell(mx, kind, 'g_', hidden=3)
    begin = cell.begin_state(func=mx.sym.Variable)
    outputs, states = cell.unroll(3, mx.sym.var('data'), begin_state=begin, layout=layout,
                                  merge_outputs=True)
    # one output that depends on every step and on the final states
    loss = mx.sym.sum(outputs) + mx.sym.sum(states[-1] * states[-1])
    shapes = {'data': rnn_cases.data_shape(layout, 3, 2)}
    shapes.update({s.name: (2, 3) for s in begin})
    location = _gradient_point(loss, shapes, seed=3)
    check_numeric_gradient(loss, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                           dtype=np.float64)


def test_bidirectional_stack_numeric_gradient():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(2, prefix='l_'),
                                       mx.rnn.GRUCell(2, prefix='r_')))
    stack.add(mx.rnn.ResidualCell(mx.rnn.RNNCell(4, prefix='top_')))
    # zero begin states of the checked dtype (begin_state passes dtype to symbol.zeros)
    begin = stack.begin_state(dtype='float64')
    outputs, _ = stack.unroll(3, mx.sym.var('data'), begin_state=begin, merge_outputs=True)
    location = _gradient_point(outputs, {'data': (2, 3, 4)}, seed=4)
    check_numeric_gradient(outputs, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                           dtype=np.float64)
