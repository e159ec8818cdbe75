"""``mx.sym.linalg``: the linalg operators under their short names.

Every registered operator ``_linalg_<name>`` appears here as ``<name>`` (the same
function as ``mx.sym._internal._linalg_<name>``), as ``mx.nd.linalg`` does for arrays.

Examples
--------
>>> l = mx.sym.linalg.potrf(mx.sym.Variable('A'))
>>> l.infer_shape(A=(4, 3, 3))[1]
[(4, 3, 3)]
"""
from ..ops import registry
from .symbol import _FUNCS

PREFIX = '_linalg_'
__all__ = sorted(n[len(PREFIX):] for n in registry.list_operators() if n.startswith(PREFIX))
globals().update({n: _FUNCS[PREFIX + n] for n in __all__})
