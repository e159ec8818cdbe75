"""``mx.nd.contrib``: the registered operators named ``_contrib_<name>``, as ``<name>``,
and the contrib optimizer updates.

MXNet files AdamW's fused updates here (``mx.nd.contrib.adamw_update``,
``mx.nd.contrib.mp_adamw_update``); symmod also keeps them at ``mx.nd.adamw_update``
and ``mx.nd.mp_adamw_update``. The multi-tensor updates (``multi_adamw_update``,
``multi_mp_adamw_update``, ``multi_lamb_update``, ``multi_mp_lamb_update``) and
``group_adagrad_update`` live here only, as in MXNet.

Examples
--------
>>> w, g = mx.nd.ones((2,)), mx.nd.ones((2,))
>>> m, v = mx.nd.zeros((2,)), mx.nd.zeros((2,))
>>> mx.nd.contrib.adamw_update(w, g, m, v, rescale_grad=1, lr=0.1, eta=1, out=w)
"""
from ..ops import registry
from ..optimizer.fused_ops import adamw_update, mp_adamw_update
from ..optimizer import fused_contrib as _fused_contrib
from ..optimizer.fused_contrib import *  # noqa: F401,F403  (multi_adamw_update, ...)
from .ndarray import _OPS
from .contrib_functions import isinf, isfinite, isnan, rand_zipfian
from .control_flow import foreach, while_loop, cond

PREFIX = '_contrib_'
_REGISTERED = sorted(n[len(PREFIX):] for n in registry.list_operators() if n.startswith(PREFIX))
globals().update({n: _OPS[PREFIX + n] for n in _REGISTERED})

__all__ = sorted(set(_REGISTERED) | {'adamw_update', 'mp_adamw_update', 'isinf', 'isfinite',
                                      'isnan', 'rand_zipfian', 'foreach', 'while_loop', 'cond'}
                 | set(_fused_contrib.__all__))
