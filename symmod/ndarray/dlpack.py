"""DLPack exchange: ``to_dlpack_for_read/write`` give a capsule viewing an NDArray's
memory, ``from_dlpack`` makes an NDArray sharing the memory of a capsule (or of any
object with ``__dlpack__``, such as a numpy array or a torch tensor).

CPU arrays go through numpy's DLPack support; arrays on a GPU are refused.
"""
import numpy as np

from ..base import MXNetError
from ..context import cpu
from .ndarray import NDArray

__all__ = ['to_dlpack_for_read', 'to_dlpack_for_write', 'from_dlpack']


def _capsule(data):
    if not isinstance(data, NDArray):
        raise TypeError('expected an NDArray, found %s' % type(data).__name__)
    if not isinstance(data._data, np.ndarray):
        raise MXNetError('DLPack export of arrays on %s is not supported by symmod (CPU only)'
                         % data.context)
    data.wait_to_read()
    # a versioned capsule carries the writable flag, so the importer can share the memory
    return data._data.__dlpack__(max_version=(1, 0))


def to_dlpack_for_read(data):
    """A DLPack capsule viewing ``data``'s memory, for reading."""
    return _capsule(data)


def to_dlpack_for_write(data):
    """A DLPack capsule viewing ``data``'s memory, for writing."""
    return _capsule(data)


class _CapsuleHolder:
    """Presents a bare capsule through the protocol ``numpy.from_dlpack`` reads."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)       # kDLCPU, device 0


def from_dlpack(dlpack):
    """An NDArray sharing the memory of a DLPack capsule (or ``__dlpack__`` object)."""
    source = dlpack if hasattr(dlpack, '__dlpack__') else _CapsuleHolder(dlpack)
    try:
        host = np.from_dlpack(source)
    except (TypeError, ValueError, RuntimeError, BufferError) as err:
        raise MXNetError('from_dlpack: cannot import the tensor: %s' % err) from None
    if not host.flags.writeable:      # a read-only producer: NDArrays are always writable
        host = host.copy()
    return NDArray(host, cpu(0))
