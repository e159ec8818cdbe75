"""Benchmarks say what they are measuring as they go (on stderr: stdout keeps the table)."""
import importlib.util
import os
import sys
import time

_START = time.time()


def say(message, *args):
    """Print ``message % args`` to stderr at once, with the seconds since the start."""
    print('[%6.1f s] %s' % (time.time() - _START, message % args), file=sys.stderr, flush=True)


def first_run_notice():
    """Say that numba compiles symmod's kernels when its on-disk cache is still empty
    (without importing symmod in this process)."""
    spec = importlib.util.find_spec('symmod')
    root = os.environ.get('NUMBA_CACHE_DIR') or (
        os.path.dirname(spec.origin) if spec and spec.origin else None)
    if root is None:
        return
    for _, _, files in os.walk(root):
        if any(name.endswith('.nbi') for name in files):
            return
    say('compiling kernels (first run only): the first measurement includes no compile '
        'time, but starting it takes a while')
