"""The walk from a symmod Symbol to an ONNX graph.

:class:`ExportGraph` holds what every translator needs: the ONNX nodes and
initializers emitted so far, unique tensor names, each graph entry's static shape
and dtype (from symmod's own inference with the given input shapes), which of its
dimensions vary with the dynamic input dimensions, and the arrays of entries that
are constants (parameters, and operators on parameters only, which symmod computes
at export time). Translators (one module per operator family) receive the graph and
an :class:`OpNode` and emit ONNX nodes that write the node's outputs.

Which dimensions vary is found by inference too: each dynamic input dimension (or
each set of dimensions given the same name) is doubled in turn and the shapes
inferred again; an entry's dimension varies when its size follows. A dimension the graph cannot vary in (an unrolled RNN's sequence
length) stays fixed in the exported input, with a warning.
"""
import logging

import networkx as nx
import numpy as np

from ...base import MXNetError
from ...symbol.graph import build_graph
from ...symbol.infer import infer_shapes, infer_types
from .. import _deps
from . import registry, unsupported

__all__ = ['ExportGraph', 'OpNode', 'graph_output_name', 'run_operator']

log = logging.getLogger(__name__)

# operators whose outputs depend on more than their inputs: never computed at export
_NO_FOLD = ('Custom', 'Dropout')
# output layers whose label input inference does not read
_LABEL_INPUT = {'SoftmaxOutput': 1, 'LinearRegressionOutput': 1, 'LogisticRegressionOutput': 1,
                'MAERegressionOutput': 1, 'SVMOutput': 1}


def graph_output_name(full_name):
    """MXNet's ONNX name for an output ``<node>_<output>``: ``fc1_output`` -> ``fc1``,
    ``split_output1`` -> ``split1``, ``rnn_state_output`` -> ``rnn1``."""
    for suffix, replacement in (('_statecell_output', '2'), ('_state_output', '1'),
                                ('_output', '')):
        if full_name.endswith(suffix):
            return full_name[:-len(suffix)] + replacement
    head, _, tail = full_name.rpartition('_output')
    if head and tail.isdigit():
        return head + tail
    return full_name


def run_operator(op, inputs, out_shapes=None, out_dtypes=None):
    """Every output (hidden ones included) of operator instance ``op`` run forward in
    inference mode on the arrays ``inputs`` (arguments, then auxiliary states); output
    shapes and dtypes are inferred from the inputs when not given."""
    n_args, count = len(op.list_arguments()), len(op.list_outputs())
    args, auxs = inputs[:n_args], inputs[n_args:]
    if out_shapes is None:
        _, out_shapes, _ = op.infer_shape([a.shape for a in args], [None] * count,
                                          [a.shape for a in auxs])
    if out_dtypes is None:
        _, out_dtypes, _ = op.infer_type([a.dtype for a in args], [None] * count,
                                         [a.dtype for a in auxs])
    outs = [np.empty(shape, dtype) for shape, dtype in zip(out_shapes, out_dtypes)]
    op.forward(False, ['write'] * count, args, outs, auxs)
    return outs


