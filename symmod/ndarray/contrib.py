"""``mx.nd.contrib``: the contrib update operators of MXNet 1.9.1 that symmod provides.

MXNet files AdamW's fused updates here (``mx.nd.contrib.adamw_update``,
``mx.nd.contrib.mp_adamw_update``); symmod also keeps them at ``mx.nd.adamw_update``
and ``mx.nd.mp_adamw_update``. The other contrib updates MXNet has
(``multi_adamw_update``, ``multi_mp_adamw_update``, ``multi_lamb_update``,
``multi_mp_lamb_update``, ``group_adagrad_update``) are not provided.

Examples
--------
>>> w, g = mx.nd.ones((2,)), mx.nd.ones((2,))
>>> m, v = mx.nd.zeros((2,)), mx.nd.zeros((2,))
>>> mx.nd.contrib.adamw_update(w, g, m, v, rescale_grad=1, lr=0.1, eta=1, out=w)
"""
from ..optimizer.fused_ops import adamw_update, mp_adamw_update

__all__ = ['adamw_update', 'mp_adamw_update']
