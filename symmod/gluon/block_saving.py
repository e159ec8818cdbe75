"""``Block.save`` / ``Block.load``: a model's structure and Parameters in two files, in
MXNet 1.9.1's format.

``<prefix>-model.json`` describes the block tree: per block (keyed ``<class><index>``
in depth-first order, nested under its parent) its original name, its children's
attribute names, and for a HybridBlock whether it was hybridized and, if so, its cached
graph (input and output symbols as symbol JSON, the input/output formats).
``<prefix>-model.params`` holds the Parameters as ``save_parameters`` writes them.

Loading applies this to a block of the same class tree: names, child attribute names
and Parameter names are taken from the file, hybridized blocks get their saved graph
(so they run without calling ``hybrid_forward`` again), then the Parameters are loaded.
The JSON is only parsed, never executed, and checked as it is applied: a file that does
not describe the block (wrong types, formats that do not match the saved inputs and
outputs, a graph reading a Parameter the block lacks) is an MXNetError naming the file
and the entry.
"""
import json

from ..base import MXNetError
from ..formats.atomic import atomic_write
from ..symbol import load_json

__all__ = ['save_block', 'load_block']


def _structure_key(block, index):
    return type(block).__name__.lower() + str(index)


def save_block(block, prefix):
    """Write ``<prefix>-model.json`` and ``<prefix>-model.params`` for ``block``."""
    from .hybrid_block import HybridBlock
    model = {}
    index = [0]

    def describe(blk, parent):
        entry = {'orig_name': blk.name}
        parent[_structure_key(blk, index[0])] = entry
        if isinstance(blk, HybridBlock):
            entry['hybridized'] = bool(blk._cached_graph)
            if blk._cached_graph:
                inputs, out = blk._cached_graph
                entry['in_format'] = blk._in_format
                entry['out_format'] = blk._out_format
                entry['inputs'] = [sym.tojson() for sym in inputs]
                entry['symbol'] = out.tojson()
        children = {}
        entry['children'] = children
        for attr_name, child in blk._children.items():
            index[0] += 1
            children[child.name] = attr_name
            describe(child, entry)

    describe(block, model)
    atomic_write(prefix + '-model.json', json.dumps(model))
    block.save_parameters(prefix + '-model.params')


class _Checked:
    """Reads the entries of one ``-model.json``, raising MXNetError naming the file and
    the entry for anything that is not what ``save_block`` writes."""

    _MAX_DEPTH = 32

    def __init__(self, fname):
        self.fname = fname

    def fail(self, where, expected, found):
        text = repr(found)
        if len(text) > 60:
            text = text[:57] + '...'
        raise MXNetError('%s: %s must be %s, found %s' % (self.fname, where, expected, text))

    def get(self, entry, key, where, kind, expected, default=None, required=True):
        if key not in entry:
            if required:
                raise MXNetError('%s: %s has no %r' % (self.fname, where, key))
            return default
        value = entry[key]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            self.fail('%s[%r]' % (where, key), expected, value)
        return value

    def format_items(self, fmt, where, allowed, depth=0):
        """The number of flat inputs or outputs a saved format describes."""
        if isinstance(fmt, list) and depth < self._MAX_DEPTH:
            return sum(self.format_items(item, where, allowed, depth + 1) for item in fmt)
        if isinstance(fmt, int) and not isinstance(fmt, bool) and allowed(fmt):
            return 1 if fmt <= 0 else fmt
        return self.fail(where, 'a (nested) list of format codes as Block.save writes',
                         fmt)

    def symbol(self, text, where):
        if not isinstance(text, str):
            self.fail(where, 'symbol JSON text', text)
        try:
            return load_json(text)
        except MXNetError as err:
            raise MXNetError('%s: %s: %s' % (self.fname, where, err)) from None

    def cached_graph(self, entry, where):
        """``(inputs, symbol, in_format, out_format)`` of a hybridized block's entry."""
        texts = self.get(entry, 'inputs', where, list, 'a list of symbol JSON texts')
        inputs = [self.symbol(text, "%s['inputs'][%d]" % (where, i))
                  for i, text in enumerate(texts)]
        for i, var in enumerate(inputs):
            if var.list_inputs() != [var.name] or len(var.list_outputs()) != 1:
                self.fail("%s['inputs'][%d]" % (where, i), 'a variable', var.list_outputs())
        if not inputs or len({var.name for var in inputs}) != len(inputs):
            self.fail(where + "['inputs']", 'distinct variables, at least one',
                      [var.name for var in inputs])
        out = self.symbol(entry.get('symbol'), where + "['symbol']")
        in_format = entry.get('in_format')
        ins = self.format_items(in_format, where + "['in_format']", lambda c: c in (0, -1))
        real = ins - _count_none(in_format)
        if real != len(inputs):
            self.fail(where + "['in_format']", 'a format of %d inputs' % len(inputs), in_format)
        out_format = entry.get('out_format')
        outs = self.format_items(out_format, where + "['out_format']", lambda c: c >= 0)
        if outs != len(out.list_outputs()):
            self.fail(where + "['out_format']", 'a format of the symbol\'s %d outputs'
                      % len(out.list_outputs()), out_format)
        return inputs, out, in_format, out_format


