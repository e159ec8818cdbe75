"""A hybridized block's graph bound once per input signature, as MXNet's CachedOp.

The first call with a given signature (input shapes and dtypes, context, which inputs
need gradients) binds the Symbol to an :class:`~symmod.executor.Executor` — the same
plan-once executor ``Module`` runs: schedule, memory plan and operator instances are
made once; later calls copy the data in, run ``forward`` over the step list and copy
the outputs out. Parameters and auxiliary states are bound in place (no copies; BatchNorm
updates its running statistics in them), keyed by their buffers so that replaced
arrays get a new binding.

Under ``autograd.record()`` the whole graph is one node of the tape: its backward runs
the executor's backward pass and hands the input gradients to the tape, which adds them
into the variables' gradients as it does for single operators. An input that is a marked
variable with ``grad_req='write'`` and a dense gradient buffer (a Parameter, typically)
has that buffer bound as the executor's gradient array, so ``backward`` writes the
gradient in place instead of copying it over (see :meth:`_GraphNode.run_backward` for
when the buffer is restored). The executor stays
reserved for that node until its backward has run (or the node is dropped); a second
recorded call before then binds a second executor, so each call keeps its own forward
state, as MXNet's CachedOp does without ``static_alloc``.

Graphs the executor cannot bind fall back to :class:`GraphRunner` (node by node).
"""
import collections
import weakref

import numpy as np

from .. import autograd
from ..autograd import tape as _tape
from ..base import MXNetError
from ..ndarray.ndarray import NDArray, zeros
from .graph_runner import GraphRunner

__all__ = ['BoundGraph']

_MAX_SIGNATURES = 16


class _Slot:
    """One bound executor and whether a recorded call still needs its buffers."""
    __slots__ = ('exe', 'leased', 'inputs', 'grads', 'direct', 'first', 'lookups',
                 '__weakref__')

    def __init__(self, exe, inputs, grads, direct, input_names):
        self.exe = exe
        self.leased = False
        self.inputs = inputs        # the bound array of every graph input (input order)
        self.grads = grads          # its gradient buffer where a gradient is computed
        # input positions whose gradient array is the variable's own gradient buffer
        self.direct = direct
        # for each output, the first output position holding the same entry
        buffers = [id(y._data) for y in exe.outputs]
        self.first = [buffers.index(b) for b in buffers]
        self.lookups = _sparse_lookups(exe, input_names)


def _sparse_lookups(exe, input_names):
    """``(input position, operator)`` of each embedding with a row-sparse weight gradient
    whose weight is a graph input: after a forward pass the operator holds the rows it
    looked up (``looked_up``), which the weight's row_sparse gradient must all hold."""
    position = {name: i for i, name in enumerate(input_names)}
    found = []
    for step in exe._plan.forward_steps:
        op, node = step[0], step[-1]
        op = getattr(op, 'op', op)          # a SparseStep wraps the operator
        if getattr(op, 'sparse_grad', False) and len(node.inputs) > 1:
            source = node.inputs[1][0]
            if source.op is None and source.name in position:
                found.append((position[source.name], op))
    return found


def _release(slot):
    slot.leased = False