class OpNode:
    """One operator node as a translator sees it.

    Attributes
    ----------
    name : str
        The symmod node name.
    op : Operator
        The parsed operator (typed parameters as attributes).
    outputs : list of str
        The ONNX tensor names the translator must write, one per operator output
        (hidden outputs included; translators may leave those unwritten).
    """

    def __init__(self, graph, node):
        self.graph = graph
        self.node = node
        self.name = node.name
        self.op = node.operator()
        self.keys = [(id(child), index) for child, index in node.inputs]
        n_out = len(self.op.list_outputs())
        self.out_keys = [(id(node), i) for i in range(n_out)]
        self.outputs = [graph.entry_name(node, i) for i in range(n_out)]

    @property
    def num_inputs(self):
        return len(self.keys)

    def input(self, index):
        """The ONNX name of input ``index`` (a constant becomes an initializer)."""
        return self.graph.tensor(self.keys[index])

    def const(self, index):
        """The array of input ``index`` if it is a constant, else None."""
        return self.graph.consts.get(self.keys[index])

    def in_shape(self, index):
        return self.graph.shapes[self.keys[index]]

    def out_shape(self, index=0):
        return self.graph.shapes[self.out_keys[index]]

    def in_dtype(self, index):
        return self.graph.dtypes[self.keys[index]]

    def out_dtype(self, index=0):
        return self.graph.dtypes[self.out_keys[index]]

    def in_varying(self, index):
        """Axes of input ``index`` whose size varies with the dynamic input dims."""
        return self.graph.varying.get(self.keys[index], frozenset())

    def out_varying(self, index=0):
        return self.graph.varying.get(self.out_keys[index], frozenset())

    def run(self, inputs):
        """symmod's own outputs of this node's operator on the arrays ``inputs``, hidden
        outputs included (for constants a translation needs, such as a sampling grid)."""
        return run_operator(self.node.new_operator(), [np.asarray(a) for a in inputs])

    def fail(self, reason):
        """Raise MXNetError naming this node and operator."""
        raise MXNetError("ONNX export: cannot export node '%s' (operator %s) to opset %d: %s"
                         % (self.name, self.op.name, self.graph.opset, reason))


