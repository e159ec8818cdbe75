"""Operator errors that surface at the next read, as MXNet's asynchronous engine reports
them.

MXNet runs operators asynchronously: an error inside one (an index out of range with
``mode='raise'``, an exception in a CustomOp) is not raised by ``Executor.forward`` but
stored on the outputs, passed on to what is computed from them, and raised once by the
first read (``asnumpy``, ``asscalar``, ``wait_to_read``, ``mx.nd.waitall``, backward).
symmod computes synchronously and keeps the error here until that read: every operator
error of a bound graph's forward pass, and the value-dependent ones
(:class:`ValueDependentError`) of imperative calls, whose results, copies and slices
pass it on.
"""
import weakref

from ..base import MXNetError

__all__ = ['ValueDependentError', 'defer', 'discard', 'peek', 'inherit', 'check', 'check_all',
           'raise_any']


class ValueDependentError(MXNetError):
    """An operator error that depends on the values of its arrays (an index out of range,
    a negative scale): imperative calls hold it for the first read too, as MXNet's engine
    does. Errors in shapes and parameters are raised at the call."""

PENDING = {}        # id(NDArray) -> (weak reference to it, the error)


def defer(arrays, error):
    """Hold ``error`` for each of ``arrays`` until one of them is read."""
    # without its traceback: the frames it references (and their arrays) stay alive
    # otherwise, so an array dropped unread would keep holding the error
    error.__traceback__ = None
    error.__cause__ = error.__context__ = None
    for array in arrays:
        key = id(array)
        PENDING[key] = (weakref.ref(array, lambda _, key=key: PENDING.pop(key, None)), error)


def discard(arrays):
    """Drop the errors held for ``arrays`` (they are being written anew)."""
    for array in arrays:
        PENDING.pop(id(array), None)


def peek(array):
    """The error held for ``array`` (still held), or None."""
    entry = PENDING.get(id(array))
    if entry is not None and entry[0]() is array:
        return entry[1]
    return None


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
