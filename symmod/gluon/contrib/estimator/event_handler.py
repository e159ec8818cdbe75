"""``mx.gluon.contrib.estimator.event_handler``: the event classes and handlers
(handlers.py, checkpoint.py), under MXNet's module path."""
from .handlers import (EventHandler, TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin,
                       BatchEnd, StoppingHandler, MetricHandler, ValidationHandler,
                       LoggingHandler, GradientUpdateHandler, _check_event_handlers)
from .checkpoint import CheckpointHandler, EarlyStoppingHandler

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd',
           'StoppingHandler', 'MetricHandler', 'ValidationHandler', 'LoggingHandler',
           'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']
