"""A live progress bar for long training epochs, drawn on a terminal only.

``Module.fit`` creates one :class:`EpochProgress` per epoch and calls
``update(nbatch)`` after every batch and ``close()`` at the end::

    Epoch[2] [=========>                    ] 120/400 batches, 3.2 s, ETA 7.5 s

Nothing is written unless the stream is a terminal (so logs, pipes and CI
output stay clean), nothing appears for epochs shorter than ``delay`` seconds,
and the line is redrawn at most every ``min_interval`` seconds. Log records
sent to a handler on the same terminal first erase the bar, so log lines
(Speedometer, epoch summaries) never end up glued to it. Set the environment
variable ``SYMMOD_PROGRESS=0`` to switch the bar off, ``=1`` to force it on.

Scripts (the examples, the benchmarks) also say when the first batch is done
(:class:`FirstBatchNotice`) and, on a first run, that numba is compiling the
kernels (:func:`kernels_cached`), so a long silent start is explained.
"""
import logging
import math
import os
import shutil
import sys
import time

__all__ = ['EpochProgress', 'estimate_num_batches', 'kernels_cached', 'FirstBatchNotice']

_ERASE = '\r\x1b[K'


def _enabled_for(stream):
    setting = os.environ.get('SYMMOD_PROGRESS', '').strip().lower()
    if setting in ('0', 'false', 'off', 'no'):
        return False
    if setting in ('1', 'true', 'on', 'yes'):
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):    # closed or not a file
        return False


def _format_seconds(seconds):
    if seconds < 60:
        return '%.1f s' % seconds
    minutes, seconds = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return '%d:%02d' % (minutes, seconds)
    hours, minutes = divmod(minutes, 60)
    return '%d:%02d:%02d' % (hours, minutes, seconds)


def estimate_num_batches(data_iter):
    """Batches per epoch of a symmod iterator, or None when it cannot be known in advance.

    Parameters
    ----------
    data_iter : DataIter
        NDArrayIter, MNISTIter, CSVIter and ResizeIter are understood.

    Returns
    -------
    int or None
    """
    from .io import NDArrayIter, MNISTIter, CSVIter, ResizeIter
    if isinstance(data_iter, ResizeIter):
        return data_iter.size
    if isinstance(data_iter, NDArrayIter):
        if data_iter.last_batch_handle == 'discard':
            return data_iter.num_data // data_iter.batch_size
        return int(math.ceil(data_iter.num_data / float(data_iter.batch_size)))
    if isinstance(data_iter, MNISTIter):
        return data_iter._images.shape[0] // data_iter.batch_size
    if isinstance(data_iter, CSVIter):
        return int(math.ceil(data_iter._data.shape[0] / float(data_iter.batch_size)))
    return None


class _EraseBeforeLog(logging.Filter):
    """Handler filter that erases a visible bar before a log record is written."""

    def __init__(self, progress):
        super(_EraseBeforeLog, self).__init__()
        self.progress = progress

    def filter(self, record):
        self.progress.erase()
        return True


