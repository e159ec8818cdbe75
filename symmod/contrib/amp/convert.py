"""The graph pass behind ``amp.convert_symbol``: insert amp_cast / amp_multicast nodes
before the inputs of operators that should run in float16, float32 or the widest dtype."""
from ...ops import registry
from ...symbol.node import Node
from ...symbol.symbol import Symbol

__all__ = ['reduce_precision']

_FLOAT16_FLAG = '2'     # MXNet's type flag of float16 (a variable's __dtype__)


def _canonical(names):
    return {registry.get(n).name for n in names if registry.exists(n)}


def reduce_precision(sym, dtype, fp16_ops, fp32_ops, conditional, widest_ops, excluded,
                     data_names, cast_optional_params):
    """A copy of ``sym`` with the casts inserted (see ``amp.convert_symbol``)."""
    graph = sym.__copy__()
    fp16_ops, fp32_ops, widest_ops = (_canonical(fp16_ops), _canonical(fp32_ops),
                                      _canonical(widest_ops))
    conditional = {registry.get(n).name: (param, set(values))
                   for n, param, values in conditional if registry.exists(n)}
    excluded = set(excluded)
    casts = {}      # (id(node), index, dtype) -> the cast node

    def cast(entry, dtype_name):
        node, index = entry
        key = (id(node), index, dtype_name)
        if key not in casts:
            casts[key] = Node('amp_cast', '%s_amp_cast_%s' % (node.output_name(index),
                                                               dtype_name),
                              {'dtype': dtype_name}, [entry])
        return (casts[key], 0)

    for node in graph._nodes():
        if node.op is None or node.op in ('amp_cast', 'amp_multicast'):
            continue
        n_args = node.num_arguments()
        if node.name in excluded or node.op in fp32_ops or (
                node.op in conditional
                and node.attrs.get(conditional[node.op][0]) in conditional[node.op][1]):
            target = 'float32'
        elif node.op in fp16_ops:
            target = dtype.name
        elif node.op in widest_ops and n_args > 1:
            multicast = Node('amp_multicast', node.name + '_amp_multicast',
                             {'num_outputs': str(n_args)}, list(node.inputs[:n_args]))
            node.inputs[:n_args] = [(multicast, j) for j in range(n_args)]
            continue
        else:
            continue
        node.inputs[:n_args] = [cast(e, target) for e in node.inputs[:n_args]]
    result = Symbol(list(graph._outputs))
    if cast_optional_params:
        _declare_float16_params(result, dtype.name, data_names)
    return result


def _declare_float16_params(sym, dtype_name, data_names):
    """Parameters whose every consumer casts them to float16 become float16 variables,
    read directly."""
    data_names = set(data_names or [])
    consumers = {}
    for node in sym._nodes():
        for j, (child, _) in enumerate(node.inputs):
            consumers.setdefault(id(child), []).append((node, j))
    for var in [n for n in sym._nodes() if n.op is None and n.name not in data_names]:
        users = consumers.get(id(var), [])
        if not users or not all(u.op == 'amp_cast' and u.attrs.get('dtype') == dtype_name
                                for u, _ in users):
            continue
        var.set_attrs({'__dtype__': _FLOAT16_FLAG})
        for cast_node, _ in users:
            for node, j in consumers.get(id(cast_node), []):
                node.inputs[j] = (var, 0)
    sym._order = None
