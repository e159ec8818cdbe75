"""Regression metrics: MAE, MSE, RMSE and PearsonCorrelation.

MAE, MSE and RMSE average one value per (label, prediction) array pair, i.e.
per batch, as MXNet 1.9.1 does (not per example).
"""
import numpy

from .base import EvalMetric, as_numpy, check_label_shapes
from .registry import alias, register

__all__ = ['MAE', 'MSE', 'RMSE', 'PearsonCorrelation']


def _as_columns(label, pred):
    """numpy label and prediction, 1-D arrays turned into columns."""
    label = as_numpy(label)
    pred = as_numpy(pred)
    if label.ndim == 1:
        label = label.reshape(label.shape[0], 1)
    if pred.ndim == 1:
        pred = pred.reshape(pred.shape[0], 1)
    return label, pred


class _BatchErrorMetric(EvalMetric):
    """A regression error computed per array pair and averaged over pairs.
    Subclasses define ``_error(label, pred)``."""

    def __init__(self, name, output_names, label_names):
        super(_BatchErrorMetric, self).__init__(
            name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._accumulate(float(self._error(*_as_columns(label, pred))), 1)


@register
class MAE(_BatchErrorMetric):
    """Mean absolute error, ``mean(|label - pred|)``.

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array(np.array([3, -0.5, 2, 7]).reshape(4, 1))]
    >>> labels = [mx.nd.array(np.array([2.5, 0.0, 2, 8]).reshape(4, 1))]
    >>> mae = mx.metric.MAE()
    >>> mae.update(labels=labels, preds=predicts)
    >>> mae.get()
    ('mae', 0.5)
    """

    def __init__(self, name='mae', output_names=None, label_names=None):
        super(MAE, self).__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_BatchErrorMetric):
    """Mean squared error, ``mean((label - pred)**2)``.

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array(np.array([3, -0.5, 2, 7]).reshape(4, 1))]
    >>> labels = [mx.nd.array(np.array([2.5, 0.0, 2, 8]).reshape(4, 1))]
    >>> mse = mx.metric.MSE()
    >>> mse.update(labels=labels, preds=predicts)
    >>> mse.get()
    ('mse', 0.375)
    """

    def __init__(self, name='mse', output_names=None, label_names=None):
        super(MSE, self).__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_BatchErrorMetric):
    """Root mean squared error, ``sqrt(mean((label - pred)**2))`` per batch.

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array(np.array([3, -0.5, 2, 7]).reshape(4, 1))]
    >>> labels = [mx.nd.array(np.array([2.5, 0.0, 2, 8]).reshape(4, 1))]
    >>> rmse = mx.metric.RMSE()
    >>> rmse.update(labels=labels, preds=predicts)
    >>> rmse.get()
    ('rmse', 0.6123724356957945)
    """

    def __init__(self, name='rmse', output_names=None, label_names=None):
        super(RMSE, self).__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


@register
@alias('pearsonr')
class PearsonCorrelation(EvalMetric):
    """Pearson correlation between labels and predictions (flattened).

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.
    average : {'macro', 'micro'}, default 'macro'
        'macro' averages the correlation of each batch; 'micro' computes one
        correlation over everything seen (running means and variances). As in
        MXNet 1.9.1, 'micro' keeps no global statistics: ``get_global()``
        reports 0.0 once updated.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([[1, 0], [0, 1], [0, 1]])]
    >>> pr = mx.metric.PearsonCorrelation()
    >>> pr.update(labels, predicts)
    >>> pr.get()
    ('pearsonr', 0.42163704544016178)
    """

    def __init__(self, name='pearsonr', output_names=None, label_names=None, average='macro'):
        self.average = average
        super(PearsonCorrelation, self).__init__(
            name, output_names=output_names, label_names=label_names, has_global_stats=True)
        if self.average == 'micro':
            self.reset_micro()

    def reset_micro(self):
        """Clear the running sums of the 'micro' average."""
        self._sse_p = 0
        self._mean_p = 0
        self._sse_l = 0
        self._mean_l = 0
        self._pred_nums = 0
        self._label_nums = 0
        self._conv = 0

    def reset(self):
        super(PearsonCorrelation, self).reset()
        if self.average == 'micro':
            self.reset_micro()

    @staticmethod
    def update_variance(new_values, *aggregate):
        """Welford's update of ``(count, mean, sum of squared deviations)`` with a batch."""
        count, mean, m_2 = aggregate
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        delta_2 = new_values - mean
        m_2 += numpy.sum(delta * delta_2)
        return count, mean, m_2

    def update_cov(self, label, pred):
        """Add a batch to the running co-moment (label mean already updated, as MXNet)."""
        self._conv = self._conv + numpy.sum((label - self._mean_l) * (pred - self._mean_p))

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = as_numpy(label).ravel().astype(numpy.float64)
            pred = as_numpy(pred).ravel().astype(numpy.float64)
            if self.average == 'macro':
                self._accumulate(float(numpy.corrcoef(pred, label)[0, 1]), 1)
            else:
                self.global_num_inst += 1
                self.num_inst += 1
                self._label_nums, self._mean_l, self._sse_l = self.update_variance(
                    label, self._label_nums, self._mean_l, self._sse_l)
                self.update_cov(label, pred)
                self._pred_nums, self._mean_p, self._sse_p = self.update_variance(
                    pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.average == 'macro' or self.num_inst == 0:
            return super(PearsonCorrelation, self).get()
        n = self._label_nums
        corr = self._conv / ((n - 1) * numpy.sqrt(self._sse_p / (n - 1))
                             * numpy.sqrt(self._sse_l / (n - 1)))
        return (self.name, corr)
