"""Symbolic control flow: the _foreach, _while_loop and _cond operators.

Each holds its body graphs as symbol JSON (``mx.sym.contrib.foreach`` & co. build them by
calling the user's function on fresh variables). The inputs of a node are, in order,
the body's loop inputs and then the free variables the body reads from the enclosing
graph; ``*_locs`` parameters say which body input each node input feeds.

A body is bound once per input shapes to an inner executor. Forward runs it step by
step and remembers each step's inputs; backward re-runs each step's forward (from the
remembered inputs, latest step first) and then its backward, carrying the state
gradients from step to step and summing the free variables' gradients.
"""
import json

import numpy as np

from ..base import MXNetError, parse_int, parse_tuple
from .common import int_shape, store_from
from .registry import Operator, Param, ShapeError, register

__all__ = []


def _graph(text):
    from ..symbol.symbol import load_json
    return load_json(text)


def _locs(value):
    return parse_tuple(value) if value is not None else ()


class _Body:
    """One body graph bound for given input shapes and dtypes, reused across steps."""

    def __init__(self, symbol):
        self.symbol = symbol
        self.names = symbol.list_arguments()
        self._exe = None
        self._key = None
        # positions of the outputs that are the same graph entry (a cell's output that is
        # also its next state): their gradients add up, as in MXNet's loops
        entries = [(id(node), index) for node, index in symbol._outputs]
        self._same = [[j for j, e in enumerate(entries) if e == entry] for entry in entries]

    def infer(self, shapes):
        """Shapes of (arguments, outputs) from known argument shapes (name -> shape)."""
        known = {n: s for n, s in shapes.items() if s is not None}
        arg_shapes, out_shapes, _ = self.symbol.infer_shape_partial(**known)
        return dict(zip(self.names, arg_shapes)), out_shapes

    def bind(self, arrays):
        """The executor for these input arrays (name -> numpy), bound on first use."""
        from .. import ndarray as nd
        key = tuple((n, arrays[n].shape, arrays[n].dtype.str) for n in self.names)
        if key != self._key:
            from ..context import cpu
            args = {n: nd.array(arrays[n], dtype=arrays[n].dtype) for n in self.names}
            grads = {n: nd.ndarray.zeros(arrays[n].shape, dtype=arrays[n].dtype) for n in self.names}
            self._exe = self.symbol.bind(cpu(), args, args_grad=grads)
            self._key = key
        return self._exe

    def run(self, arrays, is_train=True):
        """Outputs (numpy copies) of the body on ``arrays`` (name -> numpy)."""
        exe = self.bind(arrays)
        for name in self.names:
            exe.arg_dict[name]._data[...] = arrays[name]
        return [o.asnumpy() for o in exe.forward(is_train=is_train)]

    def gradients(self, arrays, out_grads):
        """Input gradients (name -> numpy) of the body at ``arrays`` for ``out_grads``."""
        from .. import ndarray as nd
        self.run(arrays)
        exe = self._exe
        # the executor keeps one gradient per entry: hand each position the entry's sum
        out_grads = [out_grads[same[0]] if len(same) == 1 else sum(out_grads[j] for j in same)
                     for same in self._same]
        exe.backward([nd.array(g, dtype=g.dtype) for g in out_grads])
        return {n: exe.grad_dict[n].asnumpy() for n in self.names}


class _ControlFlow(Operator):
    """Base: subgraph parsing and the per-node memory of the last forward pass."""

    def list_arguments(self):
        return ['data%d' % i for i in range(self.num_args)]

    def list_outputs(self):
        # nnvm's default names, as MXNet registers no output names for these operators
        if self.num_outputs == 1:
            return ['output']
        return ['output%d' % i for i in range(self.num_outputs)]



