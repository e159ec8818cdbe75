"""User profiling objects: Domain, Task, Frame, Event, Counter and Marker."""
from ..base import MXNetError
from .recording import _record
from .state import clock


class Domain:
    """A named group of profiling objects; it is the category of their records.

    Parameters
    ----------
    name : str
        Name of the domain.

    Examples
    --------
    >>> domain = mx.profiler.Domain('training')
    >>> task = domain.new_task('load batch')
    """

    def __init__(self, name):
        if not name:
            raise MXNetError('a profiler Domain needs a non-empty name')
        self.name = name

    def __str__(self):
        return self.name

    def new_task(self, name):
        """A :class:`Task` in this domain."""
        return Task(self, name)

    def new_frame(self, name):
        """A :class:`Frame` in this domain."""
        return Frame(self, name)

    def new_counter(self, name, value=None):
        """A :class:`Counter` in this domain, optionally set to ``value``."""
        return Counter(self, name, value)

    def new_marker(self, name):
        """A :class:`Marker` in this domain."""
        return Marker(self, name)


class _Duration:
    """A region timed between :meth:`start` and :meth:`stop`."""
    _kind = None

    def __init__(self, name, category):
        self.name = name
        self._category = category
        self._start = None

    def start(self):
        """Start timing."""
        self._start = clock()

    def stop(self):
        """Stop timing and record the region (if the profiler is recording)."""
        if self._start is None:
            raise MXNetError('%s %r: stop() called before start()'
                             % (type(self).__name__, self.name))
        _record(self._kind, self.name, self._category, self._start, clock())
        self._start = None

    def __str__(self):
        return self.name


class Task(_Duration):
    """A unit of work in a domain; all passes are aggregated under one name.

    Parameters
    ----------
    domain : Domain
    name : str

    Examples
    --------
    >>> task = mx.profiler.Domain('io').new_task('decode')
    >>> task.start(); decode(); task.stop()
    """
    _kind = 'task'

    def __init__(self, domain, name):
        super().__init__(name, domain.name)


class Frame(_Duration):
    """A frame (one discrete period, such as one batch) in a domain.

    Parameters
    ----------
    domain : Domain
    name : str
    """
    _kind = 'frame'

    def __init__(self, domain, name):
        super().__init__(name, domain.name + ',frame')


class Event(_Duration):
    """A timed region in the ``event`` category.

    Parameters
    ----------
    name : str
    """
    _kind = 'event'

    def __init__(self, name):
        super().__init__(name, 'event')


class Counter:
    """A value tracked over time; every change is recorded.

    Parameters
    ----------
    domain : Domain
    name : str
    value : int, optional
        Initial value.

    Examples
    --------
    >>> counter = mx.profiler.Domain('data').new_counter('batches', 0)
    >>> counter += 1
    """

    def __init__(self, domain, name, value=None):
        self.name = name
        self._category = domain.name
        self._value = 0
        if value is not None:
            self.set_value(value)

    def _send(self):
        _record('counter', self.name, self._category, clock(), self._value)

    def set_value(self, value):
        """Set the counter to ``value``."""
        self._value = int(value)
        self._send()

    def increment(self, delta=1):
        """Add ``delta`` to the counter."""
        self._value += int(delta)
        self._send()

    def decrement(self, delta=1):
        """Subtract ``delta`` from the counter."""
        self._value -= int(delta)
        self._send()

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self):
        return self.name


_MARKER_SCOPES = {'global': 'g', 'process': 'p', 'thread': 't', 'task': 'p', 'marker': 'p'}


class Marker:
    """An instant in time, marked with :meth:`mark`.

    Parameters
    ----------
    domain : Domain
    name : str
    """

    def __init__(self, domain, name):
        self.name = name
        self.domain = domain

    def mark(self, scope='process'):
        """Record the marker now.

        Parameters
        ----------
        scope : {'global', 'process', 'thread', 'task', 'marker'}
            What the instant applies to in the trace viewer.
        """
        if scope not in _MARKER_SCOPES:
            raise MXNetError("Invalid Input: %r, valid values are: {'global', 'marker', "
                             "'process', 'task', 'thread'}" % (scope,))
        _record('marker', self.name, self.domain.name + ',instant_marker', clock(), None,
                _MARKER_SCOPES[scope])
