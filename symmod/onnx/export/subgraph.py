"""Graphs held inside one node (``_CachedOp``, the control-flow bodies), translated
with the same translators as the enclosing graph.

A :class:`SubGraph` walks the held symbol like :class:`ExportGraph` walks a model, but
its variables are tensors that already exist: the enclosing graph's tensors (inlined,
or read from an ONNX subgraph through outer scope) or the inputs of an ONNX body graph
(a loop's state, a scan slice). Tensor names and initializers are shared with the
enclosing graph, so every name is unique in the model and constants live once, at the
top. Which dimensions vary is inferred from the enclosing graph's input sizes tried,
mapped onto the held graph's variables by the caller.
"""
import numpy as np

from ...base import MXNetError
from ...symbol.infer import infer_types
from .. import _deps
from .graph import ExportGraph

__all__ = ['Feed', 'SubGraph', 'node_known_tables']


class Feed:
    """What one variable of a held graph reads: the ONNX tensor ``name`` of ``shape``
    and ``dtype``; ``const`` is its array when it is a constant of the enclosing graph."""

    def __init__(self, name, shape, dtype, const=None):
        self.name, self.shape, self.dtype, self.const = name, tuple(shape), np.dtype(dtype), const


def node_known_tables(node, shape_of):
    """For each input size the enclosing graph tried beyond the given one, the known
    shapes of the held graph's variables: ``shape_of(i, shape)`` maps node input ``i``'s
    shape to ``{variable name: shape}`` (several variables, or none)."""
    g = node.graph
    tables = []
    for table in g._perturbed:
        known = {}
        for i, key in enumerate(node.keys):
            known.update(shape_of(i, table[key]))
        tables.append(known)
    return tables


class SubGraph(ExportGraph):
    """A held symbol translated into ``parent``'s model.

    Parameters
    ----------
    parent : ExportGraph
    sym : Symbol
    feeds : dict of str to Feed
        One per variable of ``sym``.
    known_tables : list of dict
        Variable shapes for each input size the parent tried (see
        :func:`node_known_tables`); the held graph's varying dimensions follow from them.
    inline : bool
        Emit the nodes into the parent's node list (else into a list of its own, for an
        ONNX body graph).
    """

    def __init__(self, parent, sym, feeds, known_tables=(), inline=True):
        # the attributes ExportGraph.__init__ sets, shared with the parent where a model
        # needs one namespace
        self.sym, self.opset, self.verbose = sym, parent.opset, parent.verbose
        self.parent = parent
        self.nodes_in_order = sym._nodes()
        self.onnx_nodes = parent.onnx_nodes if inline else []
        self.initializers = parent.initializers
        self._used_names = parent._used_names
        self._entry_names = {}
        self.consts = {}
        self.feeds = dict(feeds)
        missing = [n for n in sym.list_inputs() if n not in self.feeds]
        if missing:
            raise MXNetError('ONNX export: the held graph reads %s, which its node does not '
                             'feed' % missing)
        self.params = {n: f.const for n, f in self.feeds.items() if f.const is not None}
        self.input_shapes = {n: f.shape for n, f in self.feeds.items() if f.const is None}
        self.input_types = {n: f.dtype for n, f in self.feeds.items() if f.const is None}
        self.skip_inputs = set()
        self._known = {n: f.shape for n, f in self.feeds.items()}
        self.shapes = self._infer_shapes(self._known, complete=True)
        self.dtypes = infer_types(self.nodes_in_order, {n: f.dtype for n, f in self.feeds.items()})
        self.dynamic_dims = {}
        self._perturbed = []
        for known in known_tables:
            full = dict(self._known)
            full.update(known)
            self._perturbed.append(self._infer_shapes(full, complete=True))
        self.varying = self._find_varying()

    def _add_variable(self, node, graph_inputs):
        key = (id(node), 0)
        feed = self.feeds[node.name]
        self._entry_names[key] = feed.name
        if feed.const is not None:
            self.consts[key] = feed.const

    def translate(self):
        """Emit the held graph's nodes; returns the ONNX names of its outputs (each a
        tensor of its own, as a body graph's outputs must be)."""
        self._walk(None)
        names = []
        for node, index in self.sym._outputs:
            name = self.tensor((id(node), index))
            if node.op is None or name in names or name in self.initializers:
                name = self.add('Identity', [name], hint=name + '_out')
            names.append(name)
        return names

    def value_info(self, index, name=None):
        """The ONNX value info of output ``index`` (varying dims unnamed)."""
        node, i = self.sym._outputs[index]
        key = (id(node), i)
        shape = [None if a in self.varying.get(key, ()) else s
                 for a, s in enumerate(self.shapes[key])]
        return _deps.onnx().helper.make_tensor_value_info(
            name, _deps.tensor_type(self.dtypes[key]), shape)

    def body(self, name, inputs, outputs):
        """The ONNX GraphProto of a body: ``inputs`` are value infos, ``outputs`` the
        (name, value info) pairs of :meth:`translate`'s outputs."""
        return _deps.onnx().helper.make_graph(self.onnx_nodes, name, inputs, outputs)


def value_info(name, shape, dtype, varying=()):
    """A tensor value info with the ``varying`` axes unnamed."""
    shape = [None if a in varying else s for a, s in enumerate(shape)]
    return _deps.onnx().helper.make_tensor_value_info(name, _deps.tensor_type(dtype), shape)
