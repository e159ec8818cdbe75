"""Metric registry: ``register``, ``alias`` and ``create`` (names, configs, lists, callables)."""
import json
import warnings

from .base import EvalMetric

__all__ = ['register', 'alias', 'create']

_METRICS = {}   # lower-case name or alias -> EvalMetric subclass


def register(klass, name=None):
    """Register an EvalMetric subclass under its lower-cased class name (or ``name``).

    Examples
    --------
    >>> @mx.metric.register
    ... class MyAcc(mx.metric.Accuracy):
    ...     pass
    >>> mx.metric.create('myacc')
    """
    assert issubclass(klass, EvalMetric), 'Can only register subclass of EvalMetric'
    name = (klass.__name__ if name is None else name).lower()
    if name in _METRICS:
        old = _METRICS[name]
        warnings.warn('New metric %s.%s registered with name %s is overriding existing '
                      'metric %s.%s' % (klass.__module__, klass.__name__, name,
                                        old.__module__, old.__name__),
                      UserWarning, stacklevel=2)
    _METRICS[name] = klass
    return klass


def alias(*aliases):
    """Class decorator registering extra names for a metric (``@alias('acc')``)."""
    def reg(klass):
        for name in aliases:
            register(klass, name)
        return klass
    return reg


def _create(*args, **kwargs):
    """Make a registered metric from a name, a JSON string, a config dict or an instance."""
    if args:
        name, args = args[0], args[1:]
    else:
        name = kwargs.pop('metric')
    if isinstance(name, EvalMetric):
        assert not args and not kwargs, \
            'metric is already an instance. Additional arguments are invalid'
        return name
    if isinstance(name, dict):
        return _create(**name)
    assert isinstance(name, str), 'metric must be of string type'
    if name.startswith('['):
        assert not args and not kwargs
        name, kwargs = json.loads(name)
        return _create(name, **kwargs)
    if name.startswith('{'):
        assert not args and not kwargs
        return _create(**json.loads(name))
    name = name.lower()
    if name not in _METRICS:
        # MXNet asserts here; raise the same exception type even under python -O
        raise AssertionError('%s is not registered. Please register with metric.register first '
                         '(known metrics: %s)' % (name, ', '.join(sorted(_METRICS))))
    return _METRICS[name](*args, **kwargs)


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
