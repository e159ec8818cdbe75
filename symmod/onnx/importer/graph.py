"""The walk from an ONNX graph to a symmod Symbol.

:class:`ImportGraph` keeps, per ONNX tensor name, either a constant array (an
initializer, a ``Constant`` node, or a node whose inputs are all constants, computed
with ONNX's reference evaluator) or a symmod Symbol. Translators (one module per
family) read constants as operator parameters (Reshape's shape, Slice's bounds, Clip's
limits) and ask for Symbols where a tensor flows; a constant used as a tensor becomes
a variable whose value goes to ``arg_params`` / ``aux_params``. Static shapes from
ONNX's shape inference are there for the few mappings that need them.

Every operator of the graph is checked before anything is translated, so a model with
several unsupported operators names them all in one error.
"""
import numpy as np

from ...base import MXNetError
from .. import _deps
from . import registry

__all__ = ['ImportGraph', 'ImportNode']


class ImportNode:
    """One ONNX node as a translator sees it."""

    def __init__(self, graph, proto):
        onnx = _deps.onnx()
        self.graph = graph
        self.proto = proto
        self.op_type = proto.op_type
        self.inputs = list(proto.input)
        self.outputs = list(proto.output)
        self.attrs = {a.name: _attr_value(onnx.helper.get_attribute_value(a))
                      for a in proto.attribute}
        self.name = graph.unique_name(self.outputs[0] if self.outputs and self.outputs[0]
                                      else proto.name or self.op_type.lower())

    def has(self, index):
        return index < len(self.inputs) and self.inputs[index] != ''

    def sym(self, index):
        """Input ``index`` as a Symbol (a constant becomes a parameter variable)."""
        return self.graph.symbol(self.inputs[index])

    def const(self, index):
        """Input ``index`` as an array if it is a constant, else None."""
        if not self.has(index):
            return None
        return self.graph.consts.get(self.inputs[index])

    def required_const(self, index, what):
        value = self.const(index)
        if value is None:
            self.fail('its %s (input %d) must be a constant' % (what, index))
        return value

    def shape(self, index):
        """The static shape of input ``index`` (None entries for unknown dims), or None."""
        return self.graph.shapes.get(self.inputs[index])

    def out_shape(self, index=0):
        return self.graph.shapes.get(self.outputs[index])

    def fail(self, reason):
        raise MXNetError("ONNX import: cannot import node '%s' (%s): %s"
                         % (self.proto.name or self.outputs[0], self.op_type, reason))


def _reads(proto):
    """The tensors a node reads: its inputs and, for If / Loop / Scan, the enclosing
    graphs' tensors its bodies use (so a loop over data is never taken for a constant)."""
    names = [n for n in proto.input if n]
    for attr in proto.attribute:
        for body in ([attr.g] if attr.HasField('g') else []) + list(attr.graphs):
            names.extend(_outer_reads(body))
    return names


def _outer_reads(graph):
    """Names a graph uses that neither its inputs, initializers nor nodes define."""
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    used = []
    for node in graph.node:
        used.extend(n for n in _reads(node) if n not in defined)
        defined.update(node.output)
    return used


def _value_infos(graph):
    """The value infos of a graph and of the graphs its nodes hold (If, Loop, Scan
    bodies: ONNX's shape inference annotates them too; tensor names are unique across
    the model)."""
    infos = list(graph.input) + list(graph.value_info) + list(graph.output)
    for node in graph.node:
        for attr in node.attribute:
            for body in ([attr.g] if attr.HasField('g') else []) + list(attr.graphs):
                infos.extend(_value_infos(body))
    return infos


def _attr_value(value):
    if isinstance(value, bytes):
        return value.decode('utf-8')
    if isinstance(value, list):
        return [_attr_value(v) for v in value]
    return value


