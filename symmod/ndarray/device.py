"""Where array memory lives: numpy for CPU contexts, numba.cuda device arrays for GPU.

CPU arrays are plain numpy arrays. GPU arrays are numba device arrays; they work
under ``NUMBA_ENABLE_CUDASIM=1`` too, which is how CI exercises the GPU path.
"""
import numpy as np

from ..base import MXNetError


def _cuda():
    try:
        from numba import cuda
    except ImportError as err:  # pragma: no cover - numba is a dependency
        raise MXNetError('GPU arrays need numba.cuda: %s' % err) from None
    return cuda


def is_gpu(ctx):
    """True for a GPU context."""
    return ctx.device_typeid == 2


def is_device_array(data):
    """True when ``data`` is a numba device array rather than a numpy array."""
    return not isinstance(data, np.ndarray) and hasattr(data, 'copy_to_host')


def to_context(host, ctx):
    """Return ``host`` (a numpy array) as storage for ``ctx``: itself on CPU, a copy on GPU."""
    if not is_gpu(ctx):
        return host
    cuda = _cuda()
    if not cuda.is_available():
        raise MXNetError('no CUDA device is available for context %s' % ctx)
    with cuda.gpus[ctx.device_id]:
        return cuda.to_device(np.ascontiguousarray(host))


def to_host(data):
    """A numpy array holding ``data``'s values (the array itself when already on the host)."""
    if isinstance(data, np.ndarray):
        return data
    return data.copy_to_host()


def empty(shape, dtype, ctx):
    """Uninitialised storage of ``shape`` and ``dtype`` on ``ctx``."""
    if not is_gpu(ctx):
        return np.empty(shape, dtype=dtype)
    cuda = _cuda()
    if not cuda.is_available():
        raise MXNetError('no CUDA device is available for context %s' % ctx)
    with cuda.gpus[ctx.device_id]:
        return cuda.device_array(shape, dtype=dtype)


def copy_into(dst, src):
    """Copy ``src`` (numpy or device array) into ``dst`` (numpy or device array)."""
    if isinstance(dst, np.ndarray):
        np.copyto(dst, to_host(src), casting='unsafe')
    elif isinstance(src, np.ndarray):
        dst.copy_to_device(np.ascontiguousarray(src, dtype=dst.dtype))
    else:
        dst.copy_to_device(src)
