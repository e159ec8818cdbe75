"""MXNet 1.x symbol JSON: writing (byte-identical to MXNet's writer) and reading,
including the upgrade of files written by older MXNet versions (0.8 onwards).
"""
import json
import logging

from ..base import MXNetError
from ..ops import registry
from ..symbol.node import Node
from ..symbol.symbol import Symbol, HIDDEN_KEYS
from ..symbol import graph as _graph
from .atomic import atomic_write

_LOGGER = logging.getLogger(__name__)

__all__ = ['dumps', 'save', 'loads', 'load', 'MXNET_VERSION']

MXNET_VERSION = 10901           # files are written as MXNet 1.9.1 writes them


# ---- writing --------------------------------------------------------------------------------
class _Writer:
    """dmlc::JSONWriter's layout: objects and long arrays one item per line, items
    ending in ", ", two-space indentation, no trailing newline."""

    def __init__(self):
        self.parts = []
        self.level = 0

    def _newline(self):
        self.parts.append('\n' + '  ' * self.level)

    def container(self, items, multi_line, opener, closer, write_item):
        self.parts.append(opener)
        self.level += 1
        for i, item in enumerate(items):
            if i:
                self.parts.append(', ')
            if multi_line:
                self._newline()
            write_item(item)
        self.level -= 1
        if multi_line and items:
            self._newline()
        self.parts.append(closer)

    def string(self, text):
        self.parts.append(json.dumps(text, ensure_ascii=False))

    def value(self, value):
        if isinstance(value, str):
            self.string(value)
        elif isinstance(value, dict):
            self.object(value, len(value) > 1)
        elif isinstance(value, (list, tuple)):
            self.container(list(value), len(value) > 10, '[', ']', self.value)
        else:
            self.parts.append(str(value))

    def object(self, mapping, multi_line):
        def write_pair(key):
            self.string(key)
            self.parts.append(': ')
            self.value(mapping[key])
        self.container(list(mapping), multi_line, '{', '}', write_pair)


def _graph_dict(symbol):
    nodes = symbol._nodes()
    index = {id(n): i for i, n in enumerate(nodes)}
    node_dicts, row_ptr = [], [0]
    for node in nodes:
        entry = {'op': 'null' if node.op is None else node.op, 'name': node.name}
        if node.attrs:
            entry['attrs'] = {k: node.attrs[k] for k in sorted(node.attrs)}
        versions = node.versions if len(node.versions) == len(node.inputs) \
            else [0] * len(node.inputs)
        inputs = [[index[id(c)], i, v] for (c, i), v in zip(node.inputs, versions)]
        entry['inputs'] = inputs
        node_dicts.append(entry)
        row_ptr.append(row_ptr[-1] + node.num_outputs())
    return {
        'nodes': node_dicts,
        'arg_nodes': [i for i, n in enumerate(nodes) if n.op is None],
        'node_row_ptr': row_ptr,
        'heads': [[index[id(n)], i, 0] for n, i in symbol._outputs],
        'attrs': _graph_attrs(),
    }


def _graph_attrs():
    from ..util import is_np_shape
    attrs = {'mxnet_version': ['int', MXNET_VERSION]}
    if is_np_shape():       # MXNet marks graphs saved with NumPy-shape semantics
        attrs = {'is_np_shape': ['int', 1], 'mxnet_version': ['int', MXNET_VERSION]}
    return attrs


def dumps(symbol):
    """MXNet JSON text for ``symbol``, laid out exactly as MXNet 1.9.1 writes it."""
    graph = _graph_dict(symbol)
    writer = _Writer()

    def write_node(entry):
        writer.object(entry, True)

    writer.parts.append('{')
    writer.level = 1
    for i, key in enumerate(['nodes', 'arg_nodes', 'node_row_ptr', 'heads', 'attrs']):
        if i:
            writer.parts.append(', ')
        writer._newline()
        writer.string(key)
        writer.parts.append(': ')
        if key == 'nodes':
            writer.container(graph['nodes'], True, '[', ']', write_node)
        else:
            writer.value(graph[key])
    writer.level = 0
    writer._newline()
    writer.parts.append('}')
    return ''.join(writer.parts)


def save(symbol, fname):
    """Write ``symbol`` as MXNet JSON to ``fname`` (atomically)."""
    atomic_write(fname, dumps(symbol).encode('utf-8'))


# ---- reading --------------------------------------------------------------------------------
def load(fname):
    """Read a symbol from an MXNet JSON file."""
    try:
        with open(fname, 'rb') as f:
            text = f.read()
    except OSError as err:
        raise MXNetError('cannot read symbol file %s: %s' % (fname, err)) from None
    try:
        return loads(text.decode('utf-8'))
    except MXNetError as err:
        raise MXNetError('%s: %s' % (fname, err)) from None
    except UnicodeDecodeError as err:
        raise MXNetError('%s: symbol file is not UTF-8 text: %s' % (fname, err)) from None


def _entry(raw, where, n_nodes, limit):
    if not isinstance(raw, list) or len(raw) not in (2, 3) or \
            not all(isinstance(x, int) for x in raw):
        raise MXNetError('%s: expected an entry [node_id, index(, version)], found %r'
                         % (where, raw))
    node_id, index = raw[0], raw[1]
    if not 0 <= node_id < limit:
        raise MXNetError('%s: node id %d out of range (must refer to one of the %d earlier '
                         'nodes)' % (where, node_id, limit))
    return node_id, index


