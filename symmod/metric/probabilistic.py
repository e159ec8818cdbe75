"""Metrics on predicted class probabilities: CrossEntropy, NegativeLogLikelihood
and Perplexity."""
import math

import numpy

from .base import EvalMetric, as_numpy, check_label_shapes
from .registry import alias, register

__all__ = ['CrossEntropy', 'NegativeLogLikelihood', 'Perplexity']


def _label_probability(label, pred):
    """``pred[i, label[i]]`` for every example (labels flattened, truncated to int)."""
    label = as_numpy(label).ravel()
    pred = as_numpy(pred)
    assert label.shape[0] == pred.shape[0], (label.shape[0], pred.shape[0])
    return pred[numpy.arange(label.shape[0], dtype=numpy.int64), numpy.int64(label)]


class _LogLoss(EvalMetric):
    """Mean of ``-log(p + eps)`` over examples, p the probability of the true class."""

    def __init__(self, eps, name, output_names, label_names):
        super(_LogLoss, self).__init__(name, eps=eps, output_names=output_names,
                                       label_names=label_names, has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            prob = _label_probability(label, pred)
            # float32 sums, accumulated in a Python float (float64) as under numpy 1.x
            self._accumulate(float((-numpy.log(prob + self.eps)).sum()), prob.shape[0])


@register
@alias('ce')
class CrossEntropy(_LogLoss):
    """Cross-entropy of predicted class probabilities, averaged over examples.

    Parameters
    ----------
    eps : float, default 1e-12
        Added to the probability so that log(0) stays finite.
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([0, 1, 1])]
    >>> ce = mx.metric.CrossEntropy()
    >>> ce.update(labels, predicts)
    >>> ce.get()
    ('cross-entropy', 0.57159948348999023)
    """

    def __init__(self, eps=1e-12, name='cross-entropy', output_names=None, label_names=None):
        super(CrossEntropy, self).__init__(eps, name, output_names, label_names)


@register
@alias('nll_loss')
class NegativeLogLikelihood(_LogLoss):
    """Negative log-likelihood of the true classes, averaged over examples.

    Parameters
    ----------
    eps : float, default 1e-12
        Added to the probability so that log(0) stays finite.
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([0, 1, 1])]
    >>> nll = mx.metric.NegativeLogLikelihood()
    >>> nll.update(labels, predicts)
    >>> nll.get()
    ('nll-loss', 0.57159948348999023)
    """

    def __init__(self, eps=1e-12, name='nll-loss', output_names=None, label_names=None):
        super(NegativeLogLikelihood, self).__init__(eps, name, output_names, label_names)


@register
class Perplexity(EvalMetric):
    """Perplexity, ``exp(mean(-log p))`` with p the probability of the true label.

    Parameters
    ----------
    ignore_label : int or None
        Label value whose positions are skipped (padding in language models);
        None counts every position.
    axis : int, default -1
        The class axis of the predictions.
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([0, 1, 1])]
    >>> perp = mx.metric.Perplexity(ignore_label=None)
    >>> perp.update(labels, predicts)
    >>> perp.get()
    ('perplexity', 1.7710976285155853)
    """

    def __init__(self, ignore_label, axis=-1, name='perplexity',
                 output_names=None, label_names=None):
        super(Perplexity, self).__init__(name, ignore_label=ignore_label,
                                         output_names=output_names, label_names=label_names,
                                         has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        assert len(labels) == len(preds)
        loss = 0.
        num = 0
        for label, pred in zip(labels, preds):
            assert label.size == pred.size / pred.shape[self.axis], \
                'shape mismatch: %s vs. %s' % (label.shape, pred.shape)
            label = as_numpy(label).reshape(label.size)
            pred = numpy.moveaxis(as_numpy(pred), self.axis, -1)
            classes = pred.shape[-1]
            # like nd.pick (mode 'clip'): out-of-range labels pick the nearest class
            picked = numpy.take_along_axis(
                pred.reshape(-1, classes),
                numpy.clip(label.astype(numpy.int64), 0, classes - 1).reshape(-1, 1),
                axis=1).ravel()
            if self.ignore_label is not None:
                ignore = label == self.ignore_label
                num -= int(numpy.count_nonzero(ignore))
                picked = numpy.where(ignore, picked.dtype.type(1), picked)
            floor = picked.dtype.type(1e-10)
            loss -= float(numpy.log(numpy.maximum(floor, picked)).sum())
            num += picked.size
        self._accumulate(loss, num)

    def get(self):
        name, mean_loss = super(Perplexity, self).get()
        return (name, math.exp(mean_loss))

    def get_global(self):
        name, mean_loss = super(Perplexity, self).get_global()
        return (name, math.exp(mean_loss))
