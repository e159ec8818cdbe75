"""Recurrent layers called without states inside a hybridized parent: the graph holds
``_zeros(shape=(1, 0, H))`` begin states whose 0 (the batch size) only the whole graph
determines; the runner infers it once per input signature."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.gluon import nn, rnn
from symmod.executor import plan
from symmod.test_utils import assert_almost_equal

LAYERS = {
    'GRU': lambda: rnn.GRU(8, layout='NTC'),
    'LSTM': lambda: rnn.LSTM(6, num_layers=2, bidirectional=True, layout='NTC'),
    'RNN': lambda: rnn.RNN(5, activation='tanh', layout='NTC'),
}


def make_net(kind):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(LAYERS[kind](), nn.Dense(3))
    net.initialize(mx.init.Uniform(0.5))
    return net


def run(net, x, head):
    """Output, input gradient and parameter gradients of sum(net(x) * head)."""
    x = mx.nd.array(x)
    x.attach_grad()
    with mx.autograd.record():
        out = net(x)
        loss = (out * mx.nd.array(head)).sum()
    loss.backward()
    grads = {name: p.grad().asnumpy() for name, p in net.collect_params().items()}
    return out.asnumpy(), x.grad.asnumpy(), grads


@pytest.mark.parametrize('kind', sorted(LAYERS))
def test_hybridized_parent_equals_imperative(kind):
    rng = np.random.RandomState(0)
    net = make_net(kind)
    results = {}
    for batch in (4, 2):        # the second batch size is a new input signature
        x = rng.uniform(-1, 1, (batch, 5, 7)).astype(np.float32)
        head = rng.uniform(-1, 1, (batch, 3)).astype(np.float32)
        net.hybridize(active=False)
        results['imperative', batch] = run(net, x, head)
        net.hybridize()
        results['hybrid', batch] = run(net, x, head)
        out, dx, grads = results['hybrid', batch]
        want_out, want_dx, want_grads = results['imperative', batch]
        assert out.shape == (batch, 3)
        assert_almost_equal(out, want_out, rtol=1e-5, atol=1e-6)
        assert_almost_equal(dx, want_dx, rtol=1e-5, atol=1e-6)
        assert sorted(grads) == sorted(want_grads)
        for name in grads:
            assert_almost_equal(grads[name], want_grads[name], rtol=1e-5, atol=1e-6)
    # the graph really holds a begin state of unknown batch size
    zeros = [n for n in net._cached_op._symbol._nodes() if n.op == '_zeros']
    assert zeros and all('0' in n.attrs['shape'] for n in zeros)


def test_inference_runs_once_per_input_signature(monkeypatch):
    # a hybridized block binds its graph once per input signature (shape inference
    # happens in the executor's plan)
    calls = []
    real = plan.infer_shapes

    def counting(nodes, known):
        calls.append(known['data'])
        return real(nodes, known)

    monkeypatch.setattr(plan, 'infer_shapes', counting)
    net = make_net('GRU')
    net.hybridize()
    for batch in (3, 3, 5, 3, 5):
        assert net(mx.nd.ones((batch, 4, 2))).shape == (batch, 3)
    assert calls == [(3, 4, 2), (5, 4, 2)]


def test_inputs_the_graph_cannot_take_raise():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(rnn.GRU(4), nn.Dense(2))     # TNC: Dense flattens batch * hidden
    net.initialize()
    net.hybridize()
    assert net(mx.nd.ones((3, 2, 5))).shape == (3, 2)
    with pytest.raises(MXNetError, match='dense0_fwd'):
        net(mx.nd.ones((3, 4, 5)))


def test_zeros_with_unknown_dim_fills_out():
    """MXNet sizes _zeros(shape=(1, 0, 8)) from out=, and refuses a conflicting out=."""
    out = mx.nd.ones((1, 5, 8))
    result = mx.nd._internal._zeros(shape=(1, 0, 8), out=out)
    assert result is out
    assert_almost_equal(out.asnumpy(), np.zeros((1, 5, 8), np.float32))
    with pytest.raises(MXNetError, match='out= has shape'):
        mx.nd._internal._zeros(shape=(1, 3, 8), out=mx.nd.ones((1, 5, 8)))
