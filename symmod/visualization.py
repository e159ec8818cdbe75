"""``mx.viz``: a printed layer table of a symbol (``print_summary``) and a Graphviz
drawing of its graph (``plot_network``)."""
import re
import warnings

import numpy as np

from .symbol import Symbol

__all__ = ['print_summary', 'plot_network']

# fill colours of the drawing, by kind of layer (MXNet's palette)
_COLORS = ('#8dd3c7', '#fb8072', '#ffffb3', '#bebada', '#80b1d3', '#fdb462', '#b3de69',
           '#fccde5')
_WEIGHT_SUFFIXES = ('_weight', '_bias', '_beta', '_gamma', '_moving_var', '_moving_mean',
                    '_running_var', '_running_mean')


def _attr_ints(text):
    """The integers in an attribute string such as ``'(5, 5)'``."""
    return [int(x) for x in re.findall(r'\d+', text)]


def _attr_param_count(node, attrs):
    """MXNet's parameter count from attributes alone (used when no shapes are given)."""
    bias = attrs.get('no_bias', 'False') != 'True'
    if node.op in ('Convolution', 'FullyConnected'):
        width = attrs['num_filter' if node.op == 'Convolution' else 'num_hidden']
        return int(width) if bias else 0
    if node.op == 'Embedding':
        return int(attrs['input_dim']) * int(attrs['output_dim'])
    return 0


def _param_count(node, input_names, arg_shapes):
    """Number of values in the node's parameter inputs: variable arguments that are not
    graph inputs (data given in ``shape``) nor the label of a loss operator."""
    op = node.operator()
    count = 0
    for index, (child, _) in enumerate(node.inputs[:len(op.list_arguments())]):
        if child.op is not None or child.name in input_names or (op.is_loss and index > 0):
            continue
        shape = arg_shapes.get(child.name)
        if shape:
            size = 1
            for dim in shape:
                size *= dim
            count += size
    return count


def _print_row(fields, positions):
    line = ''
    for field, end in zip(fields, positions):
        line = (line + str(field))[:end]
        line += ' ' * (end - len(line))
    print(line)


