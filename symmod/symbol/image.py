"""``mx.sym.image``: the registered image operators ``_image_<name>`` as ``<name>``."""
from ..ops import registry
from .symbol import _FUNCS

PREFIX = '_image_'
__all__ = sorted(n[len(PREFIX):] for n in registry.list_operators() if n.startswith(PREFIX))
globals().update({n: _FUNCS[PREFIX + n] for n in __all__})