class ImportGraph:
    """Translate an ONNX ``GraphProto`` at ``opset`` into symmod."""

    def __init__(self, graph, opset):
        onnx = _deps.onnx()
        self.graph = graph
        self.opset = opset
        self.consts = {}        # tensor name -> numpy array
        self.symbols = {}       # tensor name -> Symbol
        self.input_symbols = {}  # graph input name -> the Symbol that stands for it
        self.param_values = {}  # variable name -> numpy array (constants used as tensors)
        self.shape_of = {}      # tensor name -> name of the tensor whose Shape it is
        self.dims_of = {}       # tensor name -> (tensor name, axes): some of its Shape
        self._used = set()
        for tensor in graph.initializer:
            if not tensor.name.strip():
                raise MXNetError("ONNX import: an initializer has no name (a tensor's name is "
                                 "required)")
            try:
                self.consts[tensor.name] = onnx.numpy_helper.to_array(tensor)
            except (ValueError, TypeError, IndexError) as err:
                raise MXNetError("ONNX import: initializer '%s' (dims %s) cannot be read: %s"
                                 % (tensor.name, list(tensor.dims), err)) from None
            self._used.add(tensor.name)
        for value_info in graph.input:
            self._used.add(value_info.name)
        self.shapes = {}
        self.types = {}         # tensor name -> numpy dtype, where ONNX inference knows it

    # ---- names, shapes, symbols -----------------------------------------------------------
    def unique_name(self, hint):
        name, count = hint, 0
        while name in self._used:
            count += 1
            name = '%s_%d' % (hint, count)
        self._used.add(name)
        return name

    def infer_static_shapes(self, model):
        """Record the shapes ONNX's shape inference finds (unknown dims as None)."""
        onnx = _deps.onnx()
        try:
            inferred = onnx.shape_inference.infer_shapes(model)
        except Exception:  # noqa: BLE001  (a model ONNX cannot infer still imports)
            inferred = model
        for info in _value_infos(inferred.graph):
            t = info.type.tensor_type
            if t.elem_type:
                try:
                    self.types[info.name] = _deps.numpy_type(t.elem_type)
                except (KeyError, ValueError, TypeError):
                    raise MXNetError("ONNX import: tensor '%s' has an unknown element type %r"
                                     % (info.name, t.elem_type)) from None
            if t.HasField('shape'):
                self.shapes[info.name] = tuple(d.dim_value if d.HasField('dim_value') else None
                                               for d in t.shape.dim)
        for name, value in self.consts.items():
            self.shapes[name] = value.shape or (1,)     # a 0-d constant becomes (1,)
            self.types[name] = value.dtype

    def symbol(self, name):
        """The Symbol of tensor ``name``; a constant becomes a variable (a parameter)."""
        from ... import symbol as sym
        if name in self.symbols:
            return self.symbols[name]
        if name in self.consts:
            value = self.consts[name]
            if value.ndim == 0:
                value = value.reshape(1)
            self.param_values[name] = value
            self.symbols[name] = sym.var(name, shape=value.shape, dtype=value.dtype)
            return self.symbols[name]
        raise MXNetError("ONNX import: tensor '%s' is used before any node produces it" % name)

    def new_param(self, hint, value):
        """A new parameter variable holding ``value`` (reordered weights and the like)."""
        from ... import symbol as sym
        name = self.unique_name(hint)
        self.param_values[name] = np.ascontiguousarray(value)
        return sym.var(name, shape=value.shape, dtype=value.dtype)

    def readers(self, name):
        """The operator types of the nodes (of this graph and the graphs they hold) that
        read tensor ``name``."""
        return [proto.op_type for proto in self.graph.node if name in _reads(proto)]

    # ---- the walk ----------------------------------------------------------------------
    def check_supported(self):
        """Raise MXNetError listing every operator type the model uses that symmod cannot
        import (nodes computable from constants alone do not count)."""
        missing = {}
        known = set(self.consts)
        for proto in self.graph.node:
            names = _reads(proto)
            if proto.op_type == 'Constant' or names and all(n in known for n in names):
                known.update(proto.output)
                continue
            label = str(proto.name or (proto.output[0] if proto.output else '?'))
            if registry.lookup(proto.op_type) is None:
                missing.setdefault(str(proto.op_type), []).append(label)
            if proto.domain not in ('', 'ai.onnx'):
                missing.setdefault('%s:%s' % (proto.domain, proto.op_type), []).append(label)
        if missing:
            listing = ', '.join('%s (%s)' % (op, ', '.join(nodes[:3]) +
                                             (', ...' if len(nodes) > 3 else ''))
                                for op, nodes in sorted(missing.items()))
            raise MXNetError('ONNX import: %d operator type(s) of this model have no symmod '
                             'translation: %s' % (len(missing), listing))

    def build(self):
        """Translate every node; returns the output Symbol (a Group for several outputs)."""
        from ... import symbol as sym
        self.check_supported()
        initialized = set(self.consts)
        for value_info in self.graph.input:
            if not isinstance(value_info.name, str) or not value_info.name:
                raise MXNetError('ONNX import: a graph input has no readable name (found %r)'
                                 % (value_info.name,))
            if value_info.name not in initialized:
                given = self.input_symbols.get(value_info.name)
                self.symbols[value_info.name] = sym.var(value_info.name) if given is None \
                    else given
        for proto in self.graph.node:
            try:
                if self._fold(proto):
                    continue
                node = ImportNode(self, proto)
                results = registry.lookup(proto.op_type)(self, node)
            except (IndexError, KeyError, TypeError, ValueError, OverflowError) as err:
                # a node whose inputs or attributes are not what its translator reads
                raise MXNetError("ONNX import: cannot import node '%s' (%s): %s: %s"
                                 % (proto.name, proto.op_type, type(err).__name__, err)) from None
            if not isinstance(results, (list, tuple)):
                results = [results]
            for name, result in zip(node.outputs, results):
                if name and result is not None:
                    self.symbols[name] = result
        outputs = [self._output(info.name) for info in self.graph.output]
        if not outputs:
            raise MXNetError('ONNX import: the graph has no outputs')
        return outputs[0] if len(outputs) == 1 else sym.Group(outputs)

    def _output(self, name):
        if name in self.symbols:
            return self.symbols[name]
        if name in self.consts:
            return self.symbol(name)
        raise MXNetError("ONNX import: graph output '%s' is not produced by any node" % name)

    def _fold(self, proto):
        """Compute a Constant node, or a node whose inputs are all constants."""
        onnx = _deps.onnx()
        if proto.op_type == 'Constant':
            attr = proto.attribute[0]
            value = onnx.helper.get_attribute_value(attr)
            if attr.name == 'value':
                value = onnx.numpy_helper.to_array(value)
            self.consts[proto.output[0]] = np.asarray(value)
            return True
        names = _reads(proto)
        if not names or not all(n in self.consts for n in names) or proto.op_type in (
                'RandomNormal', 'RandomUniform', 'RandomNormalLike', 'RandomUniformLike',
                'Multinomial', 'Dropout'):
            return False
        from onnx.reference import ReferenceEvaluator
        try:
            results = ReferenceEvaluator(proto, opsets={'': self.opset}).run(
                None, {n: self.consts[n] for n in names})
        except Exception:  # noqa: BLE001  (leave it to the translator)
            return False
        for name, value in zip(proto.output, results):
            if name:
                self.consts[name] = np.asarray(value)
        return True
