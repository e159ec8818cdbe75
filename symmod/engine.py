"""``mx.engine``: the bulk-execution size of MXNet's engine.

MXNet's threaded engine can bundle up to ``size`` consecutive imperative operators into
one scheduled unit. symmod runs every operator synchronously on the calling thread, so
there is nothing to bundle: the size is kept (per thread, default 0 as in MXNet) so that
code which sets, reads and restores it behaves the same, and results are unaffected.
"""
import threading

from .util import _SwitchScope

__all__ = ['set_bulk_size', 'bulk']

_STATE = threading.local()


def set_bulk_size(size):
    """Set the bulk-execution size limit; returns the previous one.

    Parameters
    ----------
    size : int
        Maximum number of operators bundled in one bulk (0: no bulking).
    """
    prev = getattr(_STATE, 'size', 0)
    _STATE.size = int(size)
    return prev


def bulk(size):
    """A scope in which up to ``size`` operators may be bundled.

    Examples
    --------
    >>> with mx.engine.bulk(10):
    ...     x = mx.nd.zeros((1,))
    ...     for _ in range(100):
    ...         x += 1
    """
    return _SwitchScope(set_bulk_size, size)
