"""Where a symmod Module's training time goes: per operator (forward and backward), the
parts of a convolution (im2col, GEMM, col2im, layout copies), the optimizer update, the
metric, and what is left (data loading, Python overhead between kernels).

Used by the benchmarks' ``--profile`` options::

    with OpProfile(mod) as prof:
        mod.fit(...)
    prof.report(total_seconds, batches)
"""
import collections
import os
import time

__all__ = ['OpProfile']

# with one thread, CPU time of the thread: the other processes on a shared machine then
# distort the shares less than they distort wall time
_clock = time.thread_time if os.environ.get('OMP_NUM_THREADS') == '1' else time.perf_counter


class _Timed:
    """An operator whose forward and backward calls are timed (delegates the rest)."""

    def __init__(self, op, totals, counts):
        self._op, self._totals, self._counts = op, totals, counts

    def forward(self, *args):
        start = _clock()
        self._op.forward(*args)
        key = (self._op.name, 'forward')
        self._totals[key] += _clock() - start
        self._counts[key] += 1

    def backward(self, *args):
        start = _clock()
        self._op.backward(*args)
        key = (self._op.name, 'backward')
        self._totals[key] += _clock() - start
        self._counts[key] += 1

    def __getattr__(self, name):
        return getattr(self._op, name)


class OpProfile:
    """Context manager timing a Module's operators and its update and metric steps."""

    PARTS = ('columns', 'scatter_columns', 'matmul_into', 'channel_rows',
             'store_channel_rows')

    def __init__(self, mod):
        self.mod = mod
        self.totals = collections.defaultdict(float)
        self.counts = collections.defaultdict(int)
        self._undo = []

    def _wrap_function(self, module, name, label):
        original = getattr(module, name)
        totals = self.totals

        def timed(*args, **kwargs):
            start = _clock()
            try:
                return original(*args, **kwargs)
            finally:
                totals[label] += _clock() - start
        setattr(module, name, timed)
        self._undo.append(lambda: setattr(module, name, original))

    def __enter__(self):
        from symmod.ops import conv
        for exe in self.mod._exec_group.execs:
            for steps in (exe._forward_steps, exe._backward_steps):
                original = list(steps)
                steps[:] = [(_Timed(s[0], self.totals, self.counts),) + tuple(s[1:])
                            for s in steps]
                self._undo.append(lambda steps=steps, original=original:
                                  steps.__setitem__(slice(None), original))
        for name in self.PARTS:
            self._wrap_function(conv, name, ('conv part', name))
        for name in ('update', 'update_metric', 'forward_backward'):
            self._wrap_function(self.mod, name, ('module', name))
        return self

    def __exit__(self, *exc):
        for undo in reversed(self._undo):
            undo()
        # the instance attributes shadowing Module's methods go away
        for name in ('update', 'update_metric', 'forward_backward'):
            self.mod.__dict__.pop(name, None)

    def report(self, total, batches):
        """Print ms per batch per entry and its share of ``total``."""
        per = 1e3 / batches

        def line(label, seconds, count=None):
            extra = '' if count is None else '  (%d calls/batch)' % (count // batches)
            print('  %-40s %8.2f ms  %5.1f%%%s' % (label, seconds * per,
                                                  100 * seconds / total, extra))

        ops = {k: v for k, v in self.totals.items() if k[0] not in ('conv part', 'module')}
        kernels = sum(ops.values())
        print('operators (forward + backward): %.2f ms per batch' % (kernels * per))
        for key, seconds in sorted(ops.items(), key=lambda kv: -kv[1]):
            line('%s %s' % key, seconds, self.counts[key])
        print('inside Convolution:')
        for name in self.PARTS:
            line(name, self.totals[('conv part', name)])
        print('module steps:')
        for name in ('forward_backward', 'update', 'update_metric'):
            line(name, self.totals[('module', name)])
        fb = self.totals[('module', 'forward_backward')]
        line('forward_backward minus operators', fb - kernels)
        rest = total - fb - self.totals[('module', 'update')] - \
            self.totals[('module', 'update_metric')]
        line('rest of fit (data, callbacks)', rest)