@register
class Foreach(_ControlFlow):
    """Runs the body over slices of its data inputs along axis 0, carrying states."""
    name = '_foreach'
    params = (Param('subgraph', str, doc='Body graph (symbol JSON).'),
              Param('num_args', parse_int, doc='Number of inputs.'),
              Param('num_outputs', parse_int, doc='Number of outputs.'),
              Param('num_out_data', parse_int, doc='Outputs stacked over the steps.'),
              Param('in_state_locs', _locs, (), 'Body inputs of the states.'),
              Param('in_data_locs', _locs, (), 'Body inputs of the data slices.'),
              Param('remain_locs', _locs, (), 'Body inputs of the free variables.'))

    def check_params(self):
        self.body = _Body(_graph(self.subgraph))
        self._saved = None


    def _layout(self):
        n_data, n_state = len(self.in_data_locs), len(self.in_state_locs)
        return n_data, n_state, list(self.in_data_locs) + list(self.in_state_locs) \
            + list(self.remain_locs)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        n_data, n_state, locs = self._layout()
        shapes = [int_shape(s) for s in in_shapes]
        if any(shapes[i] is None for i in range(n_data)):
            return shapes, list(out_shapes), []
        steps = shapes[0][0]
        known = {}
        for i, loc in enumerate(locs):
            shape = shapes[i]
            if shape is not None and i < n_data:
                shape = shape[1:]
            if loc >= 0:
                known[self.body.names[loc]] = shape
        arg_shapes, body_out = self.body.infer(known)
        new = []
        for i, loc in enumerate(locs):
            shape = arg_shapes[self.body.names[loc]] if loc >= 0 else shapes[i]
            if i < n_data and loc >= 0 and shape is not None:
                shape = (steps,) + tuple(shape)
            new.append(shape)
        outs = [None if s is None else ((steps,) + tuple(s) if k < self.num_out_data else
                                        tuple(s)) for k, s in enumerate(body_out)]
        return new, outs, []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = next((t for t in in_types if t is not None), None)
        return [t if t is not None else dtype for t in in_types], \
            [dtype] * self.num_outputs, []

    def forward(self, is_train, req, in_data, out_data, aux):
        n_data, n_state, locs = self._layout()
        names = self.body.names
        steps = in_data[0].shape[0] if n_data else 0
        states = [np.array(s) for s in in_data[n_data:n_data + n_state]]
        free = {names[loc]: in_data[n_data + n_state + i]
                for i, loc in enumerate(self.remain_locs)}
        saved = []
        stacked = [np.empty(o.shape, o.dtype) for o in out_data[:self.num_out_data]]
        for t in range(steps):
            arrays = dict(free)
            for i, loc in enumerate(self.in_data_locs):
                if loc >= 0:
                    arrays[names[loc]] = in_data[i][t]
            for i, loc in enumerate(self.in_state_locs):
                if loc >= 0:
                    arrays[names[loc]] = states[i]
            saved.append(arrays)
            outs = self.body.run(arrays, is_train)
            for k in range(self.num_out_data):
                stacked[k][t] = outs[k]
            states = outs[self.num_out_data:]
        self._saved = saved
        for k, out in enumerate(out_data):
            store_from(out, req[k], stacked[k] if k < self.num_out_data else
                       states[k - self.num_out_data])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        n_data, n_state, _ = self._layout()
        names = self.body.names
        state_grads = [np.array(g) for g in out_grad[self.num_out_data:]]
        data_grads = [np.zeros(g.shape, g.dtype) for g in in_grad[:n_data]]
        free_grads = [np.zeros(g.shape, g.dtype) for g in in_grad[n_data + n_state:]]
        for t in reversed(range(len(self._saved))):
            heads = [g[t] for g in out_grad[:self.num_out_data]] + state_grads
            grads = self.body.gradients(self._saved[t], heads)
            for i, loc in enumerate(self.in_data_locs):
                if loc >= 0:
                    data_grads[i][t] = grads[names[loc]]
            state_grads = [grads[names[loc]] if loc >= 0 else np.zeros_like(state)
                           for loc, state in zip(self.in_state_locs, state_grads)]
            for i, loc in enumerate(self.remain_locs):
                free_grads[i] += grads[names[loc]]
        for grad, r, value in zip(in_grad, req, data_grads + state_grads + free_grads):
            store_from(grad, r, value)


def _feed(body, locs, inputs):
    """Body argument name -> array, argument k taking node input ``locs[k]``."""
    return {name: inputs[loc] for name, loc in zip(body.names, locs)}


def _gather(body, locs, grads, totals):
    """Add a body's argument gradients into ``totals`` (one per node input)."""
    for name, loc in zip(body.names, locs):
        totals[loc] = totals[loc] + grads[name]


