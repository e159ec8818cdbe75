"""Device contexts: ``mx.cpu()``, ``mx.gpu()``, ``with ctx:`` scoping."""
import threading
import warnings

__all__ = ['Context', 'cpu', 'gpu', 'cpu_pinned', 'current_context', 'num_gpus']


_DEPRECATED = ('Context.default_ctx has been deprecated. Please use Context.current_context() '
               'instead. Please use test_utils.set_default_context to set a default context')


class _ContextMeta(type):
    """Gives ``Context`` the class-level property ``default_ctx`` MXNet has."""

    @property
    def default_ctx(cls):
        warnings.warn(_DEPRECATED, DeprecationWarning)
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, value):
        warnings.warn(_DEPRECATED, DeprecationWarning)
        Context._default_ctx.value = value


class Context(metaclass=_ContextMeta):
    """A device on which arrays live and operators run.

    Parameters
    ----------
    device_type : {'cpu', 'gpu', 'cpu_pinned', 'cpu_shared'} or Context
        The kind of device.
    device_id : int (default=0)
        Which device of that kind.

    Examples
    --------
    >>> with mx.Context('cpu', 1):
    ...     a = mx.nd.zeros((2, 3))
    >>> a.context
    cpu(1)
    """
    devtype2str = {1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared'}
    devstr2type = {'cpu': 1, 'gpu': 2, 'cpu_pinned': 3, 'cpu_shared': 5}
    _default_ctx = threading.local()

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            if device_type not in self.devstr2type:
                raise ValueError('unknown device type %r: expected one of %s'
                                 % (device_type, sorted(self.devstr2type)))
            self.device_typeid = self.devstr2type[device_type]
            self.device_id = int(device_id)
        self._old_ctx = None

    @property
    def device_type(self):
        """The device type as a string: 'cpu', 'gpu', 'cpu_pinned' or 'cpu_shared'."""
        return self.devtype2str[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_typeid == other.device_typeid
                and self.device_id == other.device_id)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __str__(self):
        return '%s(%d)' % (self.device_type, self.device_id)

    __repr__ = __str__

    def __enter__(self):
        # a per-thread stack: gluon re-enters the same Context object in nested blocks
        Context._default_ctx.__dict__.setdefault('outer', []).append(current_context())
        Context._default_ctx.value = self
        return self

    def __exit__(self, ptype, value, trace):
        Context._default_ctx.value = Context._default_ctx.outer.pop()

    def empty_cache(self):
        """Release cached device memory (a no-op for CPU contexts)."""

    @property
    def default_ctx(self):
        """Deprecated: the current default context (use :func:`current_context`)."""
        return type(self).default_ctx

    @staticmethod
    def current_context():
        """The context of the innermost ``with ctx:`` block, else ``cpu(0)``."""
        return current_context()


def cpu(device_id=0):
    """Return a CPU context. ``device_id`` only labels the context: all CPU contexts
    share the host's memory, and data-parallel code treats them as separate devices."""
    return Context('cpu', device_id)


def cpu_pinned(device_id=0):
    """Return a pinned-memory CPU context (host memory; same as cpu here)."""
    return Context('cpu_pinned', device_id)


def gpu(device_id=0):
    """Return a GPU context. Arrays on it live in device memory through numba.cuda."""
    return Context('gpu', device_id)


def num_gpus():
    """Number of CUDA devices numba can see (0 when there is no driver)."""
    try:
        from numba import cuda
        return len(cuda.gpus) if cuda.is_available() else 0
    except Exception:  # pragma: no cover - depends on the machine
        return 0


def current_context():
    """The context of the innermost ``with ctx:`` block, else ``cpu(0)``."""
    if not hasattr(Context._default_ctx, 'value') or Context._default_ctx.value is None:
        Context._default_ctx.value = Context('cpu', 0)
    return Context._default_ctx.value