class EpochProgress:
    """One epoch's progress bar on a terminal.

    Parameters
    ----------
    total : int, optional
        Batches in the epoch; without it the bar shows a running count only.
    epoch : int, optional
        Epoch number shown at the start of the line.
    stream : file, optional
        Where to draw (default ``sys.stderr``).
    enabled : bool, optional
        Force the bar on or off; by default it is on when ``stream`` is a
        terminal (see ``SYMMOD_PROGRESS`` above).
    delay : float, optional
        Seconds to wait before the bar first appears (default 1.0), so short
        epochs print nothing.
    min_interval : float, optional
        Least seconds between two redraws (default 0.1).
    width : int, optional
        Characters inside the brackets (default 30, shrunk to fit the terminal).
    logger : logging.Logger, optional
        Logger whose handlers (and its ancestors') get the erase-before-log
        filter; the root logger's always do.

    Examples
    --------
    >>> progress = EpochProgress(total=len_epoch, epoch=epoch)
    >>> for nbatch, batch in enumerate(train_data):
    ...     ...   # forward, backward, update
    ...     progress.update(nbatch + 1)
    >>> progress.close()
    """

    def __init__(self, total=None, epoch=None, stream=None, enabled=None, delay=1.0,
                 min_interval=0.1, width=30, logger=None):
        self.total = total if total else None
        self.epoch = epoch
        self.stream = sys.stderr if stream is None else stream
        self.enabled = _enabled_for(self.stream) if enabled is None else bool(enabled)
        self.delay = delay
        self.min_interval = min_interval
        self.width = width
        self.count = 0
        self.start = time.time()
        self._last_draw = None
        self._visible = False
        self._filter = None
        self._handlers = []
        self._logger = logger

    # ---- drawing -----------------------------------------------------------------
    def _line(self, now):
        elapsed = now - self.start
        head = '' if self.epoch is None else 'Epoch[%d] ' % self.epoch
        if self.total is None:
            return '%s%d batches, %s' % (head, self.count, _format_seconds(elapsed))
        columns = shutil.get_terminal_size((80, 24)).columns
        tail = ' %d/%d batches, %s' % (self.count, self.total, _format_seconds(elapsed))
        if 0 < self.count < self.total:
            tail += ', ETA %s' % _format_seconds(elapsed / self.count * (self.total - self.count))
        width = max(10, min(self.width, columns - len(head) - len(tail) - 3))
        done = min(self.count, self.total) / float(self.total)
        filled = int(width * done)
        if filled < width:
            bar = '=' * filled + '>' + ' ' * (width - filled - 1)
        else:
            bar = '=' * width
        return '%s[%s]%s' % (head, bar, tail)

    def _draw(self, now):
        if self._filter is None:
            self._attach_filter()
        self.stream.write(_ERASE + self._line(now))
        self.stream.flush()
        self._visible = True
        self._last_draw = now

    def erase(self):
        """Remove the bar from the terminal line (it comes back on the next update)."""
        if self._visible:
            self.stream.write(_ERASE)
            self.stream.flush()
            self._visible = False
            self._last_draw = None

    def _attach_filter(self):
        self._filter = _EraseBeforeLog(self)
        loggers = [logging.getLogger()]
        logger = self._logger
        while logger is not None and logger is not loggers[0]:
            loggers.append(logger)
            logger = logger.parent if logger.propagate else None
        for log in loggers:
            for handler in log.handlers:
                if handler not in self._handlers:
                    handler.addFilter(self._filter)
                    self._handlers.append(handler)

    # ---- public API --------------------------------------------------------------
    def update(self, nbatch):
        """Record that ``nbatch`` batches of the epoch are done; redraw if due.

        Parameters
        ----------
        nbatch : int
            Batches completed so far in this epoch (1 after the first batch).
        """
        self.count = nbatch
        if not self.enabled:
            return
        now = time.time()
        if now - self.start < self.delay:
            return
        if self._last_draw is None or now - self._last_draw >= self.min_interval:
            self._draw(now)

    def close(self):
        """End the epoch's bar: erase it and detach from the log handlers."""
        self.erase()
        for handler in self._handlers:
            handler.removeFilter(self._filter)
        self._handlers = []
        self._filter = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---- first-run notices for scripts ---------------------------------------------------------
def kernels_cached():
    """True when numba's on-disk cache already holds compiled symmod kernels.

    symmod's kernels are compiled with ``cache=True`` on first use; the first run of a
    script therefore spends seconds to minutes compiling before its first batch, and
    later runs load the compiled code. Scripts use this to say so only on a first run.

    Returns
    -------
    bool
    """
    root = os.environ.get('NUMBA_CACHE_DIR') or os.path.dirname(os.path.abspath(__file__))
    for _, _, files in os.walk(root):
        if any(name.endswith('.nbi') for name in files):
            return True
    return False


class FirstBatchNotice:
    """Batch-end callback logging once when the first batch of training is done.

    Speedometer's first line comes only after ``frequent`` batches; this says at once
    that training runs, and how long the first batch (data, binding, compilation) took.

    Parameters
    ----------
    logger : logging.Logger, optional
        Where to log (default: the ``symmod.progress`` logger).

    Examples
    --------
    >>> mod.fit(train, batch_end_callback=[mx.callback.Speedometer(64, 50),
    ...                                    FirstBatchNotice()])
    """

    def __init__(self, logger=None):
        self.logger = logging.getLogger(__name__) if logger is None else logger
        self.start = time.time()
        self.done = False

    def __call__(self, param):
        if self.done:
            return
        self.done = True
        self.logger.info('first batch done after %s (epoch %d)',
                         _format_seconds(time.time() - self.start), param.epoch)
