"""Checks the Estimator and its event handlers share: metric lists, and handlers that
refer to metrics the Estimator does not update."""
from ...loss import SoftmaxCrossEntropyLoss
from ....metric import Accuracy, EvalMetric, CompositeEvalMetric

__all__ = []


def _check_metrics(metrics):
    """``metrics`` (None, one metric, a list, or a CompositeEvalMetric) as a flat list."""
    if isinstance(metrics, CompositeEvalMetric):
        return [m for child in metrics.metrics for m in _check_metrics(child)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    if not all(isinstance(m, EvalMetric) for m in metrics):
        raise ValueError('metrics must be a Metric or a list of Metric, refer to '
                         'mxnet.metric.EvalMetric: {}'.format(metrics))
    return metrics


def _check_handler_metric_ref(handler, known_metrics):
    """A handler's ``*metric*`` attributes must be metrics the Estimator updates."""
    for attribute in dir(handler):
        if 'metric' not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference:
            continue
        for metric in (reference if isinstance(reference, list) else [reference]):
            _check_metric_known(handler, metric, known_metrics)


def _check_metric_known(handler, metric, known_metrics):
    if metric not in known_metrics:
        raise ValueError('Event handler {} refers to a metric instance {} outside of the known '
                         'training and validation metrics. Please use the metrics from '
                         'estimator.train_metrics and estimator.val_metrics instead.'
                         .format(type(handler).__name__, metric))


def _suggest_metric_for_loss(loss):
    """Accuracy for a softmax cross-entropy loss, else None."""
    return Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
