"""_CachedOp: a graph run as one operator (what autograd.get_symbol shows for a hybridized
block recorded as one node, as MXNet 1.9.1 does above inline_limit)."""
import json

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

TESTED_OPS = {'_CachedOp'}


def _graph(norm=False):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation='tanh', in_units=5))
    if norm:
        net.add(mx.gluon.nn.BatchNorm(in_channels=4))
    net.add(mx.gluon.nn.Dense(3, in_units=4))
    net.initialize()
    return net(mx.sym.var('data'))


def _values(sym, rng, **shapes):
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    args = {n: rng.standard_normal(s) for n, s in zip(sym.list_arguments(), arg_shapes)}
    aux = {n: rng.uniform(0.5, 1.5, s) for n, s in zip(sym.list_auxiliary_states(),
                                                         aux_shapes)}
    return args, aux


def test_numeric_gradient():
    node = mx.sym._CachedOp(subgraph=_graph().tojson(), name='c')
    args, _ = _values(node, np.random.default_rng(0), c_data=(2, 5))
    check_numeric_gradient(node, args, dtype=np.float64)


def test_runs_as_its_graph_with_auxiliary_states():
    graph = _graph(norm=True)
    node = mx.sym._CachedOp(subgraph=graph.tojson(), name='c')
    assert node.list_arguments() == ['c_' + n for n in graph.list_arguments()]
    assert node.list_auxiliary_states() == ['c_' + n for n in graph.list_auxiliary_states()]
    assert node.list_outputs() == ['c_' + n for n in graph.list_outputs()]
    args, aux = _values(graph, np.random.default_rng(1), data=(6, 5))
    results = []
    for sym, prefix in ((graph, ''), (node, 'c_')):
        exe = sym.bind(mx.cpu(), {prefix + k: mx.nd.array(v) for k, v in args.items()},
                       args_grad={prefix + k: mx.nd.zeros(v.shape) for k, v in args.items()},
                       aux_states={prefix + k: mx.nd.array(v) for k, v in aux.items()})
        out = exe.forward(is_train=True)[0].asnumpy()
        exe.backward(mx.nd.ones(out.shape))
        results.append((out, [g.asnumpy() for g in exe.grad_arrays],
                        [a.asnumpy() for a in exe.aux_arrays]))
    (out0, grads0, aux0), (out1, grads1, aux1) = results
    np.testing.assert_allclose(out1, out0, rtol=1e-6)
    for a, b in zip(grads1 + aux1, grads0 + aux0):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert not np.allclose(aux1[0], aux[graph.list_auxiliary_states()[0]])  # updated


def test_json_round_trip():
    node = mx.sym._CachedOp(subgraph=_graph().tojson(), name='c')
    again = mx.sym.load_json(node.tojson())
    assert again.tojson() == node.tojson()
    assert json.loads(again.tojson())['nodes'][-1]['op'] == '_CachedOp'


def _recorded(inline_limit, static_alloc=False):
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation='tanh', in_units=5), mx.gluon.nn.Dense(3, in_units=4))
    net.initialize(mx.init.Uniform())
    net.hybridize(inline_limit=inline_limit, static_alloc=static_alloc)
    x = mx.nd.array(np.arange(10).reshape(2, 5) / 10)
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    return net, x, y


@pytest.mark.parametrize('inline_limit, static_alloc, ops', [
    (3, False, ['FullyConnected', 'Activation', 'FullyConnected']),
    (2, False, ['_CachedOp']),
    (3, True, ['_CachedOp'])])
def test_hybridized_block_is_recorded_by_operator_up_to_inline_limit(inline_limit, static_alloc,
                                                                      ops):
    net, x, y = _recorded(inline_limit, static_alloc)
    sym = mx.autograd.get_symbol(y)
    nodes = json.loads(sym.tojson())['nodes']
    assert [n['op'] for n in nodes if n['op'] != 'null'] == ops
    assert len(sym.list_arguments()) == 5
    # the recorded symbol computes the recorded value and gradients
    y.backward(mx.nd.ones(y.shape), retain_graph=True)
    values = [x, net[0].weight.data(), net[0].bias.data(), net[1].weight.data(),
              net[1].bias.data()]
    arrays = dict(zip(sym.list_arguments(), values))
    grads = {n: mx.nd.zeros(a.shape) for n, a in arrays.items()}
    exe = sym.bind(mx.cpu(), arrays, args_grad=grads)
    np.testing.assert_allclose(exe.forward(is_train=True)[0].asnumpy(), y.asnumpy(), rtol=1e-6)
    exe.backward(mx.nd.ones(y.shape))
    np.testing.assert_allclose(grads[sym.list_arguments()[0]].asnumpy(), x.grad.asnumpy(),
                               rtol=1e-5)


def test_positional_inputs_follow_list_inputs_order():
    # two conv+BatchNorm branches: list_inputs interleaves arguments and auxiliary states
    # (conv weight, gamma, beta, moving_mean, moving_var, next conv weight, ...); MXNet
    # fills a _CachedOp's positional inputs in that order
    data = mx.sym.var('data')
    branches = [mx.sym.BatchNorm(mx.sym.Convolution(data, kernel=(3, 3), num_filter=2,
                                                    no_bias=True, name='conv%d' % i),
                                 fix_gamma=False, name='bn%d' % i) for i in range(2)]
    graph = branches[0] + branches[1]
    assert graph.list_inputs() != graph.list_arguments() + graph.list_auxiliary_states()
    node = mx.sym._internal._CachedOp(*[mx.sym.var(n) for n in graph.list_inputs()],
                                      subgraph=graph.tojson())
    assert node.list_arguments() == graph.list_arguments()
    assert node.list_auxiliary_states() == graph.list_auxiliary_states()
    args, aux = _values(graph, np.random.default_rng(2), data=(1, 1, 5, 5))
    outs = []
    for sym in (graph, node):
        exe = sym.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in args.items()},
                       aux_states={k: mx.nd.array(v) for k, v in aux.items()})
        outs.append(exe.forward(is_train=False)[0].asnumpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)


def test_positional_and_keyword_inputs_together():
    graph = _graph(norm=True)
    first, *rest = graph.list_inputs()
    node = mx.sym._CachedOp(mx.sym.var('x'), subgraph=graph.tojson(),
                            **{n: mx.sym.var('v_' + n) for n in rest})
    assert node.list_inputs()[0] == 'x'
    assert sorted(node.list_inputs()[1:]) == sorted('v_' + n for n in rest)
    with pytest.raises(mx.MXNetError, match='keyword argument name'):
        mx.sym._CachedOp(mx.sym.var('x'), subgraph=graph.tojson(), **{first: mx.sym.var('y')})
