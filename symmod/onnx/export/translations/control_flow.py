"""Nodes that hold graphs: ``_CachedOp`` (inlined), ``_foreach`` (ONNX Scan),
``_while_loop`` (ONNX Loop) and ``_cond`` (ONNX If).

The held graphs are translated by :class:`..subgraph.SubGraph` with the same
translators; a body reads the enclosing graph's tensors (its free variables and
parameters) through ONNX's outer scope.
"""
import numpy as np

from ..registry import translator
from ..subgraph import Feed, SubGraph, node_known_tables, value_info
from .common import cast, reshape_to, slice_axes

__all__ = []


def _outer_feed(node, i):
    """Feed of a held graph's variable that reads node input ``i`` as it is."""
    return Feed(node.input(i), node.in_shape(i), node.in_dtype(i), node.const(i))


def _by_locs(names, locs):
    """{variable name: node input} for ``names[k]`` reading node input ``locs[k]``."""
    return {name: loc for name, loc in zip(names, locs)}


@translator('_CachedOp')
def cached_op(g, node):
    """The held graph's nodes in place of the node."""
    graph = node.op.graph
    names = graph.list_arguments() + graph.list_auxiliary_states()
    feeds = {name: _outer_feed(node, i) for i, name in enumerate(names)}
    tables = node_known_tables(node, lambda i, shape: {names[i]: shape})
    outs = SubGraph(g, graph, feeds, tables).translate()
    for out, target in zip(outs, node.outputs):
        g.add('Identity', [out], [target])


def _condition(g, node, cond_sym, feeds, tables, scalar=True):
    """The condition graph's first value as an ONNX bool (non-zero: true): a scalar (a
    Loop's condition), else of shape (1,) (If takes any one-element tensor)."""
    value = SubGraph(g, cond_sym, feeds, tables).translate()[0]
    flat = reshape_to(g, value, [-1], hint=node.name + '_cond_flat')
    first = slice_axes(g, flat, [0], [1], [0], hint=node.name + '_cond_first')
    first = cast(g, first, np.bool_, hint=node.name + '_cond_bool')
    return reshape_to(g, first, [], hint=node.name + '_cond') if scalar else first


@translator('_foreach')
def foreach(g, node):
    """ONNX Scan over axis 0 of the data inputs: the body's states are Scan's state
    variables, its first ``num_out_data`` outputs the scan outputs."""
    op = node.op
    body = op.body.symbol
    names = op.body.names
    n_data, n_state = len(op.in_data_locs), len(op.in_state_locs)
    state_in = [g.fresh('%s_state%d_in' % (node.name, i)) for i in range(n_state)]
    slice_in = [g.fresh('%s_slice%d_in' % (node.name, i)) for i in range(n_data)]
    feeds, body_inputs = {}, []
    for i, loc in enumerate(op.in_state_locs):
        index = n_data + i
        shape, dtype = node.in_shape(index), node.in_dtype(index)
        body_inputs.append(value_info(state_in[i], shape, dtype, node.in_varying(index)))
        if loc >= 0:
            feeds[names[loc]] = Feed(state_in[i], shape, dtype)
    for i, loc in enumerate(op.in_data_locs):
        shape, dtype = node.in_shape(i)[1:], node.in_dtype(i)
        varying = {a - 1 for a in node.in_varying(i) if a > 0}
        body_inputs.append(value_info(slice_in[i], shape, dtype, varying))
        if loc >= 0:
            feeds[names[loc]] = Feed(slice_in[i], shape, dtype)
    for i, loc in enumerate(op.remain_locs):
        feeds[names[loc]] = _outer_feed(node, n_data + n_state + i)

    def shape_of(i, shape):
        locs = list(op.in_data_locs) + list(op.in_state_locs) + list(op.remain_locs)
        if locs[i] < 0:
            return {}
        return {names[locs[i]]: tuple(shape[1:]) if i < n_data else tuple(shape)}
    sub = SubGraph(g, body, feeds, node_known_tables(node, shape_of), inline=False)
    outs = sub.translate()
    order = list(range(op.num_out_data, len(outs))) + list(range(op.num_out_data))
    outputs = [sub.value_info(k, outs[k]) for k in order]
    graph = sub.body(node.name + '_body', body_inputs, outputs)
    inputs = [node.input(n_data + i) for i in range(n_state)] + \
        [node.input(i) for i in range(n_data)]
    g.add('Scan', inputs, [node.outputs[k] for k in order], body=graph,
          num_scan_inputs=n_data)


