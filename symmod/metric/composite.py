"""``CompositeEvalMetric``: several metrics updated together and reported as lists."""
from collections import OrderedDict

from ..base import numeric_types
from .base import EvalMetric
from .registry import alias, create, register

__all__ = ['CompositeEvalMetric']


@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Manage several metrics as one.

    ``get()`` returns ``([names], [values])`` with the children's results in
    order.

    Parameters
    ----------
    metrics : list of EvalMetric or names, optional
        The child metrics (anything :func:`create` accepts).
    name : str
        Display name.
    output_names, label_names : list of str, or None
        Restrict which outputs / labels :meth:`update_dict` passes on.

    Examples
    --------
    >>> predicts = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
    >>> labels = [mx.nd.array([0, 1, 1])]
    >>> metric = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), mx.metric.F1()])
    >>> metric.update(labels=labels, preds=predicts)
    >>> metric.get()
    (['accuracy', 'f1'], [0.6666666666666666, 0.8])
    """

    def __init__(self, metrics=None, name='composite', output_names=None, label_names=None):
        super(CompositeEvalMetric, self).__init__(
            name, output_names=output_names, label_names=label_names, has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        """Add a child metric (anything :func:`create` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``.

        As in MXNet, an out-of-range index *returns* (does not raise) a ValueError.
        """
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError('Metric index {} is out of range 0 and {}'.format(
                index, len(self.metrics)))

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        """Update every child with the same labels and predictions."""
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        """Reset every child (local and global statistics)."""
        for metric in getattr(self, 'metrics', ()):   # called by __init__ before children exist
            metric.reset()

    def reset_local(self):
        """Reset every child's local statistics."""
        for metric in getattr(self, 'metrics', ()):
            metric.reset_local()

    @staticmethod
    def _collect(results):
        names, values = [], []
        for name, value in results:
            names.extend([name] if isinstance(name, str) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return (names, values)

    def get(self):
        """The children's local results: ``([names], [values])``."""
        return self._collect(metric.get() for metric in self.metrics)

    def get_global(self):
        """The children's global results: ``([names], [values])``."""
        return self._collect(metric.get_global() for metric in self.metrics)

    def get_config(self):
        config = super(CompositeEvalMetric, self).get_config()
        config.update({'metrics': [m.get_config() for m in self.metrics]})
        return config
