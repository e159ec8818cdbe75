"""Classification metrics: Accuracy, TopKAccuracy, F1, MCC and PCC.

Every update works on whole batches with numpy; no per-sample Python loops.
"""
import math

import numpy

from .._labels import warn_out_of_range
from .base import EvalMetric, as_numpy, check_label_shapes
from .registry import alias, register

__all__ = ['Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'PCC']


def _class_indices(label, pred, axis):
    """Flat int32 label and predicted classes; a prediction shaped unlike the label
    holds scores, whose argmax along ``axis`` is the class."""
    label = as_numpy(label)
    pred = as_numpy(pred)
    if pred.shape != label.shape:
        pred = pred.argmax(axis=axis)
    return label.astype('int32').ravel(), pred.astype('int32').ravel()


def _warn_labels_against_scores(label, pred, axis):
    pred_shape = pred.shape
    if len(pred_shape) > 1 and tuple(pred_shape) != tuple(label.shape):
        warn_out_of_range('Accuracy', as_numpy(label), pred_shape[axis],
                          consequence='those examples always count as wrong')


@register
@alias('acc')
class Accuracy(EvalMetric):
    """Fraction of examples whose predicted class equals the label.

    A prediction may be class indices (same shape as the label) or scores per
    class, whose argmax along ``axis`` is taken.

    Parameters
    ----------
    axis : int, default 1
        The class axis of score predictions.
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([0, 1, 1])]
    >>> acc = mx.metric.Accuracy()
    >>> acc.update(preds=predicts, labels=labels)
    >>> acc.get()
    ('accuracy', 0.6666666666666666)
    """

    def __init__(self, axis=1, name='accuracy', output_names=None, label_names=None):
        super(Accuracy, self).__init__(name, axis=axis, output_names=output_names,
                                       label_names=label_names, has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if self.global_num_inst == 0:       # first batch after reset: once per epoch
                _warn_labels_against_scores(label, pred, self.axis)
            label, pred = _class_indices(label, pred, self.axis)
            check_label_shapes(label, pred)
            self._accumulate(int(numpy.count_nonzero(pred == label)), len(pred))


@register
@alias('top_k_accuracy', 'top_k_acc')
class TopKAccuracy(EvalMetric):
    """Fraction of examples whose label is among the ``top_k`` highest-scored classes.

    Parameters
    ----------
    top_k : int
        How many top classes count as a hit (must be more than 1; use
        :class:`Accuracy` for 1). The display name gets ``_<top_k>`` appended.
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> labels = [mx.nd.array([2, 6, 9, 2, 3, 4, 7, 8, 9, 6])]
    >>> predicts = [mx.nd.array(np.random.rand(10, 10))]
    >>> acc = mx.metric.TopKAccuracy(top_k=3)
    >>> acc.update(labels, predicts)
    >>> acc.get()[0]
    'top_k_accuracy_3'
    """

    def __init__(self, top_k=1, name='top_k_accuracy', output_names=None, label_names=None):
        super(TopKAccuracy, self).__init__(name, top_k=top_k, output_names=output_names,
                                           label_names=label_names, has_global_stats=True)
        self.top_k = top_k
        assert self.top_k > 1, 'Please use Accuracy if top_k is no more than 1'
        self.name += '_%d' % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = as_numpy(pred).astype('float32')
            assert pred.ndim <= 2, 'Predictions should be no more than 2 dims'
            label = as_numpy(label).astype('int32')
            check_label_shapes(label, pred)
            num_samples = pred.shape[0]
            if pred.ndim == 1:
                # MXNet compares the partition order of a 1-D score vector with the labels,
                # and leaves the global sum untouched in this case
                order = numpy.argpartition(pred, -min(self.top_k, pred.shape[0]))
                self.sum_metric += int(numpy.count_nonzero(order == label.ravel()))
                self.num_inst += num_samples
                self.global_num_inst += num_samples
            else:
                top_k = min(pred.shape[1], self.top_k)
                best = numpy.argpartition(pred, -top_k, axis=1)[:, -top_k:]
                self._accumulate(int(numpy.count_nonzero(best == label.reshape(-1, 1))),
                                 num_samples)


class _BinaryClassificationMetrics:
    """True/false positive/negative counts (local and global) of a binary classifier."""

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred):
        """Add one batch: ``pred`` holds two scores per example, ``label`` 0 or 1."""
        pred = as_numpy(pred)
        label = as_numpy(label).astype('int32')
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError('%s currently only supports binary classification.'
                             % type(self).__name__)
        label = label.ravel()
        pred_true = pred_label == 1
        label_true = label == 1
        true_pos = int(numpy.count_nonzero(pred_true & label_true))
        false_pos = int(numpy.count_nonzero(pred_true & ~label_true))
        false_neg = int(numpy.count_nonzero(~pred_true & label_true))
        true_neg = int(numpy.count_nonzero(~pred_true & ~label_true))
        self.true_positives += true_pos
        self.global_true_positives += true_pos
        self.false_positives += false_pos
        self.global_false_positives += false_pos
        self.false_negatives += false_neg
        self.global_false_negatives += false_neg
        self.true_negatives += true_neg
        self.global_true_negatives += true_neg

    @staticmethod
    def _ratio(num, other):
        return float(num) / (num + other) if num + other > 0 else 0.

    @staticmethod
    def _harmonic(precision, recall):
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.

    @property
    def precision(self):
        return self._ratio(self.true_positives, self.false_positives)

    @property
    def global_precision(self):
        return self._ratio(self.global_true_positives, self.global_false_positives)

    @property
    def recall(self):
        return self._ratio(self.true_positives, self.false_negatives)

    @property
    def global_recall(self):
        return self._ratio(self.global_true_positives, self.global_false_negatives)

    @property
    def fscore(self):
        return self._harmonic(self.precision, self.recall)

    @property
    def global_fscore(self):
        return self._harmonic(self.global_precision, self.global_recall)

    def _counts(self, use_global):
        """``(tp, fp, fn, tn)``, local or global."""
        if use_global:
            return (self.global_true_positives, self.global_false_positives,
                    self.global_false_negatives, self.global_true_negatives)
        return (self.true_positives, self.false_positives,
                self.false_negatives, self.true_negatives)

    def matthewscc(self, use_global=False):
        """Matthews correlation coefficient; zero factors of the denominator count as 1."""
        counts = self._counts(use_global)
        if not sum(counts):
            return 0.
        tp, fp, fn, tn = (float(count) for count in counts)
        denom = 1.
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            if term != 0.:
                denom *= term
        return ((tp * tn) - (fp * fn)) / math.sqrt(denom)

    @property
    def total_examples(self):
        return sum(self._counts(False))

    @property
    def global_total_examples(self):
        return sum(self._counts(True))

    def local_reset_stats(self):
        self.false_positives = 0
        self.false_negatives = 0
        self.true_positives = 0
        self.true_negatives = 0

    def reset_stats(self):
        self.local_reset_stats()
        self.global_false_positives = 0
        self.global_false_negatives = 0
        self.global_true_positives = 0
        self.global_true_negatives = 0


class _BinaryMetric(EvalMetric):
    """F1 and MCC: a per-batch score averaged over batches ('macro'), or one
    score over all examples seen ('micro'). Subclasses define ``_score(use_global)``."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self.metrics = _BinaryClassificationMetrics()
        EvalMetric.__init__(self, name=name, output_names=output_names,
                            label_names=label_names, has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self.metrics.update_binary_stats(label, pred)
        if self.average == 'macro':
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            self.metrics.reset_stats()
        else:
            self.sum_metric = self._score(False) * self.metrics.total_examples
            self.global_sum_metric = self._score(True) * self.metrics.global_total_examples
            self.num_inst = self.metrics.total_examples
            self.global_num_inst = self.metrics.global_total_examples

    def reset(self):
        super(_BinaryMetric, self).reset()
        self.metrics.reset_stats()

    def reset_local(self):
        super(_BinaryMetric, self).reset_local()
        self.metrics.local_reset_stats()


@register
class F1(_BinaryMetric):
    """F1 score (harmonic mean of precision and recall) of a binary classifier.

    Predictions hold two scores per example (class 1 is "positive" when it has
    the larger score); labels are 0 or 1.

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.
    average : {'macro', 'micro'}, default 'macro'
        'macro' averages the per-batch F1 scores; 'micro' computes one F1 from
        the counts of all batches.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0., 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([0., 1., 1.])]
    >>> f1 = mx.metric.F1()
    >>> f1.update(preds=predicts, labels=labels)
    >>> f1.get()
    ('f1', 0.8)
    """

    def __init__(self, name='f1', output_names=None, label_names=None, average='macro'):
        super(F1, self).__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self.metrics.global_fscore if use_global else self.metrics.fscore


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier.

    ``(TP*TN - FP*FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))``, where factors of
    the denominator that are zero are replaced by 1.

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.
    average : {'macro', 'micro'}, default 'macro'
        Average per-batch values, or one value over all batches.

    Examples
    --------
    >>> predicts = [mx.nd.array([[.3, .7]] * 1000 + [[.7, .3]] * 2 + [[.3, .7]] * 10000)]
    >>> labels = [mx.nd.array([0.] * 1001 + [1.] * 10001)]
    >>> mcc = mx.metric.MCC()
    >>> mcc.update(preds=predicts, labels=labels)
    >>> mcc.get()
    ('mcc', 0.01917751877733392)
    """

    def __init__(self, name='mcc', output_names=None, label_names=None, average='macro'):
        super(MCC, self).__init__(name, output_names, label_names, average)

    # MXNet names these attributes _average / _metrics on MCC
    _average = property(lambda self: self.average)
    _metrics = property(lambda self: self.metrics)

    def _score(self, use_global):
        return self.metrics.matthewscc(use_global=use_global)


@register
class PCC(EvalMetric):
    """Multi-class generalisation of MCC computed from the K x K confusion matrix.

    For two classes it equals :class:`MCC`; with more classes its minimum lies
    between -1 and 0, its maximum is +1. The matrix grows as new classes appear.

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.
    has_global_stats : bool
        Keep a global confusion matrix besides the local one.

    Examples
    --------
    >>> pcc = mx.metric.PCC()
    >>> pcc.update([mx.nd.array([0, 1, 2, 2])], [mx.nd.array([0, 1, 2, 1])])
    >>> round(pcc.get()[1], 4)
    0.7
    """

    def __init__(self, name='pcc', output_names=None, label_names=None,
                 has_global_stats=True):
        self.k = 2
        super(PCC, self).__init__(name=name, output_names=output_names,
                                  label_names=label_names, has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float('nan')
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _class_indices(label, pred, 1)
            n = int(max(pred.max(), label.max()))
            if n >= self.k:
                self._grow(n + 1 - self.k)
            counts = numpy.bincount(pred * self.k + label, minlength=self.k * self.k)
            batch_matrix = counts.reshape(self.k, self.k).astype(numpy.float64)
            self.lcm += batch_matrix
            self.gcm += batch_matrix
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))
