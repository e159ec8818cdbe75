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
            not all(isinstance(x, int) and not isinstance(x, bool) and abs(x) < 2 ** 31
                    for x in raw):
        raise MXNetError('%s: expected an entry [node_id, index(, version)], found %s'
                         % (where, _short(raw)))
    node_id, index = raw[0], raw[1]
    if not 0 <= node_id < limit:
        raise MXNetError('%s: node id %d out of range (must refer to one of the %d earlier '
                         'nodes)' % (where, node_id, limit))
    return node_id, index


def loads(text):
    """Read a symbol from MXNet JSON text; older layouts are upgraded as MXNet does."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise MXNetError('symbol JSON is nested too deeply') from None
    except ValueError as err:     # JSONDecodeError, and ints beyond Python's digit limit
        raise MXNetError('symbol JSON is not valid JSON: %s' % err) from None
    if not isinstance(data, dict) or not isinstance(data.get('nodes'), list) \
            or not isinstance(data.get('heads'), list):
        raise MXNetError('symbol JSON must be an object with the lists "nodes" and "heads"')
    version = _version(data.get('attrs'))
    raw_nodes = data['nodes']
    for i, raw in enumerate(raw_nodes):
        _check_raw_node(raw, i)
    unknown = sorted({n['op'] for n in raw_nodes
                      if n['op'] != 'null' and not registry.exists(n['op'])})
    if unknown:
        raise MXNetError('symbol JSON uses operators that symmod does not know: %s'
                         % ', '.join(unknown))
    nodes = []
    for i, raw in enumerate(raw_nodes):
        attrs = {}
        for key in ('param', 'attr', 'attrs'):
            attrs.update({k: _attr_text(v, i, raw['name'], k)
                          for k, v in (raw.get(key) or {}).items()})
        op = None if raw['op'] == 'null' else raw['op']
        node = Node(op, raw['name'], attrs)
        for raw_entry in raw.get('inputs', []):
            node_id, index = _entry(raw_entry, 'node %d (%s) input' % (i, raw['name']),
                                    len(raw_nodes), i)
            node.inputs.append((nodes[node_id], index))
            node.versions.append(raw_entry[2] if len(raw_entry) == 3 else 0)
        nodes.append(node)
    heads = [_entry(h, 'head', len(nodes), len(nodes)) for h in data['heads']]
    if not heads:
        raise MXNetError('symbol JSON has no heads')
    if version < MXNET_VERSION:
        _LOGGER.info('Loading symbol saved by previous version v%d.%d.%d. Attempting to '
                     'upgrade...', version // 10000, (version // 100) % 100, version % 100)
        _guarded(_upgrade, nodes, version)
    elif version > MXNET_VERSION:
        _LOGGER.warning('loading symbol saved by MXNet version %d with symmod, which writes '
                        '%d; may cause undefined behavior', version, MXNET_VERSION)
    for node in nodes:
        if node.op is not None:
            _guarded(_check_node, node)
    symbol = Symbol([(nodes[n], i) for n, i in heads])
    for (n, i) in heads:
        if not 0 <= i < nodes[n].num_outputs():
            raise MXNetError('head [%d, %d] refers to a missing output of node %s'
                             % (n, i, nodes[n].name))
    _graph.check_acyclic(_graph.build_graph(symbol._outputs))
    return symbol


def _version(graph_attrs):
    """The writer's MXNet version from the graph attributes (0.8.0 when absent)."""
    if graph_attrs is None:
        return 800
    if not isinstance(graph_attrs, dict):
        raise MXNetError('symbol JSON "attrs" must be an object, found %s'
                         % type(graph_attrs).__name__)
    if 'mxnet_version' not in graph_attrs:
        return 800
    value = graph_attrs['mxnet_version']
    if isinstance(value, list) and len(value) == 2 and isinstance(value[1], int) \
            and not isinstance(value[1], bool) and 0 <= value[1] < 10 ** 9:
        return value[1]
    raise MXNetError('symbol JSON has a malformed mxnet_version: %s (expected ["int", '
                     'a version number])' % _short(value))


def _short(value, limit=80):
    """A JSON value as short text for messages (never a 5000-digit repr)."""
    text = json.dumps(value) if not isinstance(value, int) or abs(value) < 10 ** 60 \
        else 'an int of %d bits' % value.bit_length()
    return text if len(text) <= limit else text[:limit] + '...'


def _check_raw_node(raw, i):
    """A node entry must be an object with string "op" and "name" and the right types."""
    if not isinstance(raw, dict) or not isinstance(raw.get('op'), str) \
            or not isinstance(raw.get('name'), str):
        raise MXNetError('node %d must be an object with the strings "op" and "name", found %s'
                         % (i, _short(raw)))
    for key in ('param', 'attr', 'attrs'):
        if raw.get(key) is not None and not isinstance(raw[key], dict):
            raise MXNetError('node %d (%s): "%s" must be an object, found %s'
                             % (i, raw['name'], key, _short(raw[key])))
    if not isinstance(raw.get('inputs', []), list):
        raise MXNetError('node %d (%s): "inputs" must be a list, found %s'
                         % (i, raw['name'], _short(raw['inputs'])))


def _attr_text(value, i, name, key):
    """Attribute values are strings in MXNet's files; numbers are accepted as text."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) \
            and (not isinstance(value, int) or abs(value) < 10 ** 60):
        return str(value)
    raise MXNetError('node %d (%s): attribute %s must be a string, found %s'
                     % (i, name, _short(key), _short(value)))


def _guarded(step, node_or_nodes, *args):
    """Run an operator-parsing step; a parameter Python cannot parse becomes an MXNetError
    naming the node (operators raise MXNetError themselves for most bad values)."""
    try:
        return step(node_or_nodes, *args)
    except (TypeError, ValueError, OverflowError, RecursionError, KeyError) as err:
        if isinstance(node_or_nodes, Node):
            where = 'node %s (%s)' % (node_or_nodes.name, node_or_nodes.op)
        else:
            where = 'upgrading the graph'
        raise MXNetError('%s: bad attribute value (%s: %s)'
                         % (where, type(err).__name__, str(err)[:200])) from None


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
