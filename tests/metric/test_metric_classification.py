"""Accuracy, TopKAccuracy, F1, MCC and PCC against independent numpy formulas."""
import math

import numpy as np
import pytest

import symmod as mx


def softmax_batch(rs, n, k):
    x = rs.randn(n, k)
    return (np.exp(x) / np.exp(x).sum(1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16'])
@pytest.mark.parametrize('n, k', [(1, 3), (17, 10), (256, 2)])
def test_accuracy_is_mean_of_argmax_hits(dtype, n, k):
    rs = np.random.RandomState(n * k)
    batches = [(rs.randint(0, k, n), softmax_batch(rs, n, k).astype(dtype)) for _ in range(3)]
    acc = mx.metric.Accuracy()
    for label, pred in batches:
        acc.update([mx.nd.array(label)], [mx.nd.array(pred, dtype=dtype)])
    hits = sum(int((pred.argmax(1) == label).sum()) for label, pred in batches)
    assert acc.get() == ('accuracy', hits / (3.0 * n))
    assert acc.num_inst == 3 * n


def test_accuracy_with_class_index_predictions_and_axis():
    acc = mx.metric.Accuracy()
    acc.update([mx.nd.array([[0], [1], [2]])], [mx.nd.array([[0], [2], [2]])])
    assert acc.get()[1] == pytest.approx(2 / 3)
    acc = mx.metric.Accuracy(axis=0)        # classes on axis 0
    acc.update([mx.nd.array([1, 0])], [mx.nd.array([[0.1, 0.8], [0.9, 0.2]])])
    assert acc.get()[1] == 1.0


def test_accuracy_length_mismatch():
    with pytest.raises(ValueError, match='Shape of labels 2 does not match shape of predictions 1'):
        mx.metric.Accuracy().update([mx.nd.array([0]), mx.nd.array([1])], [mx.nd.array([0])])
    with pytest.raises(ValueError, match='Shape of labels 3 does not match shape of predictions 2'):
        mx.metric.Accuracy().update([mx.nd.array([0, 1, 1])], [mx.nd.array([[1, 0], [0, 1]])])


@pytest.mark.parametrize('top_k', [2, 3, 5, 12])
def test_top_k_accuracy_counts_label_in_top_k(top_k):
    rs = np.random.RandomState(top_k)
    pred = rs.rand(50, 10).astype(np.float32)          # distinct scores: no ties
    label = rs.randint(0, 10, 50)
    metric = mx.metric.TopKAccuracy(top_k=top_k)
    metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    best = np.argsort(-pred, axis=1)[:, :min(top_k, 10)]
    expected = np.mean([label[i] in best[i] for i in range(50)])
    assert metric.get() == ('top_k_accuracy_%d' % top_k, pytest.approx(expected))


def test_top_k_needs_more_than_one():
    with pytest.raises(AssertionError, match='Please use Accuracy'):
        mx.metric.TopKAccuracy(top_k=1)


def f1_formula(label, pred_label):
    tp = np.sum((pred_label == 1) & (label == 1))
    fp = np.sum((pred_label == 1) & (label == 0))
    fn = np.sum((pred_label == 0) & (label == 1))
    precision = tp / (tp + fp) if tp + fp else 0.
    recall = tp / (tp + fn) if tp + fn else 0.
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.


def mcc_formula(label, pred_label):
    tp = float(np.sum((pred_label == 1) & (label == 1)))
    tn = float(np.sum((pred_label == 0) & (label == 0)))
    fp = float(np.sum((pred_label == 1) & (label == 0)))
    fn = float(np.sum((pred_label == 0) & (label == 1)))
    terms = [t for t in (tp + fp, tp + fn, tn + fp, tn + fn) if t]
    return (tp * tn - fp * fn) / math.sqrt(np.prod(terms))


@pytest.mark.parametrize('name, formula', [('f1', f1_formula), ('mcc', mcc_formula)])
def test_binary_metrics_macro_and_micro(name, formula):
    rs = np.random.RandomState(5)
    batches = [(rs.randint(0, 2, n), softmax_batch(rs, n, 2)) for n in (20, 33, 7)]
    macro = mx.metric.create(name)
    micro = mx.metric.create(name, average='micro')
    for label, pred in batches:
        for metric in (macro, micro):
            metric.update([mx.nd.array(label)], [mx.nd.array(pred)])
    per_batch = [formula(label, pred.argmax(1)) for label, pred in batches]
    assert macro.get()[1] == pytest.approx(np.mean(per_batch))
    all_label = np.concatenate([b[0] for b in batches])
    all_pred = np.concatenate([b[1].argmax(1) for b in batches])
    assert micro.get()[1] == pytest.approx(formula(all_label, all_pred))
    assert micro.get_global()[1] == pytest.approx(formula(all_label, all_pred))
    micro.reset_local()
    assert math.isnan(micro.get()[1])
    assert micro.get_global()[1] == pytest.approx(formula(all_label, all_pred))


def test_mcc_docstring_example():
    preds = [mx.nd.array([[.3, .7]] * 1000 + [[.7, .3]] * 1 + [[.7, .3]] * 1 + [[.3, .7]] * 10000)]
    labels = [mx.nd.array([0.] * 1001 + [1.] * 10001)]
    f1, mcc = mx.metric.F1(), mx.metric.MCC()
    f1.update(labels, preds)
    mcc.update(labels, preds)
    assert f1.get()[1] == pytest.approx(0.95233560306652054)
    assert mcc.get()[1] == pytest.approx(0.01917751877733392)


def test_binary_metrics_reject_more_classes():
    with pytest.raises(ValueError, match='currently only supports binary classification'):
        mx.metric.F1().update([mx.nd.array([0, 1, 2])], [mx.nd.ones((3, 2))])


def pcc_formula(confusion):
    """Gorodkin's multi-class correlation from a confusion matrix (pred x label)."""
    n = confusion.sum()
    s_pred, s_label = confusion.sum(1), confusion.sum(0)
    cov_xy = np.trace(confusion) * n - np.dot(s_pred, s_label)
    cov_xx = n * n - np.dot(s_pred, s_pred)
    cov_yy = n * n - np.dot(s_label, s_label)
    return cov_xy / math.sqrt(cov_xx * cov_yy)


def test_pcc_matches_confusion_matrix_formula_and_grows():
    rs = np.random.RandomState(9)
    pcc = mx.metric.PCC()
    confusion = np.zeros((6, 6))
    for n, k in ((30, 3), (40, 6)):          # the second batch brings new classes
        label = rs.randint(0, k, n)
        pred = softmax_batch(rs, n, k)
        pcc.update([mx.nd.array(label)], [mx.nd.array(pred)])
        np.add.at(confusion, (pred.argmax(1), label), 1)
    assert pcc.k == 6
    assert pcc.get()[1] == pytest.approx(pcc_formula(confusion))


def test_pcc_equals_mcc_for_two_classes():
    rs = np.random.RandomState(3)
    label, pred = rs.randint(0, 2, 64), softmax_batch(rs, 64, 2)
    pcc, mcc = mx.metric.PCC(), mx.metric.MCC()
    for m in (pcc, mcc):
        m.update([mx.nd.array(label)], [mx.nd.array(pred)])
    assert pcc.get()[1] == pytest.approx(mcc.get()[1])
