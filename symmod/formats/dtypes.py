"""MXNet's integer type flags (mshadow TypeFlag), used in array records and ``__dtype__``."""
import numpy as np

from ..base import MXNetError

__all__ = ['DTYPE_TO_FLAG', 'FLAG_TO_DTYPE', 'UNSUPPORTED_FLAGS', 'dtype_to_flag', 'dtype_from_flag']

# Little-endian, as MXNet stores data (the same as native dtypes on x86 and arm64).
FLAG_TO_DTYPE = {
    0: np.dtype('<f4'), 1: np.dtype('<f8'), 2: np.dtype('<f2'), 3: np.dtype('u1'),
    4: np.dtype('<i4'), 5: np.dtype('i1'), 6: np.dtype('<i8'), 7: np.dtype('?'),
}
DTYPE_TO_FLAG = {dtype: flag for flag, dtype in FLAG_TO_DTYPE.items()}
UNSUPPORTED_FLAGS = {8: 'int16', 9: 'uint16', 10: 'uint32', 11: 'uint64', 12: 'bfloat16'}


def dtype_to_flag(dtype):
    """MXNet's type flag for a numpy dtype; MXNetError for dtypes MXNet cannot store."""
    dtype = np.dtype(dtype).newbyteorder('<')
    try:
        return DTYPE_TO_FLAG[dtype]
    except KeyError:
        raise MXNetError('dtype %s has no MXNet type flag (supported: %s)'
                         % (dtype.name, ', '.join(d.name for d in FLAG_TO_DTYPE.values()))) \
            from None


def dtype_from_flag(flag):
    """The numpy dtype for an MXNet type flag; MXNetError for unknown or unsupported flags."""
    try:
        return FLAG_TO_DTYPE[int(flag)]
    except KeyError:
        what = UNSUPPORTED_FLAGS.get(int(flag), 'unknown')
        raise MXNetError('type flag %d (%s) is not supported by symmod' % (int(flag), what)) \
            from None
