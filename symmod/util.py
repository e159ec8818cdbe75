"""``mx.util``: NumPy-shape / NumPy-array semantics switches and small environment helpers.

MXNet 1.x keeps two process switches for its NumPy interface: *NumPy-shape semantics*
(``()`` is the shape of a scalar and ``0`` a zero-size dimension, ``-1`` an unknown one;
off by default, where ``0`` means unknown and ``()`` an unknown shape) and *NumPy-array
semantics* (gluon creates ``mx.np.ndarray`` instead of ``NDArray``). symmod keeps both
switches with MXNet's scoping rules; shape inference reads the NumPy-shape switch
(``Symbol.infer_shape_partial`` reports unknown dims as ``-1`` and unknown shapes as
``None`` while it is on). symmod has no ``mx.np`` arrays, so the NumPy-array switch is
only recorded.
"""
import functools
import inspect
import logging
import os
import threading

__all__ = ['get_gpu_count', 'get_gpu_memory', 'set_np_shape', 'is_np_shape', 'np_shape',
           'use_np_shape', 'np_array', 'is_np_array', 'use_np_array', 'use_np', 'set_np',
           'reset_np', 'getenv', 'setenv', 'set_module', 'get_cuda_compute_capability']

_LOG = logging.getLogger(__name__)
_STATE = threading.local()
_logged = {'shape': False}


def get_gpu_count():
    """Number of GPUs numba's CUDA driver sees (0 without one)."""
    from .context import num_gpus
    return num_gpus()


def get_gpu_memory(gpu_dev_id):
    """(free, total) bytes of memory on GPU ``gpu_dev_id``."""
    from .base import MXNetError
    try:
        from numba import cuda
        with cuda.gpus[gpu_dev_id]:
            free, total = cuda.current_context().get_memory_info()
    except Exception as err:   # no driver, no such device
        raise MXNetError('cannot query memory of gpu(%d): %s' % (gpu_dev_id, err)) from None
    return int(free), int(total)


def get_cuda_compute_capability(ctx):
    """Compute capability of ``ctx``'s GPU as an int (e.g. 80 for sm_80)."""
    from .base import MXNetError
    if ctx.device_type != 'gpu':
        raise ValueError('Expecting a gpu context to get cuda compute capability, '
                         'while received ctx %s' % str(ctx))
    try:
        from numba import cuda
        major, minor = cuda.gpus[ctx.device_id].compute_capability
    except Exception as err:
        raise MXNetError('cannot query compute capability of %s: %s' % (ctx, err)) from None
    return major * 10 + minor


def is_np_shape():
    """Whether NumPy-shape semantics is on in this thread (off by default)."""
    return getattr(_STATE, 'np_shape', False)


def set_np_shape(active):
    """Turn NumPy-shape semantics on or off; returns the previous state.

    Raises ValueError when turning it off while NumPy-array semantics is on, as MXNet does.
    """
    active = bool(active)
    if active and not _logged['shape']:
        _LOG.info('NumPy-shape semantics has been activated in your code: () is the shape '
                  'of a scalar, 0 a zero-size dimension and -1 an unknown one.')
        _logged['shape'] = True
    elif not active and is_np_array():
        raise ValueError('Deactivating NumPy shape semantics while NumPy array semantics is '
                         'still active is not allowed; call reset_np() to turn off both.')
    prev = is_np_shape()
    _STATE.np_shape = active
    return prev


class _SwitchScope:
    """``with`` scope that sets a switch through ``setter`` (which returns the previous
    value) and restores the previous value on exit; ``None`` leaves the switch alone."""

    def __init__(self, setter, value):
        self._setter = setter
        self._value = value
        self._prev = None

    def __enter__(self):
        if self._value is not None:
            self._prev = self._setter(self._value)
        return self

    def __exit__(self, ptype, value, trace):
        if self._value is not None and self._prev != self._value:
            self._setter(self._prev)


def np_shape(active=True):
    """A ``with`` scope running its body with NumPy-shape semantics on (or off).

    Examples
    --------
    >>> with mx.np_shape(True):
    ...     assert mx.is_np_shape()
    """
    return _SwitchScope(set_np_shape, active)


def is_np_array():
    """Whether NumPy-array semantics is on in this thread (off by default)."""
    return getattr(_STATE, 'np_array', False)


def _set_np_array(active):
    prev = is_np_array()
    _STATE.np_array = bool(active)
    return prev


def np_array(active=True):
    """A ``with`` scope running its body with NumPy-array semantics on (or off)."""
    return _SwitchScope(_set_np_array, active)


def _scoped(func, scope_factory):
    """Wrap a function, or every method/property of a class, in a scope."""
    if inspect.isclass(func):
        for name, member in list(vars(func).items()):
            if isinstance(member, property):
                setattr(func, name, property(
                    _scoped(member.fget, scope_factory) if member.fget else None,
                    _scoped(member.fset, scope_factory) if member.fset else None,
                    _scoped(member.fdel, scope_factory) if member.fdel else None,
                    member.__doc__))
            elif isinstance(member, staticmethod):
                setattr(func, name, staticmethod(_scoped(member.__func__, scope_factory)))
            elif isinstance(member, classmethod):
                setattr(func, name, classmethod(_scoped(member.__func__, scope_factory)))
            elif inspect.isfunction(member):
                setattr(func, name, _scoped(member, scope_factory))
        return func
    if not callable(func):
        raise TypeError('expected a function or a class to decorate, found %s'
                        % type(func).__name__)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with scope_factory():
            return func(*args, **kwargs)
    return wrapper


def use_np_shape(func):
    """Decorator: run a function (or every method of a class) with NumPy-shape semantics."""
    return _scoped(func, lambda: np_shape(True))


def use_np_array(func):
    """Decorator: run a function (or every method of a class) with NumPy-array semantics."""
    return _scoped(func, lambda: np_array(True))


class _BothScope:
    def __enter__(self):
        self._shape = np_shape(True)
        self._array = np_array(True)
        self._shape.__enter__()
        self._array.__enter__()
        return self

    def __exit__(self, *exc):
        self._array.__exit__(*exc)
        self._shape.__exit__(*exc)


def use_np(func):
    """Decorator: NumPy-shape and NumPy-array semantics for a function or class."""
    return _scoped(func, _BothScope)


def set_np(shape=True, array=True):
    """Set both semantics at once; NumPy-array without NumPy-shape is refused."""
    if not shape and array:
        raise ValueError('NumPy Shape semantics is required in using NumPy array semantics.')
    _set_np_array(array)
    set_np_shape(shape)


def reset_np():
    """Turn both NumPy semantics off."""
    set_np(shape=False, array=False)


def getenv(name):
    """The value of environment variable ``name`` as the runtime sees it (None if unset)."""
    return os.environ.get(name)


def setenv(name, value):
    """Set (or with ``None`` unset) environment variable ``name`` for the runtime."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def set_module(module):
    """Decorator that sets ``__module__`` of a function or class (for documentation)."""
    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func
    return decorator