def _count_none(fmt):
    if isinstance(fmt, list):
        return sum(_count_none(item) for item in fmt)
    return int(fmt == -1)


def load_block(block, prefix):
    """Apply ``<prefix>-model.json`` to ``block`` (same class tree) and load
    ``<prefix>-model.params``."""
    from .hybrid_block import HybridBlock
    fname = prefix + '-model.json'
    try:
        with open(fname, encoding='utf-8') as f:
            model = json.load(f)
    except OSError as err:
        raise MXNetError('%s: cannot read the file: %s' % (fname, err)) from None
    except (ValueError, RecursionError) as err:
        raise MXNetError('%s-model.json is not valid JSON: %s' % (prefix, err)) from None
    check = _Checked(fname)
    index = [0]
    hybridized = []

    def apply(blk, parent, where):
        key = _structure_key(blk, index[0])
        if key not in parent:
            raise MXNetError('%s-model.json does not describe this model: no entry %r '
                             '(the saved model has %s)'
                             % (prefix, key, sorted(k for k in parent if k != 'children')))
        where = '%s[%r]' % (where, key)
        entry = parent[key]
        if not isinstance(entry, dict):
            check.fail(where, 'a dict describing a %s' % type(blk).__name__, entry)
        name = check.get(entry, 'orig_name', where, str, 'a block name')
        saved_children = check.get(entry, 'children', where, dict, 'a dict')
        if not all(isinstance(v, str) for v in saved_children.values()):
            check.fail(where + "['children']", 'a dict of attribute names', saved_children)
        blk._name = name
        if isinstance(blk, HybridBlock) and check.get(
                entry, 'hybridized', where, bool, 'true or false', False, required=False):
            inputs, out, blk._in_format, blk._out_format = check.cached_graph(entry, where)
            blk._cached_graph = (inputs, out)
            blk._active = True
            hybridized.append((blk, where))
        own = blk.params._params
        for old_name in list(own.keys()):
            param = own.pop(old_name)
            own[blk.name + '_' + old_name[len(blk.params.prefix):]] = param
        for child in blk._children.values():
            index[0] += 1
            apply(child, entry, where)
        renamed = [(saved_children.get(child.name, attr_name), child)
                   for attr_name, child in blk._children.items()]
        if len({attr_name for attr_name, _ in renamed}) != len(renamed):
            check.fail(where + "['children']", 'distinct attribute names', saved_children)
        blk._children.clear()
        blk._children.update(renamed)

    if not isinstance(model, dict):
        check.fail('the model', 'a dict', model)
    apply(block, model, 'model')
    for blk, where in hybridized:
        inputs, out = blk._cached_graph
        known = set(blk.collect_params().keys()) | {var.name for var in inputs}
        unknown = [name for name in out.list_inputs() if name not in known]
        if unknown:
            raise MXNetError('%s: the graph of %s reads %s, which is neither an input nor a '
                             'Parameter of the block' % (fname, where, ', '.join(unknown)))
    block.load_parameters(prefix + '-model.params')