class _GraphNode:
    """A recorded call of a bound graph (an entry of the autograd tape).

    The input gradients it hands the tape are the executor's gradient buffers, which
    the executor only writes again in a later backward pass of this node: the tape may
    keep and accumulate into them without a copy (``owns_grads``)."""
    owns_grads = True
    records_graph = True    # ``op`` is built from the graph on each read: not a hot-path read

    __slots__ = ('seq', 'name', 'in_entries', 'input_names', 'aux', 'out_meta', 'n_visible',
                 'cleared', 'slot', 'ctx', 'symbol', 'sparse_rows', 'direct_grads',
                 '_finalizer', '__weakref__')

    def __init__(self, slot, entries, inputs, outputs, ctx, symbol):
        self.seq = next(_tape._SEQ)
        self.name = 'node_%d' % next(_tape._NODE_NAMES)
        self.in_entries = entries
        # variable names of the inputs that are not recorded results (autograd.get_symbol)
        self.input_names = [_tape._constant_name(x) if e is None else None
                            for e, x in zip(entries, inputs)]
        self.aux = []
        self.out_meta = [(y._data.shape, y._data.dtype) for y in outputs]
        self.n_visible = len(outputs)
        self.cleared = False
        self.slot = slot
        self.ctx = ctx
        self.symbol = symbol
        # (input position of an embedding's weight, the rows this call looked up)
        self.sparse_rows = [(i, op.looked_up) for i, op in slot.lookups]
        # (input position, variable, its gradient buffer) the executor writes in place
        self.direct_grads = [(i, entries[i][0], slot.grads[i]._data) for i in slot.direct]
        self._finalizer = weakref.finalize(self, _release, slot)

    @property
    def out_data(self):
        return [np.zeros(shape, dtype=dtype) for shape, dtype in self.out_meta]

    def run_backward(self, req, out_grad, into_variables=False):
        """The input gradients (numpy arrays; None where ``req`` is 'null').

        A variable's gradient buffer bound to the executor (:attr:`direct_grads`) keeps
        the gradient written into it only with ``into_variables`` (the tape's
        ``backward``, which stores each variable's gradient in its buffer anyway) while
        the variable still asks for 'write' there; otherwise (``autograd.grad``, a
        request changed since the call) the gradient is returned as a copy and the buffer
        gets its old content back."""
        exe = self.slot.exe
        restore = [(i, buf, np.array(buf)) for i, var, buf in self.direct_grads
                   if not (into_variables and req[i] == 'write' and var.req == 'write'
                           and var.grad._data is buf)]
        # an entry the graph outputs several times got its summed gradient at its first
        # position; every position must hold it (the executor keeps the last one given)
        first = self.slot.first
        exe.backward([NDArray(out_grad[first[i]], self.ctx) for i in range(len(out_grad))])
        grads = [None if g is None or r == 'null' else g._data
                 for g, r in zip(self.slot.grads, req)]
        for i, buf, old in restore:
            if grads[i] is not None:
                grads[i] = np.array(buf)
            np.copyto(buf, old)
        return grads

    def clear(self):
        self.cleared = True
        self._finalizer()

    @property
    def op(self):
        """The ``_CachedOp`` operator standing for the graph (``autograd.get_symbol``)."""
        from ..ops.cached_op import CachedOp
        return CachedOp({'subgraph': self.symbol.tojson()})

    def symbol_inputs(self):
        """``(entry, variable name)`` per input of :attr:`op`: the graph's arguments, then
        its auxiliary states (the executor's input order is the graph's ``list_inputs``)."""
        names = self.symbol.list_inputs()
        position = {name: i for i, name in enumerate(names)}
        order = [position[n] for n in
                 self.symbol.list_arguments() + self.symbol.list_auxiliary_states()]
        return [(self.in_entries[i], self.input_names[i]) for i in order]


