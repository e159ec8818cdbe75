"""MAE, MSE, RMSE and PearsonCorrelation against numpy formulas."""
import math

import numpy as np
import pytest

import symmod as mx


def batches(shape, seed=0, count=3):
    rs = np.random.RandomState(seed)
    out = []
    for _ in range(count):
        label = rs.randn(*shape).astype(np.float32)
        out.append((label, (label + rs.randn(*shape)).astype(np.float32)))
    return out


FORMULAS = {
    'mae': lambda l, p: np.abs(l - p).mean(),
    'mse': lambda l, p: ((l - p) ** 2).mean(),
    'rmse': lambda l, p: np.sqrt(((l - p) ** 2).mean()),
}


@pytest.mark.parametrize('name', sorted(FORMULAS))
@pytest.mark.parametrize('shape', [(8,), (8, 1), (5, 3)])
def test_errors_average_per_batch(name, shape):
    data = batches(shape)
    metric = mx.metric.create(name)
    for label, pred in data:
        metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    expected = np.mean([FORMULAS[name](l.astype(np.float64), p) for l, p in data])
    assert metric.get() == (name, pytest.approx(expected, rel=1e-6))
    assert metric.num_inst == 3


def test_one_dimensional_label_against_column_prediction():
    metric = mx.metric.MAE()
    metric.update([mx.nd.array([1., 2., 3.])], [mx.nd.array([[1.5], [2.], [2.]])])
    assert metric.get()[1] == pytest.approx(0.5)


def test_pearson_macro_averages_batch_correlations():
    data = batches((6, 2), seed=1)
    metric = mx.metric.PearsonCorrelation()
    for label, pred in data:
        metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    expected = np.mean([np.corrcoef(l.ravel(), p.ravel())[0, 1] for l, p in data])
    assert metric.get()[1] == pytest.approx(expected)


def test_pearson_micro_is_correlation_of_everything():
    data = batches((6, 2), seed=2)
    metric = mx.metric.PearsonCorrelation(average='micro')
    for label, pred in data:
        metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    labels = np.concatenate([l.ravel() for l, _ in data]).astype(np.float64)
    preds = np.concatenate([p.ravel() for _, p in data]).astype(np.float64)
    assert metric.get()[1] == pytest.approx(np.corrcoef(labels, preds)[0, 1], rel=1e-9)
    # MXNet 1.9.1 keeps no global statistic for 'micro'
    assert metric.get_global()[1] == 0.0
    metric.reset()
    assert math.isnan(metric.get()[1])


def test_pearson_shape_mismatch():
    with pytest.raises(ValueError, match=r'Shape of labels \(3,\) does not match'):
        mx.metric.PearsonCorrelation().update([mx.nd.zeros((3,))], [mx.nd.zeros((3, 1))])
