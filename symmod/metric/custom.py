"""``Loss`` (averages a loss the network outputs) and ``CustomMetric`` (a user
function of numpy labels and predictions), with the ``np()`` shortcut."""
import numpy

from ..ndarray import NDArray
from .base import EvalMetric, as_numpy, check_label_shapes
from .registry import register

__all__ = ['Loss', 'Torch', 'Caffe', 'CustomMetric', 'np']


def _copy(arr):
    """A private numpy copy of an NDArray (or array-like)."""
    return arr.asnumpy() if isinstance(arr, NDArray) else numpy.array(arr, copy=True)


@register
class Loss(EvalMetric):
    """Average of the values the network outputs (for MakeLoss-style heads).

    Labels are ignored; each output adds its sum to ``sum_metric`` and its size
    to ``num_inst``.

    Parameters
    ----------
    name : str
        Display name.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> loss = mx.metric.Loss()
    >>> loss.update(None, [mx.nd.array([1., 2., 3.])])
    >>> loss.get()
    ('loss', 2.0)
    """

    def __init__(self, name='loss', output_names=None, label_names=None):
        super(Loss, self).__init__(name, output_names=output_names, label_names=label_names,
                                   has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            values = as_numpy(pred)
            self._accumulate(values.sum().item(), values.size)


@register
class Torch(Loss):
    """Loss metric named 'torch' (MXNet's placeholder for Torch criterions)."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super(Torch, self).__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """Loss metric named 'caffe' (MXNet's placeholder for Caffe criterions)."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super(Caffe, self).__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric computed by a user function ``feval(label, pred)`` on numpy arrays.

    ``feval`` is called once per (label, prediction) pair and returns either a
    number (averaged over calls) or a tuple ``(sum_metric, num_inst)``.

    Parameters
    ----------
    feval : callable(label, pred)
        The function.
    name : str, optional
        Display name; by default the function's name, wrapped as
        ``custom(<lambda>)`` for a lambda.
    allow_extra_outputs : bool, optional
        Allow more predictions than labels (RNNs that also output states);
        the extra ones are ignored.
    output_names, label_names : list of str, or None
        See :class:`EvalMetric`.

    Examples
    --------
    >>> predicts = [mx.nd.array(np.array([3, -0.5, 2, 7]).reshape(4, 1))]
    >>> labels = [mx.nd.array(np.array([2.5, 0.0, 2, 8]).reshape(4, 1))]
    >>> metric = mx.metric.CustomMetric(feval=lambda x, y: (x + y).mean())
    >>> metric.update(labels, predicts)
    >>> metric.get()
    ('custom(<lambda>)', 6.0)
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False,
                 output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if name.find('<') != -1:
                name = 'custom(%s)' % name
        super(CustomMetric, self).__init__(
            name, feval=feval, allow_extra_outputs=allow_extra_outputs,
            output_names=output_names, label_names=label_names, has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            # copies: the user function may modify its arguments
            result = self._feval(_copy(label), _copy(pred))
            if isinstance(result, tuple):
                sum_metric, num_inst = result
            else:
                sum_metric, num_inst = result, 1
            self._accumulate(sum_metric, num_inst)

    def get_config(self):
        # a Python function cannot be written to a config; MXNet raises this error too
        raise NotImplementedError('CustomMetric cannot be serialized')


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """Make a :class:`CustomMetric` from a function of numpy label and prediction arrays.

    Parameters
    ----------
    numpy_feval : callable(label, pred)
        Returns the metric of one batch as a float.
    name : str, optional
        Display name (default: the function's name).
    allow_extra_outputs : bool, optional
        Allow more predictions than labels.

    Returns
    -------
    CustomMetric

    Examples
    --------
    >>> def custom_metric(label, pred):
    ...     return np.mean(np.abs(label - pred))
    >>> metric = mx.metric.np(custom_metric)
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
