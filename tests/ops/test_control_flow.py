"""Control flow: mx.nd.contrib / mx.sym.contrib foreach, while_loop and cond.

The imperative versions are checked against plain Python loops, the symbolic ones
against the imperative ones (forward and autograd gradients) and against float64 finite
differences; gradients flow to the loop inputs, the states and the variables a body reads
from the enclosing graph."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

TESTED_OPS = {'_foreach', '_while_loop', '_cond'}
RNG = np.random.RandomState(21)


def _rnn_step(x, states, w):
    h = mx.nd.tanh(x * w + states[0]) if isinstance(x, mx.nd.NDArray) else \
        mx.sym.tanh(mx.sym.broadcast_mul(x, w) + states[0])
    return h, [h * 0.5]


def test_nd_foreach_matches_a_python_loop_and_records_gradients():
    data, init, w = RNG.randn(4, 3), RNG.randn(3), RNG.randn(3)
    nd_data, nd_init, nd_w = (mx.nd.array(a) for a in (data, init, w))
    for a in (nd_data, nd_init, nd_w):
        a.attach_grad()
    with mx.autograd.record():
        outs, states = mx.nd.contrib.foreach(lambda x, s: _rnn_step(x, s, nd_w), nd_data,
                                             [nd_init])
        loss = outs.sum() + states[0].sum()
    loss.backward()
    s, expected = init, []
    for x in data:
        h = np.tanh(x * w + s)
        expected.append(h)
        s = h * 0.5
    np.testing.assert_allclose(outs.asnumpy(), np.stack(expected), rtol=1e-5)
    np.testing.assert_allclose(states[0].asnumpy(), s, rtol=1e-5)
    assert np.abs(nd_w.grad.asnumpy()).sum() > 0


def _sym_vs_nd(build_sym, run_nd, values):
    """Forward and gradients of a symbolic graph equal the recorded imperative run."""
    names = sorted(values)
    sym = build_sym({n: mx.sym.var(n) for n in names})
    exe = sym.bind(mx.cpu(), {n: mx.nd.array(values[n]) for n in names},
                   args_grad={n: mx.nd.zeros(values[n].shape) for n in names})
    outs = exe.forward(is_train=True)
    heads = [RNG.randn(*o.shape) for o in outs]
    exe.backward([mx.nd.array(h) for h in heads])
    arrays = {n: mx.nd.array(values[n]) for n in names}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        nd_outs = run_nd(arrays)
    mx.autograd.backward(nd_outs, [mx.nd.array(h) for h in heads])
    for got, want in zip(outs, nd_outs):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
    for n in names:
        np.testing.assert_allclose(exe.grad_dict[n].asnumpy(), arrays[n].grad.asnumpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=n)


def test_sym_foreach_equals_nd_foreach():
    def build(v):
        outs, states = mx.sym.contrib.foreach(lambda x, s: _rnn_step(x, s, v['w']), v['data'],
                                              [v['init']])
        return mx.sym.Group([outs, states[0]])

    def run(a):
        outs, states = mx.nd.contrib.foreach(lambda x, s: _rnn_step(x, s, a['w']), a['data'],
                                             [a['init']])
        return [outs, states[0]]

    _sym_vs_nd(build, run, {'data': RNG.randn(5, 3), 'init': RNG.randn(3), 'w': RNG.randn(3)})


def _while_cond(i, s):
    return i < 4 if isinstance(i, mx.nd.NDArray) else mx.sym.sum(i) < 4


def _while_body(i, s):
    return [s * i], [i + 1, s * 0.5 + i]


def test_sym_while_loop_equals_nd_while_loop():
    def build(v):
        outs, final = mx.sym.contrib.while_loop(_while_cond, _while_body, [v['i'], v['s']],
                                                max_iterations=6)
        return mx.sym.Group(outs + final)

    def run(a):
        outs, final = mx.nd.contrib.while_loop(_while_cond, _while_body, [a['i'], a['s']],
                                               max_iterations=6)
        # the imperative padding rows are unspecified: compare the executed steps
        return [mx.nd.concat(outs[0][:3], mx.nd.zeros((3, 1)), dim=0)] + final

    _sym_vs_nd(build, run, {'i': np.array([1.0]), 's': np.array([0.7])})


def test_sym_cond_takes_the_right_branch_and_its_gradient():
    def build(v):
        return mx.sym.contrib.cond(mx.sym.sum(v['a']) > 0, lambda: v['a'] * v['b'],
                                   lambda: v['b'] - 2 * v['a'])

    def run(a):
        return [mx.nd.contrib.cond(a['a'].sum() > 0, lambda: a['a'] * a['b'],
                                   lambda: a['b'] - 2 * a['a'])]

    for sign in (1, -1):
        _sym_vs_nd(build, run, {'a': sign * np.abs(RNG.randn(3)), 'b': RNG.randn(3)})


@pytest.mark.parametrize('kind', ['foreach', 'while_loop', 'cond'])
def test_numeric_gradient_float64(kind):
    data, state, w = mx.sym.var('data'), mx.sym.var('state'), mx.sym.var('w')
    if kind == 'foreach':
        outs, states = mx.sym.contrib.foreach(
            lambda x, s: (mx.sym.sin(x) * s[0], [s[0] * x + w]), data, [state])
        sym = mx.sym.concat(mx.sym.reshape(outs, shape=(-1,)), states[0], dim=0)
        location = {'data': RNG.randn(3, 2), 'state': RNG.randn(2), 'w': RNG.randn(2)}
    elif kind == 'while_loop':
        outs, final = mx.sym.contrib.while_loop(
            lambda x, s: mx.sym.sum(s) < 100, lambda x, s: ([x * s], [x, mx.sym.exp(s) * w]),
            [data, state], max_iterations=3)
        sym = mx.sym.concat(mx.sym.reshape(outs[0], shape=(-1,)), *final, dim=0)
        location = {'data': RNG.randn(2), 'state': RNG.uniform(0.1, 0.5, 2),
                    'w': RNG.uniform(0.5, 1, 2)}
    else:
        sym = mx.sym.contrib.cond(mx.sym.sum(w) > 0, lambda: mx.sym.sin(data) * state,
                                  lambda: data + state)
        location = {'data': RNG.randn(2), 'state': RNG.randn(2), 'w': np.abs(RNG.randn(2))}
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_foreach_graph_survives_json():
    data, init = mx.sym.var('data'), mx.sym.var('init')
    outs, _ = mx.sym.contrib.foreach(lambda x, s: (x + s[0], [s[0] + 1]), data, [init])
    loaded = mx.sym.load_json(outs.tojson())
    exe = loaded.bind(mx.cpu(), {'data': mx.nd.ones((3, 2)), 'init': mx.nd.zeros(2)})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), [[1, 1], [2, 2], [3, 3]])


def test_errors():
    with pytest.raises(ValueError, match='max_iterations'):
        mx.nd.contrib.while_loop(lambda x: x < 1, lambda x: (x, x), [mx.nd.ones(1)])
    with pytest.raises(mx.MXNetError, match='states'):
        mx.sym.contrib.foreach(lambda x, s: (x, []), mx.sym.var('d'), [mx.sym.var('s')])
    # as MXNet: a symbolic body must read every state and data array
    with pytest.raises(AssertionError, match='state arrays have to be used'):
        mx.sym.contrib.foreach(lambda x, s: (x, [s[0] + 1, s[0] + 2]), mx.sym.var('d'),
                               [mx.sym.var('s0'), mx.sym.var('s1')])
    with pytest.raises(AssertionError, match='data arrays have to be used'):
        mx.sym.contrib.foreach(lambda x, s: (s[0] * 2, [s[0] + 1]), [mx.sym.var('d')],
                               [mx.sym.var('s0')])


def test_body_output_that_is_also_a_state_gets_both_gradients():
    # a recurrent cell returns its new hidden state as output and as state: one graph entry
    # at two outputs of the body; MXNet 1.9.1 adds both gradients (numbers from MXNet)
    x, s = mx.sym.var('x'), mx.sym.var('s')

    def body(d, states):
        h = d * states[0]
        return h, [h]

    outs, states = mx.sym.contrib.foreach(body, x, [s])
    exe = mx.sym.Group([outs, states[0]]).bind(
        mx.cpu(), {'x': mx.nd.array(np.arange(6).reshape(3, 2) / 3), 's': mx.nd.ones(2)},
        args_grad={'x': mx.nd.zeros((3, 2)), 's': mx.nd.zeros(2)})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((3, 2)), mx.nd.ones(2)])
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(),
                               [[3.4444447, 5.333333], [0, 1.4444444], [0, 0.6666667]],
                               rtol=1e-5)
    np.testing.assert_allclose(exe.grad_dict['s'].asnumpy(), [0, 1.7777777], rtol=1e-5)
def test_foreach_output_that_is_also_the_state_gets_both_gradients():
    # body returns one symbol as step output and new state; MXNet 1.9.1's numbers
    data = mx.nd.arange(6).reshape((3, 2))
    init = mx.nd.arange(2)
    ograd = mx.nd.array([[1, 2], [3, 4], [5, 6]])
    sgrad = mx.nd.array([0.5, -1])

    def step(x, states):
        out = x * 2 + states[0]
        return out, [out]

    outs, states = mx.sym.contrib.foreach(step, mx.sym.var('d'), [mx.sym.var('s')])
    grads = {'d': mx.nd.zeros((3, 2)), 's': mx.nd.zeros(2)}
    exe = mx.sym.Group([outs, states[0]]).bind(mx.cpu(), {'d': data, 's': init},
                                               args_grad=grads)
    exe.forward(is_train=True)
    exe.backward([ograd, sgrad])
    np.testing.assert_allclose(grads['s'].asnumpy(), [9.5, 11])
    np.testing.assert_allclose(grads['d'].asnumpy(), [[19, 22], [17, 18], [11, 10]])


def test_node_and_subgraph_names_follow_mxnet():
    # MXNet 1.9.1: nodes named automatically, subgraph names counted in AttrScope
    mx.attribute.AttrScope._subgraph_names.clear()
    d, s = mx.sym.var('d'), mx.sym.var('s')
    out, states = mx.sym.contrib.foreach(lambda x, st: (x + st[0], [st[0] * 2]), d, [s],
                                         name='loop')
    names = mx.sym.Group([out] + states).list_outputs()
    assert names[1:] == [names[0].replace('output0', 'output1')]
    assert names[0].startswith('_foreach') and names[0].endswith('_output0')
    cond = mx.sym.contrib.cond(s > 1, lambda: s * 2, lambda: s * 3)
    assert cond.list_outputs()[0].endswith('_output')
    mx.sym.contrib.while_loop(lambda a: a < 3, lambda a: (a * 2, [a + 1]), [s],
                              max_iterations=2)
    assert dict(mx.attribute.AttrScope._subgraph_names) == {
        'loop': 1, 'cond_pred': 1, 'cond_then': 1, 'cond_else': 1, 'while_loop_cond': 1,
        'while_loop_func': 1}
    assert '__subgraph_name__' in out.tojson() and 'loop0' in out.tojson()
