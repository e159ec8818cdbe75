"""Metric registry: ``register``, ``alias`` and ``create`` (names, configs, lists, callables)."""
from ..registry import get_alias_func, get_create_func, get_register_func
from .base import EvalMetric

__all__ = ['register', 'alias', 'create']

register = get_register_func(EvalMetric, 'metric')
alias = get_alias_func(EvalMetric, 'metric')
_create = get_create_func(EvalMetric, 'metric')


def create(metric, *args, **kwargs):
    """Make an evaluation metric.

    Parameters
    ----------
    metric : str, EvalMetric, list or callable
        A registered name or alias (``'acc'``, ``'ce'``, ``'rmse'`` ...), a
        metric instance (returned as is), a list of any of these (giving a
        CompositeEvalMetric), or a function ``feval(label, pred)`` on numpy
        arrays (giving a CustomMetric).
    *args, **kwargs
        Passed to the metric's constructor.

    Returns
    -------
    EvalMetric

    Examples
    --------
    >>> def custom_metric(label, pred):
    ...     return np.mean(np.abs(label - pred))
    >>> metric1 = mx.metric.create('acc')
    >>> metric2 = mx.metric.create(custom_metric)
    >>> metric3 = mx.metric.create([metric1, metric2, 'rmse'])
    """
    from .composite import CompositeEvalMetric
    from .custom import CustomMetric
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)
