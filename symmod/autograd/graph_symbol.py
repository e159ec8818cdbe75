"""``get_symbol``: the recorded computation behind an array, as a Symbol."""
from ..base import MXNetError, attr_str
from .tape import _NOT_IN_GRAPH, _Variable, _entry

__all__ = ['get_symbol']


def _given_attrs(op):
    """The parameters the operator was called with, as MXNet's attribute strings."""
    given = getattr(op, '_given_attrs', None)
    if given is not None:
        return dict(given)
    return {p.name: attr_str(getattr(op, p.name)) for p in op.params
            if getattr(op, p.name) != p.default}


def _inputs(tape_node):
    """``(entry, variable name)`` per input of a tape node's operator, in its order (a
    hybridized graph recorded as one node says its own: ``_CachedOp``)."""
    if hasattr(tape_node, 'symbol_inputs'):
        return tape_node.symbol_inputs()
    return zip(tape_node.in_entries + [None] * len(tape_node.aux), tape_node.input_names)


def get_symbol(x):
    """Retrieve the recorded computation history of ``x`` as a Symbol.

    Names are those MXNet gives when recording: ``var<k>`` for marked variables,
    ``null<k>`` for inputs that were not recorded results (constants, auxiliary
    states), ``node_<k>`` for operator calls; operator nodes keep the parameters
    they were called with.

    Parameters
    ----------
    x : NDArray
        The result of computation recorded under ``autograd.record()``.

    Returns
    -------
    Symbol
        The graph computing ``x``.

    Examples
    --------
    >>> x = mx.nd.ones((2, 3)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = mx.nd.relu(x) * 2
    >>> mx.autograd.get_symbol(y).list_arguments()      # doctest: +SKIP
    ['var0']
    """
    from ..symbol.node import Node
    from ..symbol.symbol import Symbol
    head = _entry(x)
    if head is None:
        raise MXNetError(_NOT_IN_GRAPH)
    made = {}       # id(tape node or variable) or variable name -> symbol Node
    stack = []

    def node_for(owner):
        key = id(owner)
        if key not in made:
            if isinstance(owner, _Variable):
                made[key] = Node(None, owner.name)
            else:
                made[key] = Node(owner.op.name, owner.name, _given_attrs(owner.op))
                stack.append(owner)
        return made[key]

    root = node_for(head[0])
    while stack:
        tape_node = stack.pop()
        made[id(tape_node)].inputs = [
            (node_for(entry[0]), entry[1]) if name is None
            else (made.setdefault(name, Node(None, name)), 0)
            for entry, name in _inputs(tape_node)]
    return Symbol([(root, head[1])])
