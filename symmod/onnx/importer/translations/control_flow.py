"""ONNX If, Scan and Loop as symmod's _cond, _foreach and _while_loop.

A branch or body graph is imported on its own (:class:`BodyGraph`): its formal inputs
are variables, and every tensor it reads from an enclosing graph (ONNX's outer scope),
or a constant it uses as a tensor, becomes a placeholder variable that the control-flow
node feeds from the enclosing graph, as ``mx.sym.contrib.cond`` / ``foreach`` wire the
variables their bodies read. Loop imports as ``_while_loop`` when its trip count is
a constant. A Loop that may stop early stacks its step outputs to the trip count, zero
rows past the stop (ONNX stacks as many rows as steps ran, symmod's ``_while_loop``
always ``max_iterations``): such a model that reads the stacked length is refused.
"""
import numpy as np

from ....base import MXNetError
from ..graph import ImportGraph, _outer_reads, _value_infos
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
        self._infer_alone(parent)
        self.free = []
        self._placeholders = {}

    def _infer_alone(self, parent):
        """Shapes inside the body from ONNX's inference on the body as a model of its own,
        the outer tensors it reads given as inputs (their shapes) or initializers (the
        constants: inference inside the whole model does not see an outer initializer's
        values, e.g. a Reshape's target)."""
        from ... import _deps
        onnx = _deps.onnx()
        helper = onnx.helper
        inputs, constants = list(self.graph.input), list(self.graph.initializer)
        for name in sorted(set(_outer_reads(self.graph))):
            if name in parent.consts:
                constants.append(onnx.numpy_helper.from_array(parent.consts[name], name))
            elif parent.shapes.get(name) is not None and name in parent.types:
                inputs.append(helper.make_tensor_value_info(
                    name, _deps.tensor_type(parent.types[name]), list(parent.shapes[name])))
        alone = helper.make_graph(self.graph.node, 'body', inputs, self.graph.output,
                                  initializer=constants)
        model = helper.make_model(alone, opset_imports=[helper.make_opsetid('', self.opset)])
        try:
            inferred = onnx.shape_inference.infer_shapes(model)
        except Exception:  # noqa: BLE001  (the body still imports with what is known)
            return
        for info in _value_infos(inferred.graph):
            self._record(info)

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



def _passes_condition_on(body):
    """Whether the body hands its condition input on unchanged (a fixed trip count)."""
    cond_in, cond_out = body.input[1].name, body.output[0].name
    if cond_in == cond_out:
        return True
    return any(n.op_type == 'Identity' and list(n.output) == [cond_out]
               and list(n.input) == [cond_in] for n in body.node)


@translator('Loop')
def loop(g, node):
    """A Loop with a constant trip count as _while_loop: two extra loop variables, the
    step count and the condition (float32), make symmod's condition graph ``flag and
    count < trip count``. symmod stacks step outputs over all trip-count rows (zero
    padded), ONNX over the steps run: a loop that may stop early must not have its
    stacked length read."""
    from ....symbol.control_flow import _group, _node
    from .... import symbol as sym
    trips = node.const(0)
    if trips is None:
        node.fail('a trip count (input 0) that is not a constant')
    trips = int(np.asarray(trips).reshape(-1)[0])
    start = node.const(1) if node.has(1) else np.array(True)
    body_proto = node.attrs['body']
    n_vars = len(node.inputs) - 2
    n_scan = len(body_proto.output) - 1 - n_vars
    fixed = _passes_condition_on(body_proto) and start is not None
    if n_scan and not fixed:
        # symmod stacks all trip-count rows, zeros past the stop: the same values as
        # long as nothing reads how many rows ONNX stacked
        for name in node.outputs[n_vars:]:
            readers = [r for r in g.readers(name) if r in ('Shape', 'Size')]
            if readers:
                node.fail('it may stop before its trip count while stacking step outputs, '
                          'and their length is read (%s); symmod stacks all %d rows, '
                          'zeros past the stop' % (readers[0], trips))
    step_name, cond_name = body_proto.input[0].name, body_proto.input[1].name
    body = BodyGraph(g, body_proto)
    # the step count (float32, from 0) is the iteration number the body may read (int64;
    # (1,) for ONNX's 0-d, as symmod's symbols have no 0-d arrays)
    counter, flag = g.unique_name(step_name + '_count'), cond_name
    count = sym.var(counter)
    body.input_symbols[step_name] = sym.Cast(count, dtype='int64')
    outs = body.outputs()
    cond_out = sym.reshape(sym.cast(outs[0], dtype='float32'), shape=(1,))
    new_vars = [sym._plus_scalar(count, scalar=1.0), cond_out] + outs[1:1 + n_vars]
    func_graph = _group(outs[1 + n_vars:] + new_vars)
    formal = [counter, flag] + [i.name for i in body_proto.input[2:]]
    cond_graph = _group([sym.broadcast_mul(sym.var(flag), sym._lesser_scalar(
        sym.var(counter), scalar=float(trips)))])
    first = sym.reshape(sym.cast(node.sym(1), dtype='float32'), shape=(1,)) \
        if start is None else g.new_param(node.name + '_flag',
                                          np.asarray(start, np.float32).reshape(1))
    inputs = [g.new_param(node.name + '_count', np.zeros(1, np.float32)), first]
    inputs += [node.sym(2 + i) for i in range(n_vars)]
    owners = dict(body.free)
    func_locs = []
    for name in func_graph.list_arguments():
        if name in formal:
            func_locs.append(formal.index(name))
            continue
        index = next((i for i, s in enumerate(inputs) if s is owners[name]), None)
        if index is None:
            index, _ = len(inputs), inputs.append(owners[name])
        func_locs.append(index)
    cond_locs = tuple(formal.index(name) for name in cond_graph.list_arguments())
    params = {'cond_graph': cond_graph.tojson(), 'func_graph': func_graph.tojson(),
              'num_out_data': n_scan, 'num_loop_vars': 2 + n_vars,
              'max_iterations': trips, 'cond_input_locs': cond_locs,
              'func_input_locs': tuple(func_locs)}
    results = _node('_while_loop', inputs, params, n_scan + 2 + n_vars)
    return results[n_scan + 2:] + results[:n_scan]
