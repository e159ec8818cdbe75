"""Shape and type inference over a symbol graph.

Each operator fills what it can from what is known (``Operator.infer_shape`` /
``infer_type``, in both directions); the engine sweeps the graph forwards and
backwards until nothing changes, merging answers and reporting conflicts with
the node's name and the shapes involved.
"""
import numpy as np

from ..base import MXNetError, parse_tuple
from ..ops.registry import ShapeError, unify
from ..formats.dtypes import dtype_from_flag

__all__ = ['infer_shapes', 'infer_types', 'variable_shape_attr', 'variable_dtype_attr']

_MAX_SWEEPS = 32


def variable_shape_attr(node):
    """The shape a variable declares in its ``__shape__`` attribute, or None."""
    text = node.attrs.get('__shape__')
    if text is None:
        return None
    try:
        shape = parse_tuple(text)
    except ValueError as err:
        raise MXNetError('variable %s: bad __shape__ attribute (%s)'
                         % (node.name, str(err)[:200])) from None
    # -1 is NumPy-shape semantics' unknown dim, 0 the legacy one; both are unknown here
    return None if shape is None else tuple(max(d, 0) for d in shape)


def variable_dtype_attr(node):
    """The dtype a variable declares in its ``__dtype__`` attribute (a type flag), or None."""
    text = node.attrs.get('__dtype__')
    if text is None:
        return None
    try:
        return dtype_from_flag(int(text))
    except (ValueError, KeyError) as err:
        raise MXNetError('variable %s: __dtype__ must be an MXNet type flag (0 float32, '
                         '1 float64, ...), found %r (%s)'
                         % (node.name, text[:40], str(err)[:100])) from None


def _describe(names, values):
    return ', '.join('%s=%s' % (n, v) for n, v in zip(names, values))


def _run(nodes, table, kind):
    """Sweep ``nodes`` until the entry table (keyed by (id(node), index)) is stable."""
    def merge(key, value, node, what):
        if value is None:
            return False
        old = table.get(key)
        if kind == 'shape':
            try:
                new = unify(old, value)
            except ShapeError:
                raise MXNetError(
                    'Error in operator %s: shape inconsistent for %s: provided %s, inferred %s'
                    % (node.name, what, old, tuple(value))) from None
        else:
            if old is not None and np.dtype(old) != np.dtype(value):
                raise MXNetError('Error in operator %s: dtype inconsistent for %s: '
                                 'provided %s, inferred %s'
                                 % (node.name, what, np.dtype(old).name, np.dtype(value).name))
            new = np.dtype(value) if old is None else old
        if old is None or new != old:     # (np.dtype == None is true: test None first)
            table[key] = new
            return True
        return False

    op_nodes = [n for n in nodes if n.op is not None]
    for sweep in range(_MAX_SWEEPS):
        changed = False
        order = op_nodes if sweep % 2 == 0 else op_nodes[::-1]
        for node in order:
            op = node.operator()
            n_args = len(op.list_arguments())
            in_keys = [(id(c), i) for c, i in node.inputs]
            out_keys = [(id(node), i) for i in range(len(op.list_outputs()))]
            ins = [table.get(k) for k in in_keys[:n_args]]
            auxs = [table.get(k) for k in in_keys[n_args:]]
            outs = [table.get(k) for k in out_keys]
            try:
                if kind == 'shape':
                    new_in, new_out, new_aux = op.infer_shape(ins, outs, auxs)
                else:
                    new_in, new_out, new_aux = op.infer_type(ins, outs, auxs)
            except MXNetError as err:
                arg_names = op.list_arguments() + op.list_auxiliary_states()
                raise MXNetError('Error in operator %s: %s (input %ss: %s)'
                                 % (node.name, err, kind, _describe(arg_names, ins + auxs))) \
                    from None
            names = op.list_arguments() + op.list_auxiliary_states()
            for key, value, what in zip(in_keys, list(new_in) + list(new_aux), names):
                changed |= merge(key, value, node, 'input ' + what)
            for key, value, what in zip(out_keys, new_out, op.list_outputs()):
                changed |= merge(key, value, node, 'output ' + what)
        if not changed and sweep > 0:
            break
    return table


def infer_shapes(nodes, known):
    """Infer every entry's shape.

    Parameters
    ----------
    nodes : list of Node
        The graph in topological (post-) order.
    known : dict of str to tuple
        Shapes given for variables, by name.

    Returns
    -------
    dict
        (id(node), index) -> shape tuple (0 dims unknown) or absent when unknown.
    """
    table = {}
    for node in nodes:
        if node.op is None:
            shape = known.get(node.name)
            if shape is None:       # a shape given to infer_shape overrides __shape__
                shape = variable_shape_attr(node)
            if shape is not None:
                table[(id(node), 0)] = tuple(shape)
    return _run(nodes, table, 'shape')


def infer_types(nodes, known):
    """Infer every entry's dtype; ``known`` maps variable names to dtypes."""
    table = {}
    for node in nodes:
        if node.op is None:
            dtype = known.get(node.name)
            if dtype is None:
                dtype = variable_dtype_attr(node)
            if dtype is not None:
                table[(id(node), 0)] = np.dtype(dtype)
    return _run(nodes, table, 'type')
