"""Attribute scopes: ``with mx.AttrScope(ctx_group='dev1'):`` tags every symbol created inside."""
import threading
from collections import defaultdict

__all__ = ['AttrScope', 'current']


class AttrScope:
    """Attributes applied to all symbols created in the scope (values must be strings).

    Parameters
    ----------
    **kwargs
        The attributes, e.g. ``ctx_group='stage1'``, ``lr_mult='0.1'``.
    """
    _current = threading.local()
    # control-flow subgraph name -> how many were made (mx.sym.contrib.foreach & co.)
    _subgraph_names = defaultdict(int)

    def __init__(self, **kwargs):
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError('Attributes need to be string')
        self._attr = kwargs
        self._old_scope = None

    def get(self, attr):
        """Merge the scope's attributes with ``attr`` (which wins on conflicts).

        Parameters
        ----------
        attr : dict of str to str or None

        Returns
        -------
        dict of str to str
        """
        if self._attr:
            merged = dict(self._attr)
            if attr:
                merged.update(attr)
            return merged
        return dict(attr) if attr else {}

    def __enter__(self):
        self._old_scope = current()
        merged = dict(self._old_scope._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        AttrScope._current.value = self._old_scope


def current():
    """The active attribute scope (an empty one per thread by default)."""
    if getattr(AttrScope._current, 'value', None) is None:
        AttrScope._current.value = AttrScope()
    return AttrScope._current.value
