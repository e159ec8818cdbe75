"""Messages for a name that is not registered: the closest registered name and the list."""
import difflib


def closest(name, known):
    """The registered name closest to ``name`` (case-insensitive), or None."""
    by_lower = {str(k).lower(): k for k in known}
    matches = difflib.get_close_matches(str(name).lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[matches[0]] if matches else None


def did_you_mean(name, known):
    """``" Did you mean 'adam'?"``, or ``''`` when nothing registered is close."""
    match = closest(name, known)
    return '' if match is None else " Did you mean '%s'?" % match


def unknown_name(kind, name, known):
    """Say that ``name`` is not a registered ``kind``, the closest name and all of them.

    Examples
    --------
    >>> unknown_name('optimizer', 'adamm', ['adam', 'sgd'])
    "Cannot find optimizer adamm. Did you mean 'adam'? Registered optimizers: adam, sgd"
    """
    return "Cannot find %s %s.%s Registered %ss: %s" % (
        kind, name, did_you_mean(name, known), kind, ', '.join(sorted(known)))


class _MissingAttribute(AttributeError):
    """AttributeError whose message (with the closest name) is worked out only when shown,
    so that ``hasattr`` probes stay as cheap as for any module."""

    def __init__(self, module, name):
        super().__init__(module.__name__, name)
        self._module, self._missing = module, name

    def __str__(self):
        public = [n for n in vars(self._module) if not n.startswith('_')]
        return "module '%s' has no attribute '%s'.%s" % (
            self._module.__name__, self._missing, did_you_mean(self._missing, public))


# tracebacks show it as the AttributeError it is, not as a symmod-internal class
_MissingAttribute.__module__ = 'builtins'
_MissingAttribute.__name__ = _MissingAttribute.__qualname__ = 'AttributeError'


def missing_attribute(module_name):
    """A module-level ``__getattr__`` naming the closest public name of ``module_name``.

    Python itself suggests names in tracebacks only for modules with fewer than 750
    names and only where its own traceback printer runs; ``mx.nd`` and ``mx.sym`` hold
    hundreds of generated operator functions.
    """
    import sys

    def __getattr__(name):
        if name.startswith('__'):
            raise AttributeError(name)
        raise _MissingAttribute(sys.modules[module_name], name)
    return __getattr__
