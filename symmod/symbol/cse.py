"""Common subexpression elimination (MXNet's ``MXNET_ELIMINATE_COMMON_EXPR`` pass, on by
default at bind): operator nodes with the same operator, attributes and inputs are computed
once. Nodes that draw random numbers, keep state or update auxiliary states are never
merged; outputs that end up as the same entry are separated by ``_copy`` nodes."""
import os

from .node import Node

__all__ = ['eliminate_common_expr', 'enabled']

_NONDETERMINISTIC_PREFIXES = ('_random_', '_sample_')
_NONDETERMINISTIC = {'Dropout', 'RNN', '_shuffle', 'Custom'}


def enabled():
    """Whether binding eliminates common expressions (``MXNET_ELIMINATE_COMMON_EXPR``,
    default 1)."""
    return os.environ.get('MXNET_ELIMINATE_COMMON_EXPR', '1').strip() not in ('0', 'false',
                                                                            'False')


def _mergeable(node):
    if node.op is None or not node.inputs:
        return False
    if node.op in _NONDETERMINISTIC or node.op.startswith(_NONDETERMINISTIC_PREFIXES):
        return False
    op = node.operator()
    return not op.stateful and not op.list_auxiliary_states()


def eliminate_common_expr(symbol):
    """The graph of ``symbol`` with common subexpressions computed once (a new Symbol; the
    input symbol is unchanged, variables are shared)."""
    from .symbol import Symbol
    canonical = {}      # id(original node) -> node of the new graph
    merged = False
    seen = {}           # (op, attrs, inputs) -> node of the new graph
    for node in symbol._nodes():
        if node.op is None:
            canonical[id(node)] = node
            continue
        inputs = [(canonical[id(c)], i) for c, i in node.inputs]
        key = (node.op, tuple(sorted(node.attrs.items())),
               tuple((id(c), i) for c, i in inputs))
        if _mergeable(node) and key in seen:
            canonical[id(node)] = seen[key]
            merged = True
            continue
        clone = Node(node.op, node.name, node.attrs, inputs, node.versions)
        clone.mutations = node.mutations
        canonical[id(node)] = clone
        if _mergeable(node):
            seen[key] = clone
    if not merged:      # MXNet's pass changes nothing then (not even repeated outputs)
        return symbol
    outputs, copies = [], {}
    for node, index in symbol._outputs:
        entry = (canonical[id(node)], index)
        key = (id(entry[0]), index)
        if key in copies:
            count = copies[key]
            copies[key] += 1
            entry = (Node('_copy', '%s_%d_copy' % (entry[0].name, count), {}, [entry]), 0)
        else:
            copies[key] = 0
        outputs.append(entry)
    return Symbol(outputs)
