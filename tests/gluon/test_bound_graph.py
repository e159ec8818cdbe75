"""hybridize() binds the graph once per input signature (BoundGraph, symmod's CachedOp)."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.gluon import bound_graph, nn
from symmod.test_utils import assert_almost_equal


def _net(batchnorm=False):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(8, activation='relu'))
        if batchnorm:
            net.add(nn.BatchNorm())
        net.add(nn.Dense(3))
    net.initialize(mx.init.Xavier())
    return net


def _copy_params(src, dst, x):
    """Initialize both (deferred) with a call on ``x``; give ``dst`` ``src``'s values."""
    src(x)
    dst(x)
    for (_, a), (_, b) in zip(sorted(src.collect_params().items()),
                              sorted(dst.collect_params().items())):
        b.set_data(a.data())


def _train_step(net, xs):
    """Record one call per input, sum the outputs' squares, backward; returns the outputs
    and the parameters' gradients."""
    outs = []
    with mx.autograd.record():
        for x in xs:
            outs.append(net(x))
        loss = sum((o * o).sum() for o in outs)
    loss.backward()
    grads = {k[len(net.prefix):]: p.grad().asnumpy() for k, p in net.collect_params().items()
             if p.grad_req != 'null'}
    return [o.asnumpy() for o in outs], grads


def test_two_recorded_calls_keep_their_own_state():
    rng = np.random.RandomState(0)
    xs = [mx.nd.array(rng.randn(4, 5)) for _ in range(2)]
    imperative = _net()
    hybrid = _net()
    _copy_params(imperative, hybrid, xs[0])
    hybrid.hybridize()
    want_out, want_grads = _train_step(imperative, xs)
    for _ in range(2):      # the second step reuses the bound executors
        out, grads = _train_step(hybrid, xs)
        for a, b in zip(out, want_out):
            assert_almost_equal(a, b, rtol=1e-5, atol=1e-6)
        for name in want_grads:
            assert_almost_equal(grads[name], want_grads[name], rtol=1e-5, atol=1e-6)


def test_outputs_are_not_overwritten_by_the_next_call():
    net = _net()
    net.hybridize()
    first = net(mx.nd.ones((2, 5)))
    kept = first.asnumpy().copy()
    net(mx.nd.zeros((2, 5)))
    np.testing.assert_array_equal(first.asnumpy(), kept)


def test_binds_once_per_signature(monkeypatch):
    binds = []
    real = bound_graph.BoundGraph._bind

    def counting(self, inputs, needs, *rest):
        binds.append((inputs[0].shape, needs is not None))
        return real(self, inputs, needs, *rest)

    monkeypatch.setattr(bound_graph.BoundGraph, '_bind', counting)
    net = _net()
    net.hybridize()
    for batch in (2, 2, 3, 2):
        net(mx.nd.ones((batch, 5)))
    x = mx.nd.ones((2, 5))
    for _ in range(3):
        with mx.autograd.record():
            y = net(x)
        y.backward()
    assert binds == [((2, 5), False), ((3, 5), False), ((2, 5), True)]


def test_input_gradients_flow_through_the_graph():
    net = _net()
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(1).randn(3, 5))
    x.attach_grad()
    with mx.autograd.record():
        y = net(x * 2)
    y.backward()
    hybrid_grad = x.grad.asnumpy().copy()
    net.hybridize(False)
    with mx.autograd.record():
        y = net(x * 2)
    y.backward()
    assert_almost_equal(hybrid_grad, x.grad.asnumpy(), rtol=1e-5, atol=1e-6)


def test_batchnorm_statistics_update_in_place():
    rng = np.random.RandomState(2)
    x = mx.nd.array(rng.randn(6, 5) * 3 + 1)
    imperative, hybrid = _net(batchnorm=True), _net(batchnorm=True)
    _copy_params(imperative, hybrid, x)
    hybrid.hybridize()
    for net in (imperative, hybrid):
        _train_step(net, [x])
    stats = [{k[len(n.prefix):]: p.data().asnumpy() for k, p in n.collect_params().items()
              if 'running' in k} for n in (imperative, hybrid)]
    assert stats[0] and sorted(stats[0]) == sorted(stats[1])
    for name in stats[0]:
        assert not np.allclose(stats[0][name], 0 if 'mean' in name else 1)
        assert_almost_equal(stats[1][name], stats[0][name], rtol=1e-5, atol=1e-6)


def test_reinitialized_parameters_get_a_new_binding():
    net = _net()
    net.hybridize()
    x = mx.nd.ones((2, 5))
    net(x)
    net.initialize(mx.init.One(), force_reinit=True)
    expected = net.hybridize(False) or net(x).asnumpy()
    net.hybridize()
    assert_almost_equal(net(x).asnumpy(), expected)


def test_a_graph_the_executor_cannot_bind_runs_node_by_node(monkeypatch):
    def refuse(*args, **kwargs):
        raise MXNetError('cannot bind')

    net = _net()
    x = mx.nd.ones((2, 5))
    expected = net(x).asnumpy()
    net.hybridize()
    monkeypatch.setattr(mx.sym.Symbol, 'bind', refuse)
    assert_almost_equal(net(x).asnumpy(), expected)
    assert net._cached_op._fallback is not None
    with pytest.raises(MXNetError, match='expects'):
        net._cached_op(x)


def test_an_entry_output_twice_gets_the_sum_of_its_gradients():
    class Twice(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            y = F.relu(x) * 3
            return y, y

    block = Twice()
    block.hybridize()
    x = mx.nd.array([[1.0, -2.0, 3.0]])
    x.attach_grad()
    with mx.autograd.record():
        a, b = block(x)
        loss = (a * 2).sum() + (b * 5).sum()
    loss.backward()
    assert a is b
    np.testing.assert_allclose(x.grad.asnumpy(), [[21, 0, 21]])


def test_backward_neither_serializes_the_graph_nor_allocates_outputs(monkeypatch):
    """A hybridized call's tape entry builds its ``op`` (a JSON round trip of the graph)
    and its ``out_data`` (zero arrays) only on demand: backward needs neither."""
    net = _net()
    net.hybridize()
    x = mx.nd.ones((4, 5))
    x.attach_grad()
    _train_step(net, [x])       # bind for training first
    reads = []

    def counting(name, real):
        def read(self):
            reads.append(name)
            return real.fget(self)
        return property(read)

    monkeypatch.setattr(bound_graph._GraphNode, 'op', counting('op', bound_graph._GraphNode.op))
    monkeypatch.setattr(bound_graph._GraphNode, 'out_data',
                        counting('out_data', bound_graph._GraphNode.out_data))
    outs, grads = _train_step(net, [x, x * 2])
    assert reads == []
    net.hybridize(False)
    ref_outs, ref_grads = _train_step(net, [x, x * 2])
    for a, b in zip(outs, ref_outs):
        assert_almost_equal(a, b, rtol=1e-5, atol=1e-6)
    for k in ref_grads:
        assert_almost_equal(grads[k], ref_grads[k], rtol=1e-5, atol=1e-6)
