"""Independent parts of one kernel call run on the calling thread and a shared pool.

For kernels whose parallel work is coarse (blocks of tiles, each a transform, a few
matrix products at one BLAS thread and a transform back): one hand-off per call rather
than one ``prange`` region per loop. The number of parts comes from the caller's numba
thread count, which :func:`symmod.threads.apply` sizes to the machine's load and the
executor group's share, so a busy machine gets one part, run inline.
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numba

__all__ = ['parts', 'run']

_POOL = []
_LOCK = threading.Lock()
# a forked child has none of the parent's pool threads: it starts its own
if hasattr(os, 'register_at_fork'):
    os.register_at_fork(after_in_child=_POOL.clear)


def parts():
    """How many parts the calling thread may run at once (its numba thread count)."""
    return max(1, numba.get_num_threads())


def _pool(workers):
    with _LOCK:
        if not _POOL or _POOL[0][1] < workers:
            if _POOL:
                _POOL.pop()[0].shutdown(wait=False)
            _POOL.append((ThreadPoolExecutor(workers, thread_name_prefix='symmod-split'),
                          workers))
        return _POOL[0][0]


def run(fn, count):
    """``fn(0)``, ..., ``fn(count - 1)``: the first on the calling thread, the others on
    pool threads (passively waiting); returns when all are done and raises the first
    error."""
    if count <= 1:
        if count == 1:
            fn(0)
        return
    pool = _pool(count - 1)
    futures = [pool.submit(fn, i) for i in range(1, count)]
    try:
        fn(0)
    finally:
        for f in futures:
            f.result()
