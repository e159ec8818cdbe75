"""``mx.sym.contrib``: the registered operators named ``_contrib_<name>``, as ``<name>``.

MXNet files its contrib operators (``_contrib_adamw_update``, ...) under this prefix.
symmod's contrib updates (``mx.nd.contrib.adamw_update``, ``mp_adamw_update``) are
NDArray functions, not registry operators, so they have no symbol form; this module
holds whatever ``_contrib_`` operators the registry has (none in symmod today).
"""
from ..ops import registry
from .symbol import _FUNCS

PREFIX = '_contrib_'
__all__ = sorted(n[len(PREFIX):] for n in registry.list_operators() if n.startswith(PREFIX))
globals().update({n: _FUNCS[PREFIX + n] for n in __all__})
