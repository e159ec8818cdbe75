"""Operator errors that surface at the next read, as MXNet's asynchronous engine reports
them.

MXNet runs a bound graph's operators asynchronously: an error inside one (an index out
of range with ``mode='raise'``, an exception in a CustomOp) is not raised by
``Executor.forward`` but stored on the outputs, and raised once by the first read of one
of them (``asnumpy``, ``asscalar``, ``wait_to_read``, ``mx.nd.waitall``, an operator
reading it). symmod computes synchronously and keeps the error here until that read.
"""
import weakref

__all__ = ['defer', 'discard', 'check', 'check_all', 'raise_any']

PENDING = {}        # id(NDArray) -> (weak reference to it, the error)


def defer(arrays, error):
    """Hold ``error`` for each of ``arrays`` until one of them is read."""
    for array in arrays:
        key = id(array)
        PENDING[key] = (weakref.ref(array, lambda _, key=key: PENDING.pop(key, None)), error)


def discard(arrays):
    """Drop the errors held for ``arrays`` (they are being written anew)."""
    for array in arrays:
        PENDING.pop(id(array), None)


def check(array):
    """Raise (once) the error held for ``array``, if any."""
    entry = PENDING.get(id(array))
    if entry is not None and entry[0]() is array:
        error = entry[1]
        # the error is reported once, for every output of the forward pass that raised it
        for key in [k for k, v in PENDING.items() if v[1] is error]:
            del PENDING[key]
        raise error


def check_all(arrays):
    """:func:`check` each of ``arrays``."""
    for array in arrays:
        check(array)


def raise_any():
    """Raise (once) the oldest error still held (``mx.nd.waitall``)."""
    for _, (ref, _error) in list(PENDING.items()):
        array = ref()
        if array is not None:
            check(array)
    PENDING.clear()
