"""``EvalMetric``: the running-average protocol every metric follows.

A metric keeps two sets of statistics: *local* ones (``sum_metric`` /
``num_inst``), which ``reset_local()`` clears (Speedometer does, after each log
line), and *global* ones (``global_sum_metric`` / ``global_num_inst``), which
only ``reset()`` clears and which ``fit`` reports at the end of an epoch.
"""
import numpy

from ..ndarray import NDArray

__all__ = ['EvalMetric', 'check_label_shapes']


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Check that labels and predictions agree in number (or in shape).

    Parameters
    ----------
    labels : list of NDArray, or one array
        The labels.
    preds : list of NDArray, or one array
        The predictions.
    wrap : bool
        Wrap a single NDArray into a one-element list.
    shape : bool
        Compare ``.shape`` instead of ``len()``.

    Returns
    -------
    (labels, preds)

    Raises
    ------
    ValueError
        When the lengths (or shapes) differ.
    """
    if not shape:
        label_shape, pred_shape = len(labels), len(preds)
    else:
        label_shape, pred_shape = labels.shape, preds.shape
    if label_shape != pred_shape:
        raise ValueError('Shape of labels {} does not match shape of '
                         'predictions {}'.format(label_shape, pred_shape))
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


def as_numpy(arr):
    """The values of an NDArray (or array-like) as numpy; no copy for CPU arrays.

    Metrics only read the result, so sharing the NDArray's memory is safe.
    """
    return numpy.asarray(arr)


class EvalMetric:
    """Base class of the evaluation metrics.

    Subclasses implement ``update(labels, preds)``, adding to ``sum_metric`` /
    ``num_inst`` (and their ``global_`` twins); ``get()`` returns
    ``(name, sum_metric / num_inst)``.

    Parameters
    ----------
    name : str
        Display name of the metric.
    output_names : list of str, or None
        Which predictions :meth:`update_dict` passes on (default all).
    label_names : list of str, or None
        Which labels :meth:`update_dict` passes on (default all).
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop('has_global_stats', False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return 'EvalMetric: {}'.format(dict(self.get_name_value()))

    def get_config(self):
        """The arguments that recreate this metric with ``mx.metric.create(**config)``."""
        config = self._kwargs.copy()
        config.update({
            'metric': type(self).__name__,
            'name': self.name,
            'output_names': self.output_names,
            'label_names': self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update with labels and predictions given as name -> NDArray dicts.

        Parameters
        ----------
        label : OrderedDict of str -> NDArray
            The labels by name.
        pred : OrderedDict of str -> NDArray
            The predictions by output name.
        """
        if self.output_names is not None:
            pred = [pred[name] for name in self.output_names]
        else:
            pred = list(pred.values())
        if self.label_names is not None:
            label = [label[name] for name in self.label_names]
        else:
            label = list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        """Add one batch of labels and predictions (lists of NDArray) to the statistics."""
        # the base class has no formula; MXNet raises the same error here
        raise NotImplementedError('%s does not implement update' % type(self).__name__)

    def _accumulate(self, sum_metric, num_inst):
        """Add a batch's sum and count to the local and the global statistics."""
        self.sum_metric += sum_metric
        self.global_sum_metric += sum_metric
        self.num_inst += num_inst
        self.global_num_inst += num_inst

    def reset(self):
        """Clear the local and global statistics."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local statistics only."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        """The local result: ``(name, value)``; value is NaN before any update."""
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        """The global result (since the last ``reset()``): ``(name, value)``."""
        if self._has_global_stats:
            if self.global_num_inst == 0:
                return (self.name, float('nan'))
            return (self.name, self.global_sum_metric / self.global_num_inst)
        return self.get()

    def get_name_value(self):
        """The local result as a list of ``(name, value)`` pairs."""
        return _pairs(*self.get())

    def get_global_name_value(self):
        """The global result as a list of ``(name, value)`` pairs."""
        if self._has_global_stats:
            return _pairs(*self.get_global())
        return self.get_name_value()


def _pairs(name, value):
    if not isinstance(name, list):
        name = [name]
    if not isinstance(value, list):
        value = [value]
    return list(zip(name, value))
