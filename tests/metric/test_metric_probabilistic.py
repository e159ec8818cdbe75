"""CrossEntropy, NegativeLogLikelihood, Perplexity and Loss against numpy formulas."""
import math

import numpy as np
import pytest

import symmod as mx


def probs(rs, n, k):
    x = rs.randn(n, k)
    return (np.exp(x) / np.exp(x).sum(1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize('name, display', [('ce', 'cross-entropy'), ('nll_loss', 'nll-loss')])
def test_log_losses(name, display):
    rs = np.random.RandomState(0)
    data = [(rs.randint(0, 4, n), probs(rs, n, 4)) for n in (5, 9)]
    metric = mx.metric.create(name)
    for label, pred in data:
        metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    total = sum(-np.log(p[np.arange(len(l)), l].astype(np.float64) + 1e-12).sum()
                for l, p in data)
    assert metric.get() == (display, pytest.approx(total / 14, rel=1e-6))


def test_cross_entropy_eps_keeps_zero_probability_finite():
    metric = mx.metric.CrossEntropy(eps=1e-3)
    metric.update([mx.nd.array([0])], [mx.nd.array([[0., 1.]])])
    assert metric.get()[1] == pytest.approx(-math.log(1e-3), rel=1e-5)


@pytest.mark.parametrize('ignore_label', [None, 0, -1])
def test_perplexity(ignore_label):
    rs = np.random.RandomState(1)
    label = rs.randint(-1, 5, 40)
    pred = probs(rs, 40, 5)
    metric = mx.metric.Perplexity(ignore_label=ignore_label)
    metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    # nd.pick clips out-of-range labels (-1 picks class 0)
    picked = pred[np.arange(40), np.clip(label, 0, 4)].astype(np.float64)
    keep = np.ones(40, bool) if ignore_label is None else label != ignore_label
    expected = math.exp(-np.log(np.maximum(picked[keep], 1e-10)).sum() / keep.sum())
    assert metric.get() == ('perplexity', pytest.approx(expected, rel=1e-5))


def test_perplexity_class_axis_and_sequence_shapes():
    rs = np.random.RandomState(2)
    pred = probs(rs, 12, 6)
    label = rs.randint(0, 6, (3, 4))
    by_rows = mx.metric.Perplexity(None)
    by_rows.update([mx.nd.array(label)], [mx.nd.array(pred)])
    by_cols = mx.metric.Perplexity(None, axis=0)
    by_cols.update([mx.nd.array(label)], [mx.nd.array(pred.T.copy())])
    expected = math.exp(-np.log(pred[np.arange(12), label.ravel()]).mean())
    assert by_rows.get()[1] == pytest.approx(expected, rel=1e-5)
    assert by_cols.get()[1] == pytest.approx(expected, rel=1e-5)
    with pytest.raises(AssertionError, match='shape mismatch'):
        by_rows.update([mx.nd.zeros((5,))], [mx.nd.array(pred)])


def test_loss_averages_outputs():
    loss = mx.metric.Loss()
    loss.update(None, [mx.nd.array([1., 2., 3.]), mx.nd.array([[4., 5.]])])
    loss.update(None, mx.nd.array([10.]))
    assert loss.get() == ('loss', pytest.approx(25. / 6))
    assert mx.metric.create('torch').name == 'torch' and mx.metric.create('caffe').name == 'caffe'