def loads(text):
    """Read a symbol from MXNet JSON text; older layouts are upgraded as MXNet does."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise MXNetError('symbol JSON is not valid JSON: %s' % err) from None
    if not isinstance(data, dict) or not isinstance(data.get('nodes'), list) \
            or 'heads' not in data:
        raise MXNetError('symbol JSON must be an object with "nodes" and "heads"')
    version = 800
    graph_attrs = data.get('attrs') or {}
    if 'mxnet_version' in graph_attrs:
        try:
            version = int(graph_attrs['mxnet_version'][1])
        except (TypeError, ValueError, IndexError):
            raise MXNetError('symbol JSON has a malformed mxnet_version: %r'
                             % (graph_attrs['mxnet_version'],)) from None
    unknown = sorted({n.get('op') for n in data['nodes'] if isinstance(n, dict)
                      and n.get('op') not in (None, 'null') and not registry.exists(n.get('op'))})
    if unknown:
        raise MXNetError('symbol JSON uses operators that symmod does not know: %s'
                         % ', '.join(unknown))
    nodes = []
    for i, raw in enumerate(data['nodes']):
        if not isinstance(raw, dict) or 'op' not in raw or 'name' not in raw:
            raise MXNetError('node %d must be an object with "op" and "name", found %r'
                             % (i, raw))
        attrs = {}
        for key in ('param', 'attr', 'attrs'):
            extra = raw.get(key) or {}
            if not isinstance(extra, dict):
                raise MXNetError('node %d (%s): "%s" must be an object' % (i, raw['name'], key))
            attrs.update({str(k): str(v) for k, v in extra.items()})
        op = None if raw['op'] == 'null' else raw['op']
        node = Node(op, str(raw['name']), attrs)
        for raw_entry in raw.get('inputs', []):
            node_id, index = _entry(raw_entry, 'node %d (%s) input' % (i, raw['name']),
                                    len(data['nodes']), i)
            node.inputs.append((nodes[node_id], index))
            node.versions.append(raw_entry[2] if len(raw_entry) == 3 else 0)
        nodes.append(node)
    heads = [_entry(h, 'head', len(nodes), len(nodes)) for h in data['heads']]
    if not heads:
        raise MXNetError('symbol JSON has no heads')
    if version < MXNET_VERSION:
        _LOGGER.info('Loading symbol saved by previous version v%d.%d.%d. Attempting to '
                     'upgrade...', version // 10000, (version // 100) % 100, version % 100)
        _upgrade(nodes, version)
    elif version > MXNET_VERSION:
        _LOGGER.warning('loading symbol saved by MXNet version %d with symmod, which writes '
                        '%d; may cause undefined behavior', version, MXNET_VERSION)
    for node in nodes:
        if node.op is not None:
            _check_node(node)
    symbol = Symbol([(nodes[n], i) for n, i in heads])
    for (n, i) in heads:
        if not 0 <= i < nodes[n].num_outputs():
            raise MXNetError('head [%d, %d] refers to a missing output of node %s'
                             % (n, i, nodes[n].name))
    _graph.check_acyclic(_graph.build_graph(symbol._outputs))
    return symbol


def _check_node(node):
    op = node.operator()
    expected = len(op.list_arguments()) + len(op.list_auxiliary_states())
    if len(node.inputs) != expected:
        raise MXNetError('node %s (%s) has %d inputs, the operator takes %d (%s)'
                         % (node.name, node.op, len(node.inputs), expected,
                            ', '.join(op.list_arguments() + op.list_auxiliary_states())))
    for child, index in node.inputs:
        if not 0 <= index < child.num_outputs():
            raise MXNetError('node %s uses output %d of %s, which has %d outputs'
                             % (node.name, index, child.name, child.num_outputs()))


def _upgrade(nodes, version):
    """Apply MXNet's JSON upgrades for files older than 1.9.1, in MXNet's order."""
    for node in nodes:
        _fix_hidden_keys(node)
    if version < 900:
        for node in nodes:
            if node.op is None:
                continue
            op = node.operator()
            names = op.list_arguments() + op.list_auxiliary_states()
            for input_name in names[len(node.inputs):]:
                var = Node(None, '%s_%s' % (node.name, input_name) if node.name else input_name,
                           dict(node.attrs))
                node.inputs.append((var, 0))
                node.versions.append(0)
    if version < 904:
        for node in nodes:
            if node.op is None:
                continue
            op = node.operator()
            for index, (child, _) in enumerate(node.inputs):
                extra = op.input_var_attrs(index) if child.op is None else None
                if extra:
                    child.set_attrs({k: v for k, v in extra.items() if k not in child.attrs})


def _fix_hidden_keys(node):
    """Old files store ``lr_mult`` (or ``weight_lr_mult`` on an operator): move them to
    ``__lr_mult__`` on the node (or on the named input variable)."""
    for key in list(node.attrs):
        for hidden in HIDDEN_KEYS:
            if key == hidden:
                node.attrs['__%s__' % hidden] = node.attrs.pop(key)
                break
            if key.endswith('_' + hidden) and len(key) > len(hidden) + 1:
                if node.op is not None:
                    input_name = key[:-len(hidden) - 1]
                    names = node.operator().list_arguments()
                    if input_name in names and names.index(input_name) < len(node.inputs):
                        child = node.inputs[names.index(input_name)][0]
                        if child.op is None:
                            child.attrs['__%s__' % hidden] = node.attrs.pop(key)
                break
    node._operator = None
