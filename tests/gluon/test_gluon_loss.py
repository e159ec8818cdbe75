"""gluon.loss: values and gradients against numpy formulas."""
import numpy as np
import pytest

import symmod as mx
from symmod import autograd
from symmod.gluon import loss as gloss


def rand(*shape, seed=0):
    return np.random.RandomState(seed).normal(size=shape).astype(np.float32)


def log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def run(loss_fn, pred, *args):
    """Loss values and d(sum of loss)/d(pred)."""
    p = mx.nd.array(pred)
    p.attach_grad()
    with autograd.record():
        value = loss_fn(p, *[mx.nd.array(a) for a in args])
    value.backward()
    return value.asnumpy(), p.grad.asnumpy()


def batch_mean(values, batch_axis=0):
    axes = tuple(i for i in range(values.ndim) if i != batch_axis)
    return values.mean(axis=axes) if axes else values


@pytest.mark.parametrize('weight', [1., 0.5])
@pytest.mark.parametrize('shape', [(4,), (4, 3), (4, 2, 3)])
def test_l2_loss(weight, shape):
    pred, label = rand(*shape), rand(*shape, seed=1)
    value, grad = run(gloss.L2Loss(weight=weight), pred, label)
    n = int(np.prod(shape[1:]))
    np.testing.assert_allclose(value, batch_mean(weight / 2 * (label - pred) ** 2),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grad, weight * (pred - label) / n, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('weight', [None, 2.])
def test_l1_loss(weight):
    pred, label = rand(5, 3), rand(5, 3, seed=1)
    value, grad = run(gloss.L1Loss(weight=weight), pred, label)
    w = 1. if weight is None else weight
    np.testing.assert_allclose(value, w * np.abs(label - pred).mean(axis=1), rtol=1e-6)
    np.testing.assert_allclose(grad, w * np.sign(pred - label) / 3, rtol=1e-6)


def test_label_is_reshaped_and_sample_weight_broadcast():
    pred, label = rand(4, 3), rand(12, seed=1)
    sample_weight = np.array([[1.], [0.], [2.], [0.5]], dtype=np.float32)
    value, grad = run(gloss.L2Loss(), pred, label, sample_weight)
    diff = label.reshape(4, 3) - pred
    np.testing.assert_allclose(value, (0.5 * diff ** 2 * sample_weight).mean(axis=1),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grad, -diff * sample_weight / 3, rtol=1e-5, atol=1e-7)


def test_batch_axis():
    pred, label = rand(3, 5), rand(3, 5, seed=1)
    value, _ = run(gloss.L1Loss(batch_axis=1), pred, label)
    np.testing.assert_allclose(value, np.abs(label - pred).mean(axis=0), rtol=1e-6)


@pytest.mark.parametrize('axis', [-1, 1])
def test_softmax_ce_sparse_label(axis):
    pred = rand(6, 4)
    label = np.array([0, 3, 1, 2, 2, 0], dtype=np.float32)
    value, grad = run(gloss.SoftmaxCrossEntropyLoss(axis=axis), pred, label)
    logp = log_softmax(pred, 1)
    onehot = np.eye(4, dtype=np.float32)[label.astype(int)]
    np.testing.assert_allclose(value, -(logp * onehot).sum(1), rtol=1e-5)
    np.testing.assert_allclose(grad, np.exp(logp) - onehot, rtol=1e-5, atol=1e-6)
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss


def test_softmax_ce_dense_label_weight_and_from_logits():
    pred = rand(5, 3)
    label = np.random.RandomState(2).dirichlet(np.ones(3), size=5).astype(np.float32)
    value, grad = run(gloss.SoftmaxCrossEntropyLoss(sparse_label=False, weight=0.5),
                      pred, label)
    logp = log_softmax(pred, 1)
    np.testing.assert_allclose(value, -0.5 * (logp * label).sum(1), rtol=1e-5)
    np.testing.assert_allclose(grad, 0.5 * (np.exp(logp) * label.sum(1, keepdims=True)
                                            - label), rtol=1e-4, atol=1e-6)
    value, grad = run(gloss.SoftmaxCrossEntropyLoss(from_logits=True), logp,
                      np.array([0, 1, 2, 0, 1], dtype=np.float32))
    np.testing.assert_allclose(value, -logp[np.arange(5), [0, 1, 2, 0, 1]], rtol=1e-6)
    expected = np.zeros_like(logp)
    expected[np.arange(5), [0, 1, 2, 0, 1]] = -1
    np.testing.assert_array_equal(grad, expected)


def test_softmax_ce_sample_weight_and_3d():
    pred = rand(2, 3, 4)       # classes on the last axis, per-position labels
    label = np.array([[0, 1, 3], [2, 2, 0]], dtype=np.float32)
    sample_weight = np.array([[[1.], [0.], [2.]], [[1.], [1.], [1.]]], dtype=np.float32)
    value, _ = run(gloss.SoftmaxCrossEntropyLoss(), pred, label, sample_weight)
    logp = log_softmax(pred, -1)
    picked = np.take_along_axis(logp, label.astype(int)[..., None], axis=-1)
    np.testing.assert_allclose(value, (-picked * sample_weight).mean(axis=(1, 2)), rtol=1e-5)


@pytest.mark.parametrize('from_sigmoid', [False, True])
def test_sigmoid_bce(from_sigmoid):
    x = rand(4, 3)
    label = (np.random.RandomState(3).uniform(size=(4, 3)) > 0.5).astype(np.float32)
    pred = 1 / (1 + np.exp(-x)) if from_sigmoid else x
    value, _ = run(gloss.SigmoidBCELoss(from_sigmoid=from_sigmoid), pred.astype(np.float32),
                   label)
    p = 1 / (1 + np.exp(-x))
    expected = -(label * np.log(p) + (1 - label) * np.log(1 - p)).mean(1)
    np.testing.assert_allclose(value, expected, rtol=1e-4, atol=1e-6)


def test_huber_hinge_logistic_kl():
    pred, label = rand(4, 5), rand(4, 5, seed=1)
    diff = np.abs(label - pred)
    value, _ = run(gloss.HuberLoss(rho=0.7), pred, label)
    np.testing.assert_allclose(value, np.where(diff > 0.7, diff - 0.35,
                                               0.5 / 0.7 * diff ** 2).mean(1), rtol=1e-5)
    signs = np.sign(label)
    value, _ = run(gloss.HingeLoss(), pred, signs)
    np.testing.assert_allclose(value, np.maximum(0, 1 - pred * signs).mean(1), rtol=1e-5)
    value, _ = run(gloss.SquaredHingeLoss(), pred, signs)
    np.testing.assert_allclose(value, (np.maximum(0, 1 - pred * signs) ** 2).mean(1),
                               rtol=1e-5)
    value, _ = run(gloss.LogisticLoss(), pred, signs)
    np.testing.assert_allclose(value, np.log1p(np.exp(-pred * signs)).mean(1), rtol=1e-5)
    with pytest.raises(ValueError, match='label_format can only be signed or binary'):
        gloss.LogisticLoss(label_format='x')
    target = np.random.RandomState(4).dirichlet(np.ones(5), size=4).astype(np.float32)
    value, _ = run(gloss.KLDivLoss(from_logits=False), pred, target)
    np.testing.assert_allclose(
        value, (target * (np.log(target + 1e-12) - log_softmax(pred, 1))).sum(1), rtol=1e-5)


def test_loss_on_symbols_and_repr():
    out = gloss.SoftmaxCrossEntropyLoss()(mx.sym.var('pred'), mx.sym.var('label'))
    assert out.list_arguments() == ['pred', 'label']
    assert repr(gloss.L2Loss()) == 'L2Loss(batch_axis=0, w=1.0)'
    with pytest.raises(AssertionError, match='weight must be a number'):
        gloss.L1Loss(weight='x')(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
