"""Estimator: fit and evaluate a gluon network over DataLoaders, driven by event handlers.

``fit`` runs epochs (or a number of batches) of ``BatchProcessor.fit_batch``; what
happens around each batch (updating the parameters, the metrics, validation, logging,
checkpoints, stopping) is done by event handlers, the default ones added when the user
gives none of their kind.
"""
import copy
import logging
import sys
import warnings

from .batch_processor import BatchProcessor
from .handlers import (MetricHandler, ValidationHandler, LoggingHandler, StoppingHandler,
                       GradientUpdateHandler, TrainBegin, EpochBegin, BatchBegin, BatchEnd,
                       EpochEnd, TrainEnd, _check_event_handlers)
from .utils import _check_metrics, _suggest_metric_for_loss, _check_handler_metric_ref
from ...data import DataLoader
from ...loss import Loss as gluon_loss
from ...trainer import Trainer
from ....context import Context, cpu, gpu, num_gpus
from ....metric import Loss as metric_loss

__all__ = ['Estimator']

_EVENTS = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)


class Estimator:
    """Train and evaluate a gluon network.

    Parameters
    ----------
    net : gluon.Block
        The network (initialized here when it is not yet).
    loss : gluon.loss.Loss
        The training loss.
    train_metrics : EvalMetric or list of EvalMetric, optional
        Metrics updated during training (default: accuracy for a softmax cross-entropy
        loss, and the loss itself); their names get a 'training ' prefix.
    val_metrics : EvalMetric or list of EvalMetric, optional
        Metrics of ``evaluate`` (default: copies of the training metrics, 'validation ').
    initializer : Initializer, optional
        Used when the network is not initialized.
    trainer : gluon.Trainer, optional
        Default: SGD with learning rate 0.001 (with a warning).
    context : Context or list of Context, optional
        Default: gpu(0) when there is a GPU, else cpu().
    val_net : gluon.Block, optional
        The network evaluated (default: ``net``).
    val_loss : gluon.loss.Loss, optional
        The loss evaluated (default: ``loss``).
    batch_processor : BatchProcessor, optional
        The per-batch work (needs ``fit_batch`` and ``evaluate_batch``).

    Attributes
    ----------
    logger : logging.Logger
        Where the handlers log; a new logger writing INFO and above to stdout.
    """
    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer=None, context=None, val_net=None, val_loss=None, batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net
        self.logger = logging.Logger(name='Estimator', level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = self.max_batch = None
        self.batch_axis = 0

    # ---- checks ----------------------------------------------------------------------
    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, gluon_loss):
            raise ValueError('loss must be a Loss, refer to gluon.loss.Loss:{}'.format(loss))
        return loss

    @staticmethod
    def _check_context(context):
        gpus = [gpu(i) for i in range(num_gpus())]
        if context:
            if isinstance(context, Context):
                context = [context]
            elif not (isinstance(context, list)
                      and all(isinstance(c, Context) for c in context)):
                raise ValueError('context must be a Context or a list of Context, for example '
                                 'mx.cpu() or [mx.gpu(0), mx.gpu(1)], refer to mxnet.Context:{}'
                                 .format(context))
            for ctx in context:
                assert ctx in gpus or str(ctx).startswith('cpu'), \
                    '%s is not available, please make sure your context is in one of: ' \
                    'mx.cpu(), %s' % (ctx, ', '.join(str(g) for g in gpus))
            return context
        if gpus:
            if len(gpus) > 1:
                warnings.warn('You have multiple GPUs, gpu(0) will be used by default.To '
                              'utilize all your GPUs, specify context as a list of gpus, e.g. '
                              'context=[mx.gpu(0), mx.gpu(1)] ')
            return [gpu(0)]
        return [cpu()]

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, 'fit_batch', None))
                and callable(getattr(batch_processor, 'evaluate_batch', None))):
            raise ValueError('Customized Batch Processor must contain fit_batch() and '
                             'evaluate_batch() methods')
        return batch_processor

    def _is_initialized(self):
        params = self.net.collect_params()
        for name in params:
            try:
                params[name].list_ctx()
            except RuntimeError:
                return False
        return True

    def _initialize(self, initializer):
        if not self._is_initialized():
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. You "
                          "don't need to pass initializer if you already initialized your "
                          "net. You can use net.initialize(init=your_initializer, "
                          "force_reinit=True)to force re-initialize.")

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn('No trainer specified, default SGD optimizer with learning rate '
                          '0.001 is used.')
            return Trainer(self.net.collect_params(), 'sgd', {'learning_rate': 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError('Trainer must be a Gluon Trainer instance, refer to '
                             'gluon.Trainer:{}'.format(trainer))
        return trainer

    # ---- metrics ---------------------------------------------------------------------
    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(metric_loss(self.loss.name.rstrip('1234567890')))
        for metric in self._train_metrics:
            metric.name = 'training ' + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(m) for m in self._train_metrics]
        for metric in self._val_metrics:
            if 'training' in metric.name:
                metric.name = metric.name.replace('training', 'validation')
            else:
                metric.name = 'validation ' + metric.name

    @property
    def train_metrics(self):
        """list of EvalMetric: the metrics ``fit`` updates."""
        return self._train_metrics

    @property
    def val_metrics(self):
        """list of EvalMetric: the metrics ``evaluate`` updates."""
        return self._val_metrics

    # ---- loops -------------------------------------------------------------------------
    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Run ``val_net`` over ``val_data`` and update ``val_metrics``.

        Parameters
        ----------
        val_data : DataLoader
        batch_axis : int, default 0
        event_handlers : EventHandler or list, optional
        """
        if not isinstance(val_data, DataLoader):
            raise ValueError('Estimator only support input as Gluon DataLoader. '
                             'Alternatively, you can transform your DataIter or any NDArray '
                             'into Gluon DataLoader. Refer to gluon.data.DataLoader')
        for metric in self.val_metrics:
            metric.reset()
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = self._categorize_handlers(
            self._prepare_default_validation_handlers(event_handlers))
        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in batch_end:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None,
            batch_axis=0):
        """Train for ``epochs`` epochs or ``batches`` batches (exactly one of them).

        Parameters
        ----------
        train_data : DataLoader
        val_data : DataLoader, optional
            Evaluated after every epoch (a ValidationHandler is added).
        epochs : int, optional
        event_handlers : EventHandler or list, optional
        batches : int, optional
        batch_axis : int, default 0
        """
        if not isinstance(train_data, DataLoader):
            raise ValueError('Estimator only support input as Gluon DataLoader. '
                             'Alternatively, you can transform your DataIter or any NDArray '
                             'into Gluon DataLoader. Refer to gluon.data.dataloader')
        if (not epochs) == (not batches):
            raise ValueError('Fit only support exactly one type of iteration, train by number '
                             'of epochs or number of batches.Please specify one and only one '
                             'of: epochs or batches.')
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        (train_begin, epoch_begin, batch_begin, batch_end, epoch_end,
         train_end) = self._categorize_handlers(
             self._prepare_default_handlers(val_data, event_handlers))
        for handler in train_begin:
            handler.train_begin(self)
        stop = False
        while not stop:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                # every batch_end handler runs, then any of them may stop the epoch
                results = [handler.batch_end(self, batch=batch, pred=pred, label=label,
                                             loss=loss) for handler in batch_end]
                if any(results):
                    break
            stop = any([handler.epoch_end(self) for handler in epoch_end])
        for handler in train_end:
            handler.train_end(self)

    # ---- handlers ------------------------------------------------------------------------
    def _finish_handlers(self, event_handlers, added, known_metrics):
        mixing = event_handlers and added
        event_handlers.extend(added)
        if mixing:
            # the user's handlers must watch metrics that are updated
            for handler in event_handlers:
                _check_handler_metric_ref(handler, known_metrics)
        event_handlers.sort(key=lambda handler: getattr(handler, 'priority', 0))
        return event_handlers

    def _prepare_default_handlers(self, val_data, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)

        def have(kind):
            return any(isinstance(h, kind) for h in event_handlers)

        added = [StoppingHandler(self.max_epoch, self.max_batch)]
        if not have(GradientUpdateHandler):
            added.append(GradientUpdateHandler())
        if not have(MetricHandler):
            added.append(MetricHandler(metrics=self.train_metrics))
        if not have(ValidationHandler) and val_data:
            added.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if not have(LoggingHandler):
            added.append(LoggingHandler(metrics=self.train_metrics))
        return self._finish_handlers(event_handlers, added,
                                     set(self.train_metrics + self.val_metrics))

    def _prepare_default_validation_handlers(self, event_handlers):
        event_handlers = _check_event_handlers(event_handlers)
        added = []
        if not any(isinstance(h, MetricHandler) for h in event_handlers):
            added.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in event_handlers):
            added.append(LoggingHandler(metrics=self.val_metrics))
        return self._finish_handlers(event_handlers, added, set(self.val_metrics))

    @staticmethod
    def _categorize_handlers(event_handlers):
        """The handlers of each event, in order (a handler may serve several): the lists
        for train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end."""
        return tuple([h for h in event_handlers if isinstance(h, kind)] for kind in _EVENTS)
