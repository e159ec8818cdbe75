"""``mx.sym.contrib.foreach`` / ``while_loop`` / ``cond``: control flow in symbolic graphs.

Each calls the user's Python functions once on fresh variables to build body graphs and
wraps them in one node (the _foreach, _while_loop and _cond operators). Variables a body
reads from the enclosing graph become extra inputs of the node, so their gradients flow
out of the loop. Inputs and outputs may be Symbols or (nested) lists of Symbols.
"""
from ..attribute import AttrScope, current as _current_scope
from ..base import MXNetError
from ..ndarray.control_flow import flatten, regroup
from . import register
from .symbol import Group, Symbol, var

__all__ = ['foreach', 'while_loop', 'cond']


def _flatten(items, what):
    return flatten(items, Symbol, what)


_regroup = regroup


def _single_outputs(symbol):
    return [symbol[i] for i in range(len(symbol.list_outputs()))]


def _group(outputs):
    """The graph of ``outputs``. An output that is a variable itself (a state passed on
    unchanged), or that repeats an earlier output (a step output that is also the new
    state), goes through an identity, so that each has a head gradient of its own which
    reaches the variable (a graph listing one output twice keeps only one)."""
    from .symbol import _FUNCS
    seen, group = set(), []
    for s in outputs:
        node, index = s._outputs[0][:2]
        if node.op is None or (id(node), index) in seen:
            s = _FUNCS['_copy'](s)
        seen.add((id(node), index))
        group.append(s)
    return Group(group)


def _body_graph(outputs, loop_vars):
    """The body graph, each loop variable's position among its arguments (-1: unused),
    and the free variables (Symbols of the enclosing graph) with their positions."""
    graph = _group(outputs)
    names = graph.list_arguments()
    locs = [names.index(v.name) if v.name in names else -1 for v in loop_vars]
    loop_names = {v.name for v in loop_vars}
    internals = graph.get_internals()
    free = [(internals[n], names.index(n)) for n in names if n not in loop_names]
    return graph, locs, free


def _unique_subgraph_name(name):
    """``name`` numbered by how many subgraphs of that name were made before (nested in
    another subgraph: ``outer$name``), as MXNet names them (``AttrScope._subgraph_names``)."""
    outer = _current_scope().get(None).get('__subgraph_name__', '')
    if outer:
        name = outer + '$' + name
    AttrScope._subgraph_names[name] += 1
    return name + str(AttrScope._subgraph_names[name] - 1)


def _node(op_name, inputs, params, n_outputs):
    """The control-flow node, named automatically (``_foreach0``, ...) as in MXNet."""
    node = register.create(op_name, op_name, inputs, {},
                           dict(params, num_args=len(inputs), num_outputs=n_outputs))
    return _single_outputs(node)


def foreach(body, data, init_states, name='foreach'):
    """Run ``body`` over the slices of ``data`` along axis 0.

    ``body(data_slice, states) -> (outputs, new_states)`` is called once on variables to
    build the loop body; the result's outputs are stacked over the steps.

    Parameters
    ----------
    body : callable
    data : Symbol or list of Symbol
    init_states : Symbol or list of Symbol
    name : str

    Returns
    -------
    outputs, states : Symbol or list of Symbol
        The stacked step outputs and the final states, nested like ``body``'s results.
    """
    flat_data, data_fmt = _flatten(data, 'foreach data')
    flat_states, state_fmt = _flatten(init_states, 'foreach init_states')
    name = _unique_subgraph_name(name)
    with AttrScope(__subgraph_name__=name):
        data_vars = [var('%s_data%d' % (name, i)) for i in range(len(flat_data))]
        state_vars = [var('%s_state%d' % (name, i)) for i in range(len(flat_states))]
        outs, states = body(_regroup(data_vars, data_fmt)[0],
                            _regroup(state_vars, state_fmt)[0])
    flat_outs, out_fmt = _flatten(outs if outs is not None else [], 'foreach outputs')
    flat_new, new_fmt = _flatten(states if states is not None else [], 'foreach states')
    if len(flat_new) != len(flat_states):
        raise MXNetError('foreach: body returned %d states for %d init_states'
                         % (len(flat_new), len(flat_states)))
    graph, locs, free = _body_graph(flat_outs + flat_new, data_vars + state_vars)
    n_data = len(data_vars)
    # MXNet refuses bodies that ignore a data array or a state (AssertionError)
    if -1 in locs[:n_data]:
        raise AssertionError('the data arrays have to be used in the loop body')
    if -1 in locs[n_data:]:
        raise AssertionError('the state arrays have to be used in the loop body')
    params = {'subgraph': graph.tojson(), 'num_out_data': len(flat_outs),
              'in_data_locs': tuple(locs[:n_data]), 'in_state_locs': tuple(locs[n_data:]),
              'remain_locs': tuple(loc for _, loc in free)}
    results = _node('_foreach', flat_data + flat_states + [s for s, _ in free], params,
                    len(flat_outs) + len(flat_new))
    outputs = _regroup(results[:len(flat_outs)], out_fmt)[0] if flat_outs else []
    final = _regroup(results[len(flat_outs):], new_fmt)[0] if flat_new else []
    return outputs, final