class ExportGraph:
    """An ONNX graph under construction from a symmod Symbol.

    Parameters
    ----------
    sym : Symbol
    params : dict of str to numpy.ndarray
        Parameter arrays (``arg:`` / ``aux:`` prefixes already removed).
    input_shapes : dict of str to tuple
        Shapes of the graph inputs (variables not in ``params``).
    input_types : dict of str to numpy.dtype
    opset : int
    dynamic_dims : dict of str to dict of int to (str or None)
        Per input, the axes that may vary, mapped to their ONNX dimension name.
    """

    def __init__(self, sym, params, input_shapes, input_types, opset, dynamic_dims=None,
                 skip_inputs=(), verbose=False):
        self.sym = sym
        self.opset = opset
        self.verbose = verbose
        self.nodes_in_order = sym._nodes()
        self.onnx_nodes = []
        self.initializers = {}      # name -> array, in order of use
        self._used_names = set()
        self._entry_names = {}
        self.consts = {}            # entry key -> array
        self.params = params
        self.input_shapes = dict(input_shapes)
        self.input_types = dict(input_types)
        self.skip_inputs = set(skip_inputs)
        known = dict(self.input_shapes)
        known.update({name: value.shape for name, value in params.items()})
        self._known = known
        self.shapes = self._infer_shapes(known, complete=True)
        types = dict(self.input_types)
        types.update({name: value.dtype for name, value in params.items()})
        self.dtypes = infer_types(self.nodes_in_order, types)
        self.dynamic_dims = self._accept_dynamic(dynamic_dims or {})
        self.varying = self._find_varying()

    # ---- shapes ------------------------------------------------------------------------
    def _infer_shapes(self, known, complete):
        table = infer_shapes(self.nodes_in_order, known)
        if complete:
            for node in self.nodes_in_order:
                if node.op is None and node.name in self.skip_inputs:
                    continue
                count = 1 if node.op is None else len(node.operator().list_outputs())
                for i in range(count):
                    shape = table.get((id(node), i))
                    if shape is None:
                        raise MXNetError(
                            "ONNX export: cannot infer the shape of '%s' from the input "
                            "shapes %s; give every input's shape in in_shapes"
                            % (node.output_name(i), self.input_shapes))
        return table

    def _accept_dynamic(self, dynamic_dims):
        """Keep the dynamic input dimensions the graph's shapes can follow. Dimensions
        given the same name vary together (a batch axis shared by several inputs); an
        unnamed one varies alone."""
        self._perturbed = []
        groups = {}
        for name, axes in dynamic_dims.items():
            for axis, label in axes.items():
                key = ('named', label) if label is not None else ('alone', name, axis)
                groups.setdefault(key, []).append((name, axis, label))
        accepted = {}
        for members in groups.values():
            known = dict(self._known)
            for name, axis, _ in members:
                shape = list(known[name])
                shape[axis] *= 2
                known[name] = tuple(shape)
            try:
                table = self._infer_shapes(known, complete=True)
            except MXNetError as err:
                for name, axis, _ in members:
                    log.warning('ONNX export: dimension %d of input %s stays fixed at %d: '
                                'the graph cannot vary in it (%s)', axis, name,
                                self._known[name][axis], str(err).splitlines()[-1])
                continue
            self._perturbed.append(table)
            for name, axis, label in members:
                accepted.setdefault(name, {})[axis] = label
        return accepted

    def _find_varying(self):
        varying = {}
        for key, shape in self.shapes.items():
            axes = frozenset(a for table in self._perturbed for a, size in
                             enumerate(table.get(key, shape)) if size != shape[a])
            if axes:
                varying[key] = axes
        return varying

    def same_size(self, key_a, axis_a, key_b, axis_b):
        """Whether two entries' dimensions have equal sizes for every input size tried."""
        return all(table[key_a][axis_a] == table[key_b][axis_b]
                   for table in [self.shapes] + self._perturbed)

    def entry_sizes(self, key, axis):
        """The sizes of one dimension of an entry, for each input size tried."""
        return [table[key][axis] for table in [self.shapes] + self._perturbed]

    # ---- names and emitted pieces ----------------------------------------------------------
    def fresh(self, hint):
        """A tensor (or node) name not used yet, based on ``hint``."""
        name, count = hint, 0
        while name in self._used_names:
            count += 1
            name = '%s_%d' % (hint, count)
        self._used_names.add(name)
        return name

    def entry_name(self, node, index):
        key = (id(node), index)
        if key not in self._entry_names:
            hint = node.name if node.op is None else graph_output_name(node.output_name(index))
            self._entry_names[key] = self.fresh(hint)
        return self._entry_names[key]

    def tensor(self, key):
        """The ONNX name of a graph entry; a constant becomes an initializer on first use."""
        name = self._entry_names[key]
        if key in self.consts and name not in self.initializers:
            self.initializers[name] = self.consts[key]
        return name

    def constant(self, value, hint, dtype=None):
        """A new initializer holding ``value``; returns its name."""
        array = np.asarray(value, dtype=dtype)
        name = self.fresh(hint)
        self.initializers[name] = array
        return name

    def int64s(self, values, hint):
        """An int64 1-D initializer (shapes, axes, indices)."""
        return self.constant(np.asarray(values, dtype=np.int64).reshape(-1), hint)

    def add(self, op_type, inputs, outputs=None, hint=None, **attrs):
        """Emit one ONNX node; ``outputs`` None makes one fresh output named after ``hint``.

        Returns the output name (one output) or the list of output names.
        """
        helper = _deps.onnx().helper
        if outputs is None:
            outputs = [self.fresh(hint or op_type.lower())]
        elif isinstance(outputs, int):
            outputs = [self.fresh('%s_%d' % (hint or op_type.lower(), i))
                       for i in range(outputs)]
        else:
            outputs = list(outputs)
        node_name = self.fresh('%s/%s' % (outputs[0], op_type))
        self.onnx_nodes.append(helper.make_node(op_type, list(inputs), outputs,
                                                name=node_name, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    # ---- the walk ---------------------------------------------------------------------
    def build(self):
        """Translate every node; returns the ONNX GraphProto."""
        onnx = _deps.onnx()
        helper, numpy_helper = onnx.helper, onnx.numpy_helper
        graph_inputs = []
        self._walk(graph_inputs)
        outputs = self._graph_outputs()
        initializers = [numpy_helper.from_array(np.ascontiguousarray(array), name)
                        for name, array in self.initializers.items()]
        return helper.make_graph(self.onnx_nodes, 'mxnet_converted_model', graph_inputs,
                                 outputs, initializer=initializers)

    def _walk(self, graph_inputs):
        """Translate (or compute at export time) every node inference reads."""
        needed = self._needed_nodes()
        for node in self.nodes_in_order:
            if node.op is None and (id(node) in needed or node.name not in self.params):
                # an input only an output layer's label reads stays a graph input (unread),
                # as in MXNet's export: callers feed every input they gave a shape
                self._add_variable(node, graph_inputs)
                continue
            if id(node) not in needed:
                continue
            if node.op is None:
                self._add_variable(node, graph_inputs)
            elif self._foldable(node):
                self._fold(node)
            else:
                self._translate(node)

    def _needed_nodes(self):
        """ids of the nodes inference reads (labels of output layers are not)."""
        graph = build_graph(self.sym._outputs)
        graph.remove_edges_from([(node, child) for node in graph
                                 for i, (child, _) in enumerate(node.inputs)
                                 if i == _LABEL_INPUT.get(node.op)])
        heads = [node for node, _ in self.sym._outputs]
        needed = set().union(*(nx.descendants(graph, head) for head in heads))
        return {id(node) for node in needed.union(heads)}

    def _add_variable(self, node, graph_inputs):
        key = (id(node), 0)
        name = self.entry_name(node, 0)
        if node.name in self.params:
            self.consts[key] = self.params[node.name]
            return
        if node.name in self.skip_inputs:
            return
        shape = list(self.shapes[key])
        for axis, label in self.dynamic_dims.get(node.name, {}).items():
            shape[axis] = label
        graph_inputs.append(_deps.onnx().helper.make_tensor_value_info(
            name, _deps.tensor_type(self.dtypes[key]), shape))

    def _foldable(self, node):
        """Whether symmod can compute the node now: constant inputs (or none), and
        outputs whose shapes do not vary."""
        if node.op in _NO_FOLD or node.op.startswith(('_random', '_sample', '_image_random', '_shuffle')):
            return False
        keys = [(id(child), index) for child, index in node.inputs]
        outs = [(id(node), i) for i in range(len(node.operator().list_outputs()))]
        return (all(k in self.consts for k in keys)
                and not any(k in self.varying for k in outs))

    def _fold(self, node):
        """Compute a node whose inputs are all constants, with symmod's own kernel."""
        op = node.new_operator()
        count = len(op.list_outputs())
        inputs = [np.array(self.consts[(id(c), i)]) for c, i in node.inputs]
        outs = run_operator(op, inputs, [self.shapes[(id(node), i)] for i in range(count)],
                            [self.dtypes[(id(node), i)] for i in range(count)])
        for i, out in enumerate(outs):
            self.entry_name(node, i)
            self.consts[(id(node), i)] = out
        if self.verbose:
            log.info('ONNX export: computed %s (%s) at export time', node.name, node.op)

    def _translate(self, node):
        func = registry.lookup(node.op, self.opset)
        if func is None:
            raise MXNetError("ONNX export: cannot export node '%s' (operator %s) to opset "
                             "%d: %s" % (node.name, node.op, self.opset,
                                         self._why_not(node.op)))
        if self.verbose:
            log.info('ONNX export: converting %s (%s)', node.name, node.op)
        func(self, OpNode(self, node))

    def _why_not(self, op_name):
        refused = unsupported.reason(op_name)
        if refused is not None:
            return 'ONNX cannot express it: ' + refused
        since = registry.first_opset(op_name)
        if since is not None:
            return 'its translation needs opset %d or newer (opset_version=%d)' % (since,
                                                                                  since)
        return 'it has no ONNX translation'

    def _graph_outputs(self):
        helper = _deps.onnx().helper
        outputs, seen = [], set()
        for node, index in self.sym._outputs:
            key = (id(node), index)
            name = self.tensor(key)
            if node.op is None or name in seen or name in self.initializers:
                # an input, a constant or a repeated entry: give it its own output tensor
                name = self.add('Identity', [name], hint=graph_output_name(
                    node.output_name(index)) + '_out')
            seen.add(name)
            shape = [None if axis in self.varying.get(key, ()) else size
                     for axis, size in enumerate(self.shapes[key])]
            outputs.append(helper.make_tensor_value_info(
                name, _deps.tensor_type(self.dtypes[key]), shape))
        return outputs
