"""AdamW (symmod's addition): decoupled weight decay on MXNet's adamw_update arithmetic."""
import math

import numpy as np
import pytest

import symmod as mx
from symmod.optimizer.kernels import reference


@pytest.mark.parametrize('correct_bias', [True, False])
def test_adamw_steps_match_the_formula(correct_bias):
    rng = np.random.RandomState(0)
    w = rng.uniform(-1, 1, (5, 7)).astype(np.float32)
    mean = np.zeros_like(w)
    var = np.zeros_like(w)
    opt = mx.optimizer.create('adamw', learning_rate=0.01, wd=0.1, rescale_grad=0.5,
                              clip_gradient=0.3, correct_bias=correct_bias)
    updater = mx.optimizer.get_updater(opt)
    weight = mx.nd.array(w)
    for t in range(1, 5):
        g = rng.normal(0, 1, w.shape).astype(np.float32)
        updater(0, mx.nd.array(g), weight)
        eta = 0.01 * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) if correct_bias else 0.01
        w, mean, var = reference.adamw(w, g, mean, var, 1.0, 0.1, eta, 0.9, 0.999, 1e-6,
                                       0.5, 0.3, multi_form=True)
        np.testing.assert_allclose(weight.asnumpy(), w, rtol=1e-5, atol=1e-6)
    m_state, v_state = updater.states[0]
    np.testing.assert_allclose(m_state.asnumpy(), mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(v_state.asnumpy(), var, rtol=1e-5, atol=1e-7)


def test_weight_decay_is_decoupled_from_the_gradient():
    """With zero gradients Adam's wd still moves the moments; AdamW's only the weight,
    by wd times the (bias-corrected) step size."""
    opt = mx.optimizer.create('adamw', learning_rate=0.1, wd=0.5)
    updater = mx.optimizer.get_updater(opt)
    weight = mx.nd.ones((4,))
    updater(0, mx.nd.zeros((4,)), weight)
    mean, var = updater.states[0]
    assert not mean.asnumpy().any() and not var.asnumpy().any()
    eta = 0.1 * math.sqrt(1 - 0.999) / (1 - 0.9)
    np.testing.assert_allclose(weight.asnumpy(), 1 - eta * 0.5, rtol=1e-6)


def test_single_tensor_form_when_not_aggregating(monkeypatch):
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '1')
    rng = np.random.RandomState(1)
    w = rng.uniform(-1, 1, (6,)).astype(np.float32)
    g = rng.normal(0, 1, (6,)).astype(np.float32)
    weight = mx.nd.array(w)
    updater = mx.optimizer.get_updater(mx.optimizer.create('adamw', correct_bias=False))
    updater(0, mx.nd.array(g), weight)
    expected, _, _ = reference.adamw(w, g, np.zeros(6), np.zeros(6), 1.0, 0.0, 0.001, 0.9,
                                     0.999, 1e-6)
    np.testing.assert_allclose(weight.asnumpy(), expected, rtol=1e-6)
