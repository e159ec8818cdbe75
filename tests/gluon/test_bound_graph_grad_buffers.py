"""A hybridized graph writes Parameters' gradients straight into their buffers
(grad_req 'write', one use per call) and falls back to copies where that is not safe."""
import numpy as np

import symmod as mx
from symmod import autograd, gluon
from symmod.gluon import nn
from symmod.test_utils import assert_almost_equal


def _net():
    """Dense-relu-Dense: three operators, more than the graphs hybridize() runs inline."""
    net = nn.HybridSequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Dense(5, in_units=4, activation='relu'), nn.Dense(3, in_units=5))
    net.initialize(mx.init.Xavier())
    return net


def _pair():
    """The same network twice (same values): imperative, then hybridized."""
    layers = [_net(), _net()]
    for p_imp, p_hyb in zip(layers[0].collect_params().values(),
                            layers[1].collect_params().values()):
        p_hyb.set_data(p_imp.data())
    layers[1].hybridize()
    return layers


def _x(seed=1, rows=2):
    return mx.nd.array(np.random.RandomState(seed).randn(rows, 4))


def _bound_grads(layer):
    """The gradient arrays of the layer's bound executors."""
    return [g for slots in layer._cached_op._slots.values() for slot in slots
            for g in slot.exe.grad_arrays if g is not None]


def _grads(layer):
    return {k: p.grad().asnumpy().copy() for k, p in layer.collect_params().items()}


def _assert_same(got, want):
    for name in want:
        assert_almost_equal(got[name], want[name], rtol=1e-5, atol=1e-6)


def test_write_gradients_land_in_the_parameters_own_buffers():
    imperative, hybrid = _pair()
    for layer in (imperative, hybrid):
        with autograd.record():
            loss = (layer(_x()) ** 2).sum()
        loss.backward()
    _assert_same(_grads(hybrid), _grads(imperative))
    bound = _bound_grads(hybrid)
    for param in hybrid.collect_params().values():
        assert any(np.shares_memory(g._data, param.grad()._data) for g in bound)


def test_add_gradients_accumulate_through_a_copy():
    imperative, hybrid = _pair()
    for layer in (imperative, hybrid):
        for param in layer.collect_params().values():
            param.grad_req = 'add'
        for seed in (1, 2):
            with autograd.record():
                loss = (layer(_x(seed)) ** 2).sum()
            loss.backward()
    _assert_same(_grads(hybrid), _grads(imperative))
    bound = _bound_grads(hybrid)
    for param in hybrid.collect_params().values():
        assert not any(np.shares_memory(g._data, param.grad()._data) for g in bound)


def test_two_calls_before_one_backward_sum_their_gradients():
    imperative, hybrid = _pair()
    for layer in (imperative, hybrid):
        with autograd.record():
            loss = (layer(_x(1)) ** 2).sum() + (layer(_x(2, rows=2)) * 3).sum()
        loss.backward()
    _assert_same(_grads(hybrid), _grads(imperative))


def test_a_parameter_also_used_outside_the_graph():
    imperative, hybrid = _pair()
    for layer in (imperative, hybrid):
        weight = layer[0].weight.data()
        for outside_first in (False, True):
            with autograd.record():
                out = layer(_x())
                extra = (weight * weight).sum()
                loss = (out * out).sum() + extra if outside_first else \
                    extra + (layer(_x(3)) * out).sum()
            loss.backward()
            got = _grads(layer)
            if layer is imperative:
                want = got
    _assert_same(_grads(hybrid), want)


def test_two_graphs_sharing_a_parameter():
    first = _net()
    second = nn.HybridSequential(prefix='net_')
    with second.name_scope():
        second.add(nn.Dense(5, in_units=4, activation='relu',
                            params=first[0].collect_params()),
                   nn.Dense(4, in_units=5))
    second[1].initialize(mx.init.Xavier())
    x = _x()
    results = []
    for hybridize in (False, True):
        first.hybridize(hybridize)
        second.hybridize(hybridize)
        with autograd.record():
            loss = (first(x) ** 2).sum() + (second(x) ** 2).sum()
        loss.backward()
        results.append(_grads(first))
    _assert_same(results[1], results[0])


def test_autograd_grad_leaves_the_gradient_buffers_alone():
    imperative, hybrid = _pair()
    results = []
    for layer in (imperative, hybrid):
        with autograd.record():
            loss = (layer(_x()) ** 2).sum()
        loss.backward(retain_graph=True)
        for param in layer.collect_params().values():
            param.grad()[:] = 7
        before = _grads(layer)
        weight = layer[0].weight.data()
        got = autograd.grad(loss, [weight])[0].asnumpy()
        _assert_same(_grads(layer), before)
        results.append(got)
    assert_almost_equal(results[1], results[0], rtol=1e-5, atol=1e-6)
    assert np.abs(results[1]).sum() > 0


def test_the_same_variable_at_two_inputs():
    class Twice(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a * 2 + b * b

    x = mx.nd.array([1.0, -2.0, 3.0])
    x.attach_grad()
    block = Twice()
    block.hybridize()
    for _ in range(2):
        with autograd.record():
            y = block(x, x)
        y.backward()
        assert_almost_equal(x.grad.asnumpy(), 2 + 2 * x.asnumpy())


def test_training_with_the_trainer_matches_imperative():
    imperative, hybrid = _pair()
    weights = []
    for layer in (imperative, hybrid):
        trainer = gluon.Trainer(layer.collect_params(), 'sgd',
                                {'learning_rate': 0.1, 'momentum': 0.9})
        for seed in range(3):
            with autograd.record():
                loss = (layer(_x(seed)) ** 2).sum()
            loss.backward()
            trainer.step(2)
        weights.append(layer[0].weight.data().asnumpy())
    assert_almost_equal(weights[1], weights[0], rtol=1e-5, atol=1e-6)