def print_summary(symbol, shape=None, line_length=120, positions=[.44, .64, .74, 1.]):  # pylint: disable=dangerous-default-value
    """Print a table of the layers of ``symbol``: name and operator, output shape,
    number of parameters and the layers feeding it.

    The layout is MXNet's. With ``shape``, parameter counts are exact (the sizes of each
    layer's weight, bias, gamma, beta... inputs from shape inference); without it, they
    are what the attributes alone tell (MXNet's rule: a bias size or an embedding table).

    Parameters
    ----------
    symbol : Symbol
        The network.
    shape : dict of str to tuple, optional
        Input shapes, e.g. ``{'data': (1, 1, 28, 28)}``.
    line_length : int, default 120
        Width of the table.
    positions : list of float or int
        Where each of the four columns ends: fractions of ``line_length`` (if the last
        is <= 1) or character positions.

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc')
    >>> mx.viz.print_summary(net, shape={'data': (1, 20)})      # doctest: +SKIP
    """
    if not isinstance(symbol, Symbol):
        raise TypeError('symbol must be Symbol')
    shape_dict, arg_shapes = {}, {}
    if shape is not None:
        internals = symbol.get_internals()
        arg_shape_list, out_shapes, _ = internals.infer_shape(**shape)
        if out_shapes is None:
            raise ValueError('Input shape is incomplete')
        shape_dict = dict(zip(internals.list_outputs(), out_shapes))
        arg_shapes = dict(zip(internals.list_arguments(), arg_shape_list))
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    nodes = symbol._nodes()
    first = nodes[0]    # MXNet shows the first node even when it is a variable
    print('_' * line_length)
    _print_row(['Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'], positions)
    print('=' * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node.op is None and node is not first:
            continue
        key = node.name if node.op is None else node.name + '_output'
        out_shape = shape_dict.get(key, ())[1:]
        previous, params = [], 0
        if node.op is not None:
            previous = [child.name for child, _ in node.inputs
                        if child.op is not None or child is first]
            params = (_param_count(node, shape, arg_shapes) if shape is not None
                      else _attr_param_count(node, node.attrs))
        total += params
        _print_row(['%s(%s)' % (node.name, node.op or 'null'),
                    'x'.join(str(d) for d in out_shape), params,
                    previous[0] if previous else ''], positions)
        for name in previous[1:]:
            _print_row(['', '', '', name], positions)
        print(('=' if i == len(nodes) - 1 else '_') * line_length)
    print('Total params: {params}'.format(params=total))
    print('_' * line_length)


def _node_label_and_color(node):
    """The text and fill colour of an operator node in the drawing."""
    attrs, op = node.attrs, node.op

    def dims(key, default):
        return 'x'.join(str(d) for d in _attr_ints(attrs[key])) if key in attrs else default
    if op == 'Convolution':
        return ('Convolution\n%s/%s, %s' % (dims('kernel', ''), dims('stride', '1'),
                                            attrs['num_filter']), _COLORS[1])
    if op == 'FullyConnected':
        return 'FullyConnected\n%s' % attrs['num_hidden'], _COLORS[1]
    if op == 'BatchNorm':
        return node.name, _COLORS[3]
    if op == 'Activation':
        return 'Activation\n%s' % attrs['act_type'], _COLORS[2]
    if op == 'LeakyReLU':
        return 'LeakyReLU\n%s' % attrs.get('act_type', 'Leaky'), _COLORS[2]
    if op == 'Pooling':
        return ('Pooling\n%s, %s/%s' % (attrs['pool_type'], dims('kernel', '[]'),
                                        dims('stride', '1')), _COLORS[4])
    if op in ('Concat', 'Flatten', 'Reshape'):
        return node.name, _COLORS[5]
    if op == 'Softmax':
        return node.name, _COLORS[6]
    return (attrs['op_type'] if op == 'Custom' else node.name), _COLORS[7]


def plot_network(symbol, title='plot', save_format='pdf', shape=None, dtype=None,
                 node_attrs={}, hide_weights=True):  # pylint: disable=dangerous-default-value
    """Draw the graph of ``symbol`` as a Graphviz digraph (needs the ``graphviz`` package).

    Parameters
    ----------
    symbol : Symbol
        The network.
    title : str, default 'plot'
        Name of the digraph.
    save_format : str, default 'pdf'
        Format used when the digraph is rendered.
    shape : dict of str to tuple, optional
        Input shapes; edges are then labelled with the shape flowing along them.
    dtype : dict of str to numpy dtype, optional
        Input types; edges are then labelled with the type too.
    node_attrs : dict of str to str, optional
        Graphviz attributes overriding the node defaults (box, 1.3 x 0.8034, filled).
    hide_weights : bool, default True
        Leave out weight, bias, gamma, beta and moving-statistics variables.

    Returns
    -------
    graphviz.Digraph

    Examples
    --------
    >>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc')
    >>> dot = mx.viz.plot_network(net, shape={'data': (1, 20)})     # doctest: +SKIP
    >>> dot.render('net')                                            # doctest: +SKIP
    """
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError('Draw network requires graphviz library') from None
    if not isinstance(symbol, Symbol):
        raise TypeError('symbol must be a Symbol')
    internals = symbol.get_internals()
    entries = [(id(node), index) for node, index in internals._outputs]
    shapes = types = None
    if shape is not None:
        _, out_shapes, _ = internals.infer_shape(**shape)
        if out_shapes is None:
            raise ValueError('Input shape is incomplete')
        shapes = dict(zip(entries, out_shapes))
    if dtype is not None:
        _, out_types, _ = internals.infer_type(**dtype)
        if out_types is None:
            raise ValueError('Input type is incomplete')
        types = dict(zip(entries, out_types))
    nodes = symbol._nodes()
    names = [node.name for node in nodes]
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        warnings.warn('There are multiple variables with the same name in your graph, this '
                      'may result in cyclic graph. Repeated names: ' + ','.join(repeated),
                      RuntimeWarning)
    defaults = {'shape': 'box', 'fixedsize': 'true', 'width': '1.3', 'height': '0.8034',
                'style': 'filled'}
    defaults.update(node_attrs)
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attr = dict(defaults)
        if node.op is None:
            if node.name.endswith(_WEIGHT_SUFFIXES):
                if hide_weights:
                    hidden.add(node.name)
                continue    # not drawn; shown as a bare oval by its edge unless hidden
            attr.update(shape='oval', fillcolor=_COLORS[0])
            label = node.name
        else:
            label, attr['fillcolor'] = _node_label_and_color(node)
        dot.node(name=node.name, label=label, **attr)
    for node in nodes:
        if node.op is None:
            continue
        inputs = node.inputs[:1] if node.op == '_contrib_BilinearResize2D' else node.inputs
        for child, index in inputs:
            if child.name in hidden:
                continue
            label = ''
            if shapes is not None:
                label = 'x'.join(str(d) for d in shapes[(id(child), index)][1:])
            if types is not None:
                label += '(%s)' % np.dtype(types[(id(child), index)]).name
            dot.edge(tail_name=node.name, head_name=child.name, dir='back', arrowtail='open',
                     label=label)
    return dot