@register
class WhileLoop(_ControlFlow):
    """Runs the body while the condition graph gives true, at most ``max_iterations``
    times; the first ``num_out_data`` outputs are the step outputs stacked (padded with
    zeros to ``max_iterations`` rows), the rest the final loop variables. The first
    ``num_loop_vars`` inputs are the loop variables' initial values."""
    name = '_while_loop'
    params = (Param('cond_graph', str, doc='Condition graph (symbol JSON).'),
              Param('func_graph', str, doc='Body graph (symbol JSON).'),
              Param('num_args', parse_int, doc='Number of inputs.'),
              Param('num_outputs', parse_int, doc='Number of outputs.'),
              Param('num_out_data', parse_int, doc='Stacked step outputs.'),
              Param('num_loop_vars', parse_int, doc='Loop variables (the first inputs).'),
              Param('max_iterations', parse_int, doc='Most iterations.'),
              Param('cond_input_locs', _locs, (), 'Node input of each condition argument.'),
              Param('func_input_locs', _locs, (), 'Node input of each body argument.'))

    def check_params(self):
        self.cond = _Body(_graph(self.cond_graph))
        self.func = _Body(_graph(self.func_graph))
        self._saved = None


    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        known = {n: shapes[loc] for n, loc in zip(self.func.names, self.func_input_locs)}
        arg_shapes, body_out = self.func.infer(known)
        for name, loc in zip(self.func.names, self.func_input_locs):
            shapes[loc] = shapes[loc] or arg_shapes[name]
        outs = [None if s is None else ((self.max_iterations,) + tuple(s)
                                        if k < self.num_out_data else tuple(s))
                for k, s in enumerate(body_out)]
        return shapes, outs, []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = next((t for t in in_types if t is not None), None)
        types = [t if t is not None else dtype for t in in_types]
        loops = types[:self.num_loop_vars]
        return types, [dtype] * self.num_out_data + loops, []

    def forward(self, is_train, req, in_data, out_data, aux):
        inputs = list(in_data)
        stacked = [np.zeros(o.shape, o.dtype) for o in out_data[:self.num_out_data]]
        saved = []
        while len(saved) < self.max_iterations:
            pred = self.cond.run(_feed(self.cond, self.cond_input_locs, inputs), is_train)
            if not pred[0].reshape(-1)[0]:
                break
            step = list(inputs)
            saved.append(step)
            outs = self.func.run(_feed(self.func, self.func_input_locs, step), is_train)
            for k in range(self.num_out_data):
                stacked[k][len(saved) - 1] = outs[k]
            inputs[:self.num_loop_vars] = outs[self.num_out_data:]
        self._saved = saved
        for k, out in enumerate(out_data):
            store_from(out, req[k], stacked[k] if k < self.num_out_data else
                       inputs[k - self.num_out_data])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        totals = [np.zeros(a.shape, np.float64) for a in in_data]
        loops = [np.array(g, np.float64) for g in out_grad[self.num_out_data:]]
        for t in reversed(range(len(self._saved))):
            heads = [g[t] for g in out_grad[:self.num_out_data]] + \
                [g.astype(o.dtype) for g, o in zip(loops, out_data[self.num_out_data:])]
            grads = self.func.gradients(_feed(self.func, self.func_input_locs, self._saved[t]),
                                        heads)
            step = [np.zeros(a.shape, np.float64) for a in in_data]
            _gather(self.func, self.func_input_locs, grads, step)
            loops = step[:self.num_loop_vars]
            for i in range(self.num_loop_vars, len(totals)):
                totals[i] += step[i]
        totals[:self.num_loop_vars] = loops
        for grad, r, value in zip(in_grad, req, totals):
            store_from(grad, r, value.astype(grad.dtype))


@register
class Cond(_ControlFlow):
    """Runs the then-graph when the condition graph gives true, else the else-graph; the
    inputs are the variables any of the three graphs reads."""
    name = '_cond'
    params = (Param('cond_graph', str, doc='Condition graph (symbol JSON).'),
              Param('then_graph', str, doc='Then branch (symbol JSON).'),
              Param('else_graph', str, doc='Else branch (symbol JSON).'),
              Param('num_args', parse_int, doc='Number of inputs.'),
              Param('num_outputs', parse_int, doc='Number of outputs.'),
              Param('cond_input_locs', _locs, (), 'Node input of each condition argument.'),
              Param('then_input_locs', _locs, (), 'Node input of each then argument.'),
              Param('else_input_locs', _locs, (), 'Node input of each else argument.'))

    def check_params(self):
        self.cond = _Body(_graph(self.cond_graph))
        self.branches = (_Body(_graph(self.then_graph)), _Body(_graph(self.else_graph)))
        self._taken = None


    def _locs_of(self, branch):
        return self.then_input_locs if branch is self.branches[0] else self.else_input_locs

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = [int_shape(s) for s in in_shapes]
        outs = list(out_shapes)
        for branch in self.branches:
            locs = self._locs_of(branch)
            arg_shapes, branch_out = branch.infer({n: shapes[loc]
                                                   for n, loc in zip(branch.names, locs)})
            for name, loc in zip(branch.names, locs):
                shapes[loc] = shapes[loc] or arg_shapes[name]
            for k, shape in enumerate(branch_out):
                if outs[k] is None and shape is not None:
                    outs[k] = tuple(shape)
                elif shape is not None and tuple(outs[k]) != tuple(shape):
                    raise ShapeError('cond: the branches give outputs of shapes %s and %s'
                                     % (tuple(outs[k]), tuple(shape)))
        return shapes, outs, []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = next((t for t in in_types if t is not None), None)
        return [t if t is not None else dtype for t in in_types], \
            [dtype] * self.num_outputs, []

    def forward(self, is_train, req, in_data, out_data, aux):
        pred = self.cond.run(_feed(self.cond, self.cond_input_locs, in_data), is_train)
        branch = self.branches[0] if pred[0].reshape(-1)[0] else self.branches[1]
        self._taken = branch
        outs = branch.run(_feed(branch, self._locs_of(branch), in_data), is_train)
        for out, r, value in zip(out_data, req, outs):
            store_from(out, r, value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        branch = self._taken
        locs = self._locs_of(branch)
        grads = branch.gradients(_feed(branch, locs, in_data), list(out_grad))
        totals = [np.zeros(a.shape, np.float64) for a in in_data]
        _gather(branch, locs, grads, totals)
        for grad, r, value in zip(in_grad, req, totals):
            store_from(grad, r, value.astype(grad.dtype))
