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
The JSON is only parsed, never executed.
"""
import json
import os

from ..base import MXNetError
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
    tmp = prefix + '-model.json.tmp'
    with open(tmp, 'w') as f:
        json.dump(model, f)
    os.replace(tmp, prefix + '-model.json')
    block.save_parameters(prefix + '-model.params')


def load_block(block, prefix):
    """Apply ``<prefix>-model.json`` to ``block`` (same class tree) and load
    ``<prefix>-model.params``."""
    from .hybrid_block import HybridBlock
    with open(prefix + '-model.json') as f:
        try:
            model = json.load(f)
        except ValueError as err:
            raise MXNetError('%s-model.json is not valid JSON: %s' % (prefix, err)) from None
    index = [0]

    def apply(blk, parent):
        key = _structure_key(blk, index[0])
        if not isinstance(parent, dict) or key not in parent:
            raise MXNetError('%s-model.json does not describe this model: no entry %r '
                             '(the saved model has %s)'
                             % (prefix, key, sorted(k for k in parent if k != 'children')))
        entry = parent[key]
        blk._name = entry['orig_name']
        if isinstance(blk, HybridBlock) and entry.get('hybridized'):
            blk._in_format = entry['in_format']
            blk._out_format = entry['out_format']
            blk._cached_graph = ([load_json(text) for text in entry['inputs']],
                                 load_json(entry['symbol']))
            blk._active = True
        own = blk.params._params
        for old_name in list(own.keys()):
            param = own.pop(old_name)
            own[blk.name + '_' + old_name[len(blk.params.prefix):]] = param
        for child in blk._children.values():
            index[0] += 1
            apply(child, entry)
        saved_children = entry['children']
        for attr_name in list(blk._children.keys()):
            child = blk._children.pop(attr_name)
            blk._children[saved_children.get(child.name, attr_name)] = child

    apply(block, model)
    block.load_parameters(prefix + '-model.params')