class BoundGraph:
    """A Symbol run through executors bound per input signature.

    Parameters
    ----------
    sym : Symbol
        The graph; its inputs (``sym.list_inputs()``) are given positionally.
    shared : iterable of int, optional
        Positions of inputs whose arrays are bound in place (parameters and auxiliary
        states); the others are copied into the executor's own buffers on each call.
    """

    def __init__(self, sym, shared=(), inline_limit=2, static_alloc=False):
        self._symbol = sym
        # MXNet's CachedOp records a graph of at most inline_limit operators operator by
        # operator (without static_alloc); larger graphs are one node of the tape
        self._inline = not static_alloc and \
            sum(1 for node in sym._nodes() if not node.is_variable) <= inline_limit
        self._inline_runner = None
        self.input_names = sym.list_inputs()
        aux = set(sym.list_auxiliary_states())
        self._is_aux = [name in aux for name in self.input_names]
        # auxiliary states are always bound in place: their updates must reach the caller
        self._shared = sorted(set(shared) | {i for i, a in enumerate(self._is_aux) if a})
        self._slots = collections.OrderedDict()     # signature -> [slot]
        self._fallback = None
        self._hook = None           # (callback, monitor_all) of register_op_hook

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, op_name, array)`` (bytes names, as MXNet's C API) with
        each operator's outputs, and its inputs too with ``monitor_all``; None removes
        it."""
        self._hook = None if callback is None else (callback, monitor_all)
        if self._fallback is not None:
            self._fallback.register_op_hook(callback, monitor_all)

    def __call__(self, *inputs):
        """Run the graph on NDArrays given in the order of ``input_names``.

        Returns
        -------
        list of NDArray
            The graph's outputs (new arrays).
        """
        if len(inputs) != len(self.input_names):
            raise MXNetError('graph expects %d inputs (%s), found %d'
                             % (len(self.input_names), ', '.join(self.input_names),
                                len(inputs)))
        if self._fallback is not None:
            return self._fallback(*inputs)
        recording = autograd.is_recording()
        entries = needs = direct = None
        if recording:
            entries = [_tape._entry(x) for x in inputs]
            needs = tuple([e is not None for e in entries])
            if True not in needs:
                recording, entries, needs = False, None, None
            elif self._inline:
                return self._run_inline(inputs)
            else:
                direct = _direct_buffers(entries, inputs)
        ctx = inputs[0]._ctx
        datas = [x._data for x in inputs]
        key = (tuple([(d.shape, d.dtype) for d in datas]), ctx, needs,
               tuple([id(datas[i]) for i in self._shared]),
               direct and tuple([None if g is None else id(g._data) for g in direct]))
        try:
            slot = self._acquire(key, inputs, needs, direct, ctx)
        except MXNetError:
            if self._slots:
                raise
            # a graph the executor cannot bind: run it node by node from now on
            self._fallback = GraphRunner(self._symbol)
            if self._hook is not None:
                self._fallback.register_op_hook(*self._hook)
            return self._fallback(*inputs)
        for data, bound in zip(datas, slot.inputs):
            if data is not bound._data:
                np.copyto(bound._data, data)
        exe = slot.exe
        if self._hook is not None:
            exe.set_op_hook(*self._hook)
        elif exe._monitor is not None:
            exe.set_monitor_callback(None)
        exe.forward(is_train=autograd.is_training())
        # one array per graph entry: an entry output twice is the same array twice, as
        # node-by-node execution gives (so the tape sums the gradients it receives)
        first = slot.first
        copies = [NDArray(np.array(y._data), ctx) if first[i] == i else None
                  for i, y in enumerate(exe.outputs)]
        outputs = [copies[i] for i in first]
        if recording:
            node = _GraphNode(slot, entries, inputs, outputs, ctx, self._symbol)
            for i, y in enumerate(copies):
                if y is not None:
                    y._ag_entry = (node, i)
        else:
            slot.leased = False
        return outputs

    def _run_inline(self, inputs):
        if self._inline_runner is None:
            self._inline_runner = GraphRunner(self._symbol)
        self._inline_runner.register_op_hook(*(self._hook or (None,)))
        return self._inline_runner(*inputs)

    def _acquire(self, key, inputs, needs, direct, ctx):
        slots = self._slots.get(key, [])
        for slot in slots:
            if not slot.leased:
                self._slots.move_to_end(key)
                slot.leased = True
                return slot
        slot = self._bind(inputs, needs, direct, ctx)
        slot.leased = True
        if key not in self._slots and len(self._slots) >= _MAX_SIGNATURES:
            self._slots.popitem(last=False)
        self._slots.setdefault(key, slots).append(slot)
        return slot

    def _bind(self, inputs, needs, direct, ctx):
        sym = self._symbol
        shared = set(self._shared)
        bound, grads, direct_positions = [], [], []
        args, args_grad, reqs, aux = {}, {}, {}, {}
        for i, (name, x) in enumerate(zip(self.input_names, inputs)):
            array = x if i in shared else zeros(x.shape, ctx=ctx, dtype=x.dtype)
            bound.append(array)
            grad = None
            if self._is_aux[i]:
                aux[name] = array
            else:
                args[name] = array
                if direct is not None and direct[i] is not None:
                    grad = args_grad[name] = direct[i]
                    direct_positions.append(i)
                elif needs is not None and needs[i]:
                    grad = args_grad[name] = zeros(x.shape, ctx=ctx, dtype=x.dtype)
                reqs[name] = 'null' if grad is None else 'write'
            grads.append(grad)
        exe = sym.bind(ctx, args=args, args_grad=args_grad or None, grad_req=reqs,
                       aux_states=aux)
        return _Slot(exe, bound, grads, direct_positions, self.input_names)


def _direct_buffers(entries, inputs):
    """Per input, the gradient NDArray the executor may write in place, or None: the
    input is a marked variable with ``grad_req='write'`` whose gradient is a dense numpy
    buffer of the input's shape and dtype (:func:`~symmod.autograd.tape.direct_buffer`),
    not given at another input position too (two positions would both write the one
    buffer). None when no input qualifies."""
    found, seen, any_found = [], set(), False
    variable = _tape._Variable
    for entry, x in zip(entries, inputs):
        grad = None
        if entry is not None and type(entry[0]) is variable \
                and _tape.direct_buffer(entry, x._data) is not None \
                and id(entry[0].grad._data) not in seen:
            grad = entry[0].grad
            seen.add(id(grad._data))
            any_found = True
        found.append(grad)
    return found if any_found else None
