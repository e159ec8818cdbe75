"""Automatic naming of symbols: ``fullyconnected0``, ``mx.name.Prefix('net_')``."""
import threading

__all__ = ['NameManager', 'Prefix', 'current']


class NameManager:
    """Gives each unnamed symbol a name from a hint and a per-hint counter.

    A user-given name is used as is. Subclass and override :meth:`get` to change
    the naming; activate a manager with ``with NameManager():``.
    """
    _current = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """The name to use: ``name`` if given, else ``hint`` plus a counter.

        Parameters
        ----------
        name : str or None
            The name the user gave.
        hint : str
            The stem for automatic names (the lower-cased operator function name).

        Returns
        -------
        str
        """
        if name:
            return name
        count = self._counter.get(hint, 0)
        self._counter[hint] = count + 1
        return '%s%d' % (hint, count)

    def __enter__(self):
        self._old_manager = current()
        NameManager._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        NameManager._current.value = self._old_manager


class Prefix(NameManager):
    """A name manager that prepends ``prefix`` to every name, given or automatic.

    Examples
    --------
    >>> with mx.name.Prefix('net_'):
    ...     fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc1')
    >>> fc.list_arguments()
    ['data', 'net_fc1_weight', 'net_fc1_bias']
    """

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)


def current():
    """The active name manager (a default one per thread)."""
    if getattr(NameManager._current, 'value', None) is None:
        NameManager._current.value = NameManager()
    return NameManager._current.value
