"""Event handlers of the Estimator: objects called at train / epoch / batch begin and end.

A handler subclasses the event classes it reacts to (``TrainBegin``, ``EpochEnd``, ...);
``epoch_end`` and ``batch_end`` return True to stop training. Handlers run in order of
their ``priority`` (lower first). The built-in ones: StoppingHandler (epoch or batch
budget), MetricHandler (updates the metrics), ValidationHandler (evaluates every
``epoch_period`` epochs / ``batch_period`` batches), LoggingHandler (progress lines),
GradientUpdateHandler (``trainer.step``); CheckpointHandler and EarlyStoppingHandler are
in ``checkpoint.py``; ``event_handler`` (MXNet's module path) holds them all.
"""
import time

import numpy as np

from ....metric import Loss as metric_loss
from .utils import _check_metrics

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd',
           'StoppingHandler', 'MetricHandler', 'ValidationHandler', 'LoggingHandler',
           'GradientUpdateHandler']


class EventHandler:
    """Base class of the event handlers."""


def _check_event_handlers(handlers):
    """``handlers`` (None, one handler or a list) as a list."""
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(h, EventHandler) for h in handlers):
        raise ValueError('handlers must be an EventHandler or a list of EventHandler, '
                         'got: {}'.format(handlers))
    return handlers


class TrainBegin(EventHandler):
    """Called once before training."""

    def train_begin(self, estimator, *args, **kwargs):
        pass


class TrainEnd(EventHandler):
    """Called once after training."""

    def train_end(self, estimator, *args, **kwargs):
        pass


class EpochBegin(EventHandler):
    """Called before each epoch."""

    def epoch_begin(self, estimator, *args, **kwargs):
        pass


class EpochEnd(EventHandler):
    """Called after each epoch; return True to stop training."""

    def epoch_end(self, estimator, *args, **kwargs):
        return False


class BatchBegin(EventHandler):
    """Called before each batch (keyword ``batch``)."""

    def batch_begin(self, estimator, *args, **kwargs):
        pass


class BatchEnd(EventHandler):
    """Called after each batch (keywords ``batch``, ``pred``, ``label``, ``loss``); return
    True to stop training."""

    def batch_end(self, estimator, *args, **kwargs):
        return False


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stops training after ``max_epoch`` epochs or ``max_batch`` batches (taken from the
    Estimator's ``fit`` arguments at train begin).

    Parameters
    ----------
    max_epoch : int, optional
    max_batch : int, optional
    """

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets ``metrics`` at each epoch and updates them after each batch (a ``Loss``
    metric with the losses, the others with labels and predictions).

    Parameters
    ----------
    metrics : EvalMetric or list of EvalMetric
    priority : scalar, default -1000
        Runs before the handlers that read the metrics.
    """

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            if isinstance(metric, metric_loss):
                metric.update(0, kwargs['loss'])
            else:
                metric.update(kwargs['label'], kwargs['pred'])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Runs ``eval_fn`` (usually ``estimator.evaluate``) on ``val_data`` every
    ``epoch_period`` epochs and every ``batch_period`` batches.

    Parameters
    ----------
    val_data : DataLoader
    eval_fn : callable
        Called as ``eval_fn(val_data=..., batch_axis=..., event_handlers=...)``.
    epoch_period : int, default 1
    batch_period : int, optional
    priority : scalar, default -1000
    event_handlers : EventHandler or list, optional
        Handlers for the evaluation loop.
    """

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def _evaluate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._evaluate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._evaluate(estimator)


def _metric_text(metrics):
    return ', '.join('%s: %.4f' % metric.get() for metric in metrics)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Logs progress to ``estimator.logger``: the optimizer at train begin, each epoch
    (``log_interval='epoch'``) or every ``log_interval`` batches, and the metrics.

    Parameters
    ----------
    log_interval : int or 'epoch', default 'epoch'
    metrics : list of EvalMetric, optional
        The metrics to print.
    priority : scalar, default inf
        Runs after the other handlers (the metrics are up to date).
    """

    def __init__(self, log_interval='epoch', metrics=None, priority=np.inf):
        if not isinstance(log_interval, int) and log_interval != 'epoch':
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics = _check_metrics(metrics)
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0

    def _log(self, estimator, msg, *args):
        estimator.logger.info(msg, *args)

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        trainer = estimator.trainer
        self._log(estimator, 'Training begin: using optimizer %s with current learning rate '
                  '%.4f ', trainer.optimizer.__class__.__name__, trainer.learning_rate)
        if estimator.max_epoch:
            self._log(estimator, 'Train for %d epochs.', estimator.max_epoch)
        else:
            self._log(estimator, 'Train for %d batches.', estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        msg = 'Train finished using total %ds with %d epochs. ' % (
            time.time() - self.train_start, self.current_epoch)
        self._log(estimator, (msg + _metric_text(self.metrics)).rstrip(', '))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.processed_samples += kwargs['batch'][0].shape[0]
            self.log_interval_time += time.time() - self.batch_start
            if self.batch_index % self.log_interval == 0:
                msg = '[Epoch %d][Batch %d][Samples %s] time/interval: %.3fs ' % (
                    self.current_epoch, self.batch_index, self.processed_samples,
                    self.log_interval_time)
                self.log_interval_time = 0
                self._log(estimator, (msg + _metric_text(self.metrics)).rstrip(', '))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        self.epoch_start = time.time()
        if any('training' in metric.name for metric in self.metrics):
            self._log(estimator, '[Epoch %d] Begin, current learning rate: %.4f',
                      self.current_epoch, estimator.trainer.learning_rate)
        else:
            self._log(estimator, 'Validation Begin')

    def epoch_end(self, estimator, *args, **kwargs):
        msg = '[Epoch %d] Finished in %.3fs, ' % (self.current_epoch,
                                                 time.time() - self.epoch_start)
        self._log(estimator, (msg + _metric_text(self.metrics)).rstrip(', '))
        self.current_epoch += 1
        self.batch_index = 0


class GradientUpdateHandler(BatchEnd):
    """Steps ``estimator.trainer`` after each batch, with the batch size taken from the
    losses (the sum of their first dimensions).

    Parameters
    ----------
    priority : scalar, default -2000
        Runs first: the parameters are updated before the other handlers look.
    """

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        loss = kwargs['loss']
        losses = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(item.shape[0] for item in losses))
