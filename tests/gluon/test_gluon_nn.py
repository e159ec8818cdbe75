"""gluon.nn layers against numpy formulas."""
import numpy as np
import pytest

import symmod as mx
from symmod import autograd
from symmod.gluon import nn


def rand(*shape, seed=0):
    return np.random.RandomState(seed).normal(size=shape).astype(np.float32)


@pytest.mark.parametrize('use_bias', [True, False])
@pytest.mark.parametrize('activation', [None, 'relu', 'tanh', 'sigmoid'])
def test_dense(use_bias, activation):
    layer = nn.Dense(4, activation=activation, use_bias=use_bias, in_units=6,
                     bias_initializer=mx.init.Constant(0.3))
    layer.initialize(mx.init.Uniform(0.5))
    x = rand(3, 2, 3)            # flatten=True: 2*3 = in_units
    out = layer(mx.nd.array(x)).asnumpy()
    w = layer.weight.data().asnumpy()
    expected = x.reshape(3, 6) @ w.T + (0.3 if use_bias else 0)
    expected = {None: lambda v: v, 'relu': lambda v: np.maximum(v, 0), 'tanh': np.tanh,
                'sigmoid': lambda v: 1 / (1 + np.exp(-v))}[activation](expected)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert (layer.bias is None) == (not use_bias)
    assert repr(layer).startswith('Dense(6 -> 4, ')


def test_dense_flatten_false_applies_to_last_axis():
    layer = nn.Dense(2, flatten=False)
    layer.initialize()
    x = rand(3, 4, 5)
    out = layer(mx.nd.array(x))
    assert out.shape == (3, 4, 2)
    w, b = layer.weight.data().asnumpy(), layer.bias.data().asnumpy()
    np.testing.assert_allclose(out.asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)


def test_activation_and_leaky_relu():
    x = np.array([-2., -0.5, 0., 1.5], dtype=np.float32)
    np.testing.assert_allclose(nn.Activation('softrelu')(mx.nd.array(x)).asnumpy(),
                               np.log1p(np.exp(x)), rtol=1e-6)
    np.testing.assert_allclose(nn.LeakyReLU(0.1)(mx.nd.array(x)).asnumpy(),
                               np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    assert nn.Activation('relu').prefix.startswith('relu')


def test_dropout_train_and_predict():
    layer = nn.Dropout(0.25)
    x = mx.nd.ones((400,))
    np.testing.assert_array_equal(layer(x).asnumpy(), np.ones(400))   # not training
    with autograd.train_mode():
        out = layer(x).asnumpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.75, rtol=1e-6)
    assert 0.6 < kept.mean() < 0.9
    np.testing.assert_array_equal(nn.Dropout(0)(x).asnumpy(), np.ones(400))


def test_batchnorm_train_and_inference():
    layer = nn.BatchNorm(momentum=0.8, epsilon=1e-5)
    layer.initialize()
    x = rand(6, 3, 2, 2, seed=1) * 2 + 1
    with autograd.record():
        out = layer(mx.nd.array(x))
    assert layer.gamma.shape == (3,)
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))
    expected = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-4, atol=1e-5)
    # as MXNet's CPU kernel, the running statistics move in the backward pass
    np.testing.assert_array_equal(layer.running_mean.data().asnumpy(), np.zeros(3))
    out.backward()
    np.testing.assert_allclose(layer.running_mean.data().asnumpy(), 0.2 * mean, rtol=1e-5)
    np.testing.assert_allclose(layer.running_var.data().asnumpy(), 0.8 + 0.2 * var,
                               rtol=1e-4)
    rmean, rvar = layer.running_mean.data().asnumpy(), layer.running_var.data().asnumpy()
    infer = layer(mx.nd.array(x)).asnumpy()     # predict mode: running statistics
    np.testing.assert_allclose(
        infer, (x - rmean[None, :, None, None]) / np.sqrt(rvar[None, :, None, None] + 1e-5),
        rtol=1e-4, atol=1e-5)
    assert layer.running_mean.grad_req == 'null' and layer.gamma.grad_req == 'write'
    assert nn.BatchNorm(scale=False).gamma.grad_req == 'null'


def test_flatten_and_lambdas():
    x = mx.nd.array(rand(2, 3, 4))
    assert nn.Flatten()(x).shape == (2, 12)
    np.testing.assert_allclose(nn.Lambda('tanh')(x).asnumpy(), np.tanh(x.asnumpy()),
                               rtol=1e-6)
    np.testing.assert_allclose(nn.Lambda(lambda v: v * 2)(x).asnumpy(), 2 * x.asnumpy())
    hyb = nn.HybridLambda(lambda F, v: F.relu(v))
    np.testing.assert_array_equal(hyb(x).asnumpy(), np.maximum(x.asnumpy(), 0))
    assert nn.HybridLambda('relu')(mx.sym.var('d')).list_arguments() == ['d']
    with pytest.raises(ValueError, match='Unrecognized function in lambda'):
        nn.Lambda(3)


def test_sequential_containers():
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=2), nn.Activation('relu'))
    net.initialize()
    assert len(net) == 2 and isinstance(net[0], nn.Dense)
    assert net(mx.nd.ones((4, 2))).shape == (4, 3)
    with pytest.warns(UserWarning, match='Consider using HybridSequential'):
        net.hybridize()
    assert 'Sequential(\n  (0): Dense(2 -> 3, linear)' in repr(net)
