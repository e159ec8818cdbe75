"""Monitor: print statistics of outputs, weights and gradients every few batches."""
import logging
import math
import re

from .base import py_str
from .ndarray import NDArray
from . import ndarray

_LOGGER = logging.getLogger(__name__)

__all__ = ['Monitor']


class Monitor:
    """Collect a statistic of every tensor whose name matches ``pattern``.

    Parameters
    ----------
    interval : int
        Collect on every ``interval``-th batch.
    stat_func : callable, optional
        NDArray -> NDArray statistic; default ``norm(x) / sqrt(x.size)``.
    pattern : str
        Regular expression selecting tensor names (e.g. ``'.*weight|.*output'``).
    sort : bool
        Sort results by name.
    monitor_all : bool
        Also report operator inputs, not only outputs.
    """

    def __init__(self, interval, stat_func=None, pattern='.*', sort=False, monitor_all=False):
        if stat_func is None:
            def stat_func(x):
                return ndarray.norm(x) / math.sqrt(x.size)
        self.stat_func = stat_func
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name, array):
        """Executor callback: queue the statistic of ``array`` when collecting."""
        name = py_str(name)
        if self.activated and self.re_prog.match(name):
            self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Install on an executor (several may be installed)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Start collecting for the current batch (call before forward)."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stop collecting; add weights and aux states; return ``[(step, name, text)]``."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda x: x[1])
        result = []
        for step, name, values in self.queue:
            if isinstance(values, NDArray):
                values = [values]
            text = ''
            for value in values:
                text += (str(value.asscalar()) if value.shape == (1,)
                         else str(value.asnumpy())) + '\t'
            result.append((step, name, text))
        self.queue = []
        return result

    def toc_print(self):
        """Stop collecting and log the results."""
        for step, name, text in self.toc():
            _LOGGER.info('Batch: {:7d} {:30s} {:s}'.format(step, name, text))
