"""ONNX If and Scan as symmod's _cond and _foreach.

A branch or body graph is imported on its own (:class:`BodyGraph`): its formal inputs
are variables, and every tensor it reads from an enclosing graph (ONNX's outer scope),
or a constant it uses as a tensor, becomes a placeholder variable that the control-flow
node feeds from the enclosing graph, as ``mx.sym.contrib.cond`` / ``foreach`` wire the
variables their bodies read. Loop is not imported: ONNX's scan outputs have as many
rows as iterations ran, symmod's ``_while_loop`` always ``max_iterations``.
"""
from ....base import MXNetError
from ..graph import ImportGraph
from ..registry import translator

__all__ = ['BodyGraph']


class BodyGraph(ImportGraph):
    """An ONNX subgraph imported into a symbol of its own, reading ``parent``'s tensors
    through placeholders (``free``: (placeholder name, enclosing Symbol) pairs)."""

    def __init__(self, parent, graph):
        super().__init__(graph, parent.opset)
        self.parent = parent
        parent._used.update(self._used)
        self._used = parent._used
        for name, value in parent.consts.items():      # readable as attributes
            self.consts.setdefault(name, value)
        self.shapes = dict(parent.shapes)
        self.types = dict(parent.types)
        for info in list(graph.input) + list(graph.value_info) + list(graph.output):
            self._record(info)
        self.free = []
        self._placeholders = {}

    def _record(self, info):
        from ... import _deps
        t = info.type.tensor_type
        if t.elem_type:
            self.types[info.name] = _deps.numpy_type(t.elem_type)
        if t.HasField('shape'):
            self.shapes[info.name] = tuple(d.dim_value if d.HasField('dim_value') else None
                                           for d in t.shape.dim)

    def _placeholder(self, hint, outer):
        from .... import symbol as sym
        placeholder = sym.var(self.unique_name(hint + '_outer'))
        self.free.append((placeholder.name, outer))
        return placeholder

    def symbol(self, name):
        if name in self.symbols:
            return self.symbols[name]
        local = name in self.consts and name not in self.parent.consts \
            and name not in self.parent.symbols
        if local:       # the body's own constant: a parameter of the enclosing graph
            value = self.consts[name]
            outer = self.parent.new_param(name, value.reshape(1) if value.ndim == 0 else value)
        else:
            outer = self.parent.symbol(name)
        self.symbols[name] = self._placeholder(name, outer)
        return self.symbols[name]

    def new_param(self, hint, value):
        return self._placeholder(hint, self.parent.new_param(hint, value))

    def outputs(self):
        """The body's output Symbols, one per graph output."""
        result = self.build()
        count = len(self.graph.output)
        return [result] if count == 1 else [result[i] for i in range(count)]


def _wire(graph, free, inputs):
    """Node input index of each argument (a placeholder) of ``graph``, appending each
    enclosing Symbol to ``inputs`` once."""
    owners = dict(free)
    locs = []
    for name in graph.list_arguments():
        outer = owners[name]
        index = next((i for i, s in enumerate(inputs) if s is outer), None)
        if index is None:
            index, _ = len(inputs), inputs.append(outer)
        locs.append(index)
    return tuple(locs)


@translator('If')
def if_(g, node):
    from ....symbol.control_flow import _group, _node
    from .... import symbol as sym
    graphs, inputs = [], []
    for key in ('then_branch', 'else_branch'):
        body = BodyGraph(g, node.attrs[key])
        graphs.append((_group(body.outputs()), body.free))
    pred = g.unique_name(node.name + '_pred')
    cond_graph = _group([sym.var(pred)])
    locs = [_wire(graph, free, inputs) for graph, free in graphs]
    inputs.append(node.sym(0))      # last: the outputs take the first input's dtype
    params = {'cond_graph': cond_graph.tojson(), 'then_graph': graphs[0][0].tojson(),
              'else_graph': graphs[1][0].tojson(), 'cond_input_locs': (len(inputs) - 1,),
              'then_input_locs': locs[0], 'else_input_locs': locs[1]}
    count = len(graphs[0][0].list_outputs())
    if count != len(graphs[1][0].list_outputs()):
        node.fail('the branches have %d and %d outputs'
                  % (count, len(graphs[1][0].list_outputs())))
    return _node('_cond', inputs, params, count)


@translator('Scan')
def scan(g, node):
    from ....symbol.control_flow import _group, _node
    n_scan = node.attrs['num_scan_inputs']
    for attr in ('scan_input_axes', 'scan_input_directions', 'scan_output_axes',
                 'scan_output_directions'):
        if any(node.attrs.get(attr, [])):
            node.fail('%s=%s (only axis 0, forward, as symmod foreach)'
                      % (attr, node.attrs[attr]))
    n_state = len(node.inputs) - n_scan
    body = BodyGraph(g, node.attrs['body'])
    outs = body.outputs()
    n_out = len(outs) - n_state
    graph = _group(outs[n_state:] + outs[:n_state])
    names = [info.name for info in node.attrs['body'].input]
    if len(names) != n_state + n_scan:
        node.fail('the body has %d inputs for %d states and %d scan inputs'
                  % (len(names), n_state, n_scan))
    args = graph.list_arguments()

    def loc(name):
        return args.index(name) if name in args else -1
    inputs = [node.sym(n_state + j) for j in range(n_scan)] + \
        [node.sym(i) for i in range(n_state)]
    owners = dict(body.free)
    free_args = [name for name in args if name not in names]
    try:
        free = [owners[name] for name in free_args]
    except KeyError as err:
        raise MXNetError("ONNX import: node '%s' (Scan): its body reads %s, which is neither "
                         'its input nor an outer tensor' % (node.name, err)) from None
    params = {'subgraph': graph.tojson(), 'num_out_data': n_out,
              'in_data_locs': tuple(loc(names[n_state + j]) for j in range(n_scan)),
              'in_state_locs': tuple(loc(names[i]) for i in range(n_state)),
              'remain_locs': tuple(args.index(name) for name in free_args)}
    results = _node('_foreach', inputs + free, params, n_out + n_state)
    return results[n_out:] + results[:n_out]

