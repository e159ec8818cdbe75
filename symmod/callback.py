"""Callbacks for ``Module.fit``: checkpoints every few epochs, training speed and
metric logging, and a text progress bar.

Batch-end callbacks receive a ``BatchEndParam`` (``epoch``, ``nbatch``,
``eval_metric``, ``locals``); epoch-end callbacks receive
``(epoch, symbol, arg_params, aux_params)``. The log lines are MXNet 1.9.1's,
character for character, so tools that parse MXNet training logs keep working.
"""
import logging
import math
import time

from .progress import EpochProgress

_LOGGER = logging.getLogger(__name__)

__all__ = ['module_checkpoint', 'do_checkpoint', 'log_train_metric', 'Speedometer',
           'ProgressBar', 'LogValidationMetricsCallback', 'EpochProgress']


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Epoch-end callback that calls ``mod.save_checkpoint`` every ``period`` epochs.

    Parameters
    ----------
    mod : BaseModule
        The module to save.
    prefix : str
        File prefix of the checkpoint.
    period : int, optional
        Save after every ``period``-th epoch (epochs are counted from 1).
    save_optimizer_states : bool, optional
        Also write the optimizer states (``prefix-%04d.states``).

    Returns
    -------
    callable(iter_no, sym=None, arg=None, aux=None)

    Examples
    --------
    >>> mod.fit(train, num_epoch=10,
    ...         epoch_end_callback=mx.callback.module_checkpoint(mod, 'mlp', 2, True))
    """
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """Epoch-end callback that saves the symbol and parameters every ``period`` epochs.

    Writes ``prefix-symbol.json`` and ``prefix-%04d.params`` (epoch counted
    from 1) with ``mx.model.save_checkpoint``; no optimizer states, as in MXNet.

    Parameters
    ----------
    prefix : str
        File prefix of the checkpoint.
    period : int, optional
        Interval in epochs (default 1).

    Returns
    -------
    callable(iter_no, sym, arg, aux)

    Examples
    --------
    >>> mod.fit(train, num_epoch=2, epoch_end_callback=mx.callback.do_checkpoint('mymodel'))
    """
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            from .model import save_checkpoint
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Batch-end callback that logs the training metric every ``period`` batches.

    Parameters
    ----------
    period : int
        Log when ``nbatch`` is a multiple of ``period``.
    auto_reset : bool, optional
        Reset the metric's local statistics after each log line.

    Returns
    -------
    callable(param)
    """
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                _LOGGER.info('Iter[%d] Batch[%d] Train-%s=%f', param.epoch, param.nbatch,
                             name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Batch-end callback logging throughput and the training metric every ``frequent`` batches.

    Log lines (tab-separated, as MXNet's)::

        Epoch[0] Batch [50-100]	Speed: 51234.56 samples/sec	accuracy=0.912500
        Epoch[0] Batch [0-100]	Speed: ...          (auto_reset=False)
        Iter[0] Batch [100]	Speed: ...              (no metric)

    The speed covers the last ``frequent`` batches; the first call of an epoch
    only starts the clock.

    Parameters
    ----------
    batch_size : int
        Examples per batch.
    frequent : int, optional
        Log every ``frequent`` batches (default 50).
    auto_reset : bool, optional
        Reset the metric's local statistics after each line, so each line shows
        the metric of the last ``frequent`` batches (default True).

    Examples
    --------
    >>> mod.fit(train, num_epoch=2, batch_end_callback=mx.callback.Speedometer(100, 10))
    """

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:     # a new epoch started
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        try:
            speed = self.frequent * self.batch_size / (time.time() - self.tic)
        except ZeroDivisionError:
            speed = float('inf')
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            # with auto_reset the metric covers the last `frequent` batches, else the epoch
            first = count - self.frequent if self.auto_reset else 0
            if self.auto_reset:
                param.eval_metric.reset_local()
            msg = 'Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec' + '\t%s=%f' * len(name_value)
            _LOGGER.info(msg, param.epoch, first, count, speed, *sum(name_value, ()))
        else:
            _LOGGER.info('Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec',
                         param.epoch, count, speed)
        self.tic = time.time()


class ProgressBar:
    """Batch-end callback logging a text bar of the epoch's progress (MXNet's format).

    Each call logs ``[=====-----] 50%``. For a live bar on the terminal see
    :class:`symmod.progress.EpochProgress`.

    Parameters
    ----------
    total : int
        Batches per epoch.
    length : int, optional
        Width of the bar in characters (default 80).

    Examples
    --------
    >>> mod.fit(train, num_epoch=5, batch_end_callback=mx.callback.ProgressBar(total=2))
    """

    def __init__(self, total, length=80):
        self.bar_len = length
        self.total = total

    def __call__(self, param):
        count = param.nbatch
        filled_len = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        prog_bar = '=' * filled_len + '-' * (self.bar_len - filled_len)
        _LOGGER.info('[%s] %s%s\r', prog_bar, percents, '%')


class LogValidationMetricsCallback:
    """Epoch-end callback for ``score``/validation: logs ``Epoch[%d] Validation-name=value``."""

    def __call__(self, param):
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            _LOGGER.info('Epoch[%d] Validation-%s=%f', param.epoch, name, value)