@translator('_while_loop')
def while_loop(g, node):
    """ONNX Loop: the condition on the initial variables, then a body that runs the
    step and the condition on the new variables; the stacked step outputs are padded
    with zeros to ``max_iterations`` rows, as the operator's are (by appending zero
    rows and keeping the first ``max_iterations``; by Pad to the length read with Shape
    when the rows' size varies with the input)."""
    op = node.op
    n_vars = op.num_loop_vars
    cond_names, func_names = op.cond.names, op.func.names

    def tables(names, locs):
        where = _by_locs(names, locs)
        return node_known_tables(node, lambda i, shape: {
            name: shape for name, loc in where.items() if loc == i})
    cond_feeds = {name: _outer_feed(node, loc)
                  for name, loc in zip(cond_names, op.cond_input_locs)}
    first = _condition(g, node, op.cond.symbol, cond_feeds,
                       tables(cond_names, op.cond_input_locs))
    var_in = [g.fresh('%s_var%d_in' % (node.name, i)) for i in range(n_vars)]
    step_in, cond_in = g.fresh(node.name + '_iter'), g.fresh(node.name + '_cond_in')
    body_inputs = [value_info(step_in, [], np.int64), value_info(cond_in, [], np.bool_)]
    body_inputs += [value_info(var_in[i], node.in_shape(i), node.in_dtype(i),
                               node.in_varying(i)) for i in range(n_vars)]
    feeds = {}
    for name, loc in zip(func_names, op.func_input_locs):
        feeds[name] = Feed(var_in[loc], node.in_shape(loc), node.in_dtype(loc)) \
            if loc < n_vars else _outer_feed(node, loc)
    func = SubGraph(g, op.func.symbol, feeds, tables(func_names, op.func_input_locs),
                    inline=False)
    outs = func.translate()
    new_vars = outs[op.num_out_data:]
    next_feeds = {}
    for name, loc in zip(cond_names, op.cond_input_locs):
        next_feeds[name] = Feed(new_vars[loc], node.in_shape(loc), node.in_dtype(loc)) \
            if loc < n_vars else _outer_feed(node, loc)
    again = _condition(func, node, op.cond.symbol, next_feeds,
                       tables(cond_names, op.cond_input_locs))
    order = list(range(op.num_out_data, len(outs))) + list(range(op.num_out_data))
    outputs = [value_info(again, [], np.bool_)] + [func.value_info(k, outs[k]) for k in order]
    graph = func.body(node.name + '_body', body_inputs, outputs)
    steps = [g.fresh('%s_steps%d' % (node.name, k)) for k in range(op.num_out_data)]
    g.add('Loop', [g.constant(np.int64(op.max_iterations), 'max_iterations'), first]
          + [node.input(i) for i in range(n_vars)],
          [node.outputs[op.num_out_data + i] for i in range(n_vars)] + steps, body=graph)
    for k, stacked in enumerate(steps):
        shape = node.out_shape(k)
        if not node.out_varying(k):
            # zero rows appended, then the first max_iterations rows: fixed shapes (the
            # run's length is never read, so symmod's import takes the loop back)
            zeros = g.constant(np.zeros(shape, node.out_dtype(k)), node.name + '_zero_rows')
            longer = g.add('Concat', [stacked, zeros], hint=node.name + '_longer', axis=0)
            slice_axes(g, longer, [0], [op.max_iterations], [0], out=node.outputs[k])
            continue
        rank = len(shape)
        done = g.add('Shape', [stacked], hint=node.name + '_done')
        done = slice_axes(g, done, [0], [1], [0], hint=node.name + '_done_rows')
        missing = g.add('Sub', [g.int64s([op.max_iterations], 'max_rows'), done],
                        hint=node.name + '_missing')
        pads = g.add('Concat', [g.int64s([0] * rank, 'zeros'), missing,
                                g.int64s([0] * (rank - 1), 'zeros')],
                     hint=node.name + '_pads', axis=0)
        g.add('Pad', [stacked, pads], [node.outputs[k]])


@translator('_cond')
def cond(g, node):
    """ONNX If on the condition graph's first value; the branches read the enclosing
    graph's tensors from outer scope."""
    op = node.op
    feeds = {name: _outer_feed(node, loc)
             for name, loc in zip(op.cond.names, op.cond_input_locs)}

    def tables(names, locs):
        where = _by_locs(names, locs)
        return node_known_tables(node, lambda i, shape: {
            name: shape for name, loc in where.items() if loc == i})
    pred = _condition(g, node, op.cond.symbol, feeds,
                      tables(op.cond.names, op.cond_input_locs), scalar=False)
    branches = {}
    for key, branch, locs in (('then_branch', op.branches[0], op.then_input_locs),
                              ('else_branch', op.branches[1], op.else_input_locs)):
        feeds = {name: _outer_feed(node, loc) for name, loc in zip(branch.names, locs)}
        sub = SubGraph(g, branch.symbol, feeds, tables(branch.names, locs), inline=False)
        outs = sub.translate()
        branches[key] = sub.body('%s_%s' % (node.name, key.split('_')[0]), [],
                                 [sub.value_info(k, name) for k, name in enumerate(outs)])
    g.add('If', [pred], list(node.outputs), **branches)
