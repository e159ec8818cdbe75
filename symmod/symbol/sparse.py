"""``mx.sym.sparse``: the operators MXNet registers for sparse arrays (every operator
known under a ``_sparse_`` name, the prefix dropped: ``mx.sym.sparse.dot``,
``mx.sym.sparse.retain``, ``mx.sym.sparse.elemwise_add`` ...).

Storage types come from the bound arrays or the variables' ``stype``; these functions
build the same nodes as their ``mx.sym`` counterparts.
"""
from . import register as _register


def _populate():
    return {name[len('_sparse_'):]: fn for name, fn in _register._FUNCS.items()
            if name.startswith('_sparse_')}


globals().update(_populate())
