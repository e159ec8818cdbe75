"""``mx.sym.contrib``: the registered operators named ``_contrib_<name>``, as ``<name>``,
``rand_zipfian`` and the control flow functions ``foreach``, ``while_loop``, ``cond``.

MXNet files its contrib operators (``_contrib_box_nms``, ...) under this prefix.
"""
from ..ops import registry
from .symbol import _FUNCS

PREFIX = '_contrib_'
_REGISTERED = sorted(n[len(PREFIX):] for n in registry.list_operators() if n.startswith(PREFIX))
globals().update({n: _FUNCS[PREFIX + n] for n in _REGISTERED})
from .contrib_functions import rand_zipfian  # noqa: E402
from .control_flow import foreach, while_loop, cond  # noqa: E402,F401

__all__ = _REGISTERED + ['rand_zipfian', 'foreach', 'while_loop', 'cond']