def _wire(graphs, inputs):
    """Node inputs for ``graphs`` (given ``inputs`` first, then every other variable the
    graphs read, once) and, per graph, the node input of each of its arguments."""
    inputs = list(inputs)
    index = {s.name: i for i, s in enumerate(inputs)}
    all_locs = []
    for graph in graphs:
        internals = graph.get_internals()
        locs = []
        for name in graph.list_arguments():
            if name not in index:
                index[name] = len(inputs)
                inputs.append(internals[name])
            locs.append(index[name])
        all_locs.append(tuple(locs))
    return inputs, all_locs


def while_loop(cond, func, loop_vars, max_iterations=None, name='while_loop'):
    """Run ``func`` while ``cond`` holds, at most ``max_iterations`` times.

    ``cond(*loop_vars) -> Symbol`` (a scalar) and ``func(*loop_vars) -> (step_output,
    new_loop_vars)`` are called once on variables to build the graphs.

    Returns
    -------
    outputs, states : Symbol or list of Symbol
        The step outputs stacked along axis 0 (``max_iterations`` rows, those past the
        last step zero) and the final loop variables.
    """
    if max_iterations is None:
        raise ValueError('max_iterations should be specified')
    flat_vars, var_fmt = _flatten(loop_vars, 'loop_vars')
    if not flat_vars:
        raise ValueError('loop_vars should contain at least one element')
    names = ['%s_loopvar%d' % (name, i) for i in range(len(flat_vars))]
    with AttrScope(__subgraph_name__=_unique_subgraph_name(name + '_cond')):
        variables = [var(n) for n in names]
        args = _regroup(variables, var_fmt)[0]
        args = args if isinstance(args, list) else [args]
        predicate = cond(*args)
    with AttrScope(__subgraph_name__=_unique_subgraph_name(name + '_func')):
        step_output, new_vars = func(*args)
    flat_outs, out_fmt = _flatten(step_output if step_output is not None else [],
                                  'while_loop step_output')
    flat_new, _ = _flatten(new_vars if new_vars is not None else [], 'while_loop new_loop_vars')
    if len(flat_new) != len(flat_vars):
        raise ValueError('The length of loop_vars should be consistent during the loop')
    cond_graph, func_graph = _group([predicate]), _group(flat_outs + flat_new)
    inputs, (cond_locs, func_locs) = _wire([cond_graph, func_graph], variables)
    # the loop variables' node inputs are their initial values
    inputs[:len(flat_vars)] = flat_vars
    params = {'cond_graph': cond_graph.tojson(), 'func_graph': func_graph.tojson(),
              'num_out_data': len(flat_outs), 'num_loop_vars': len(flat_vars),
              'max_iterations': int(max_iterations), 'cond_input_locs': cond_locs,
              'func_input_locs': func_locs}
    results = _node('_while_loop', inputs, params, len(flat_outs) + len(flat_vars))
    outputs = _regroup(results[:len(flat_outs)], out_fmt)[0] if flat_outs else []
    final = _regroup(results[len(flat_outs):], var_fmt)[0]
    return outputs, final


def cond(pred, then_func, else_func, name='cond'):
    """``then_func()`` where the scalar Symbol ``pred`` is true, else ``else_func()``; both
    must give outputs of the same shapes."""
    _unique_subgraph_name(name + '_pred')
    with AttrScope(__subgraph_name__=_unique_subgraph_name(name + '_then')):
        then_out, then_fmt = _flatten(then_func(), 'cond then output')
    with AttrScope(__subgraph_name__=_unique_subgraph_name(name + '_else')):
        else_out, _ = _flatten(else_func(), 'cond else output')
    if len(then_out) != len(else_out):
        raise ValueError('then_func and else_func give %d and %d outputs'
                         % (len(then_out), len(else_out)))
    graphs = [_group([pred]), _group(then_out), _group(else_out)]
    inputs, (cond_locs, then_locs, else_locs) = _wire(graphs, [])
    params = {'cond_graph': graphs[0].tojson(), 'then_graph': graphs[1].tojson(),
              'else_graph': graphs[2].tojson(), 'cond_input_locs': cond_locs,
              'then_input_locs': then_locs, 'else_input_locs': else_locs}
    results = _node('_cond', inputs, params, len(then_out))
    return _regroup(results, then_fmt)[0]
