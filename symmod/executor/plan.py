"""The execution plan of a bound graph, made once at bind time.

From the symbol and the bound arrays the plan derives: every entry's shape and
dtype; which entries need gradients; the forward schedule (topological order) and
the backward schedule (reverse order, pruned to nodes on a path from an argument
that wants a gradient); each gradient's write request (the first writer writes,
later ones add); and a buffer for every intermediate value and gradient, placed
in shared storage according to its lifetime. An input whose gradient is not
wanted (request 'null': its argument's grad_req is 'null', or nothing it depends
on needs a gradient) gets a *sink*, a scratch view that nothing reads, as MXNet
hands kNullOp outputs a buffer: an operator's backward always sees one array of the
input's shape per input and never the gradient array of a 'null' argument.
``forward`` and ``backward`` then only walk the step lists.
"""
import numpy as np

from ..base import MXNetError
from ..ops.registry import Operator, known_zero_dims
from ..util import is_np_shape
from ..symbol import graph as _graph
from ..symbol.infer import infer_shapes, infer_types
from .memory import assign_storage, view
from .storage import infer_entries, SparseStep, wrap_arrays
from ..ops.sparse import new_output

__all__ = ['Plan']

_FOREVER = float('inf')
_ALIGN = 64


def _aligned(nbytes):
    return -(-nbytes // _ALIGN) * _ALIGN


class Plan:
    """Schedule and memory of one bound graph.

    Parameters
    ----------
    symbol : Symbol
    arg_arrays : list of numpy.ndarray
        One per argument *node* (list_arguments order).
    grad_arrays : list of numpy.ndarray or None
        Gradient buffers of the arguments (None where not needed).
    grad_reqs : list of str
        'write', 'add' or 'null' per argument.
    aux_arrays : list of numpy.ndarray
    pool : MemoryPool
        Where intermediate buffers are placed.
    ctx : Context, optional
        The device, handed to stateful operators' ``create_state``.
    """

    def __init__(self, symbol, arg_arrays, grad_arrays, grad_reqs, aux_arrays, pool, ctx=None):
        nodes = symbol._nodes()
        mutable = _graph.mutable_input_nodes(nodes)
        self.arg_nodes = [n for n in nodes if n.op is None and id(n) not in mutable]
        self.aux_nodes = [n for n in nodes if n.op is None and id(n) in mutable]
        self.op_nodes = [n for n in nodes if n.op is not None]
        self.heads = list(symbol._outputs)
        self.operators = {id(n): n.new_operator() for n in self.op_nodes}

        self._value = {}        # (id(node), index) -> numpy array
        for node, array in zip(self.arg_nodes, arg_arrays):
            self._value[(id(node), 0)] = array
        for node, array in zip(self.aux_nodes, aux_arrays):
            self._value[(id(node), 0)] = array
        self._infer(nodes)
        self._create_states(ctx)

        var_req = {id(n): r for n, r in zip(self.arg_nodes, grad_reqs)}
        var_grad = {id(n): g for n, g in zip(self.arg_nodes, grad_arrays)}
        # csr / row_sparse entries (None when the graph is dense, the usual case)
        self.storage = infer_entries(self.arg_nodes, self.aux_nodes, self.op_nodes,
                                     self.operators, self._value, var_grad)
        self._ctx = ctx
        self._mark_gradients(var_req)
        self._allocate(pool, var_req, var_grad)
        self._build_steps()
        # what remains is the step lists; drop the bind-time tables (bucketing keeps
        # one plan per bucket alive)
        del self._value, self._grad, self.shape, self.dtype, self.grad_req, self.needs_grad
        del self.operators, self.storage

    # ---- inference ---------------------------------------------------------------------
    def _infer(self, nodes):
        known_shapes = {}
        known_types = {}
        for node in self.arg_nodes + self.aux_nodes:
            array = self._value[(id(node), 0)]
            known_shapes[node.name] = tuple(array.shape)
            known_types[node.name] = np.dtype(array.dtype)
        # bound arrays are concrete: under NumPy-shape semantics their 0 dims are zero
        # sizes and outputs may have them (index_array of a scalar); otherwise a 0 dim
        # is an unknown one (MXNet)
        zeros = is_np_shape() and any(0 in s or not s for s in known_shapes.values())
        with known_zero_dims(zeros):
            shapes = infer_shapes(nodes, known_shapes)
        types = infer_types(nodes, known_types)
        self.shape, self.dtype = {}, {}
        for node in self.op_nodes:
            for i in range(node.num_outputs()):
                key = (id(node), i)
                shape, dtype = shapes.get(key), types.get(key)
                if shape is None or (not zeros and any(d == 0 for d in shape)) \
                        or dtype is None:
                    raise MXNetError('cannot infer %s of output %s: bind needs every input '
                                     'shape and dtype to determine it'
                                     % ('shape' if dtype is not None else 'dtype',
                                        node.output_name(i)))
                self.shape[key], self.dtype[key] = tuple(shape), np.dtype(dtype)
        for node in self.arg_nodes + self.aux_nodes:
            key = (id(node), 0)
            array = self._value[key]
            inferred = shapes.get(key)
            if inferred is not None and tuple(inferred) != tuple(array.shape):
                raise MXNetError('shape of %s: bound array has %s, the graph needs %s'
                                 % (node.name, tuple(array.shape), tuple(inferred)))
            self.shape[key], self.dtype[key] = tuple(array.shape), np.dtype(array.dtype)

    def _create_states(self, ctx):
        """Let stateful operators (Custom) build their per-node state from the inferred
        input shapes and dtypes, once, at bind time."""
        for node in self.op_nodes:
            op = self.operators[id(node)]
            if op.stateful:
                keys = [(id(c), i) for c, i in node.inputs]
                op.create_state(ctx, [self.shape[k] for k in keys],
                                [self.dtype[k] for k in keys])

    # ---- which entries need gradients --------------------------------------------------
    def _mark_gradients(self, var_req):
        # entries that depend on an argument wanting a gradient ...
        needs = {(id(n), 0) for n in self.arg_nodes if var_req[id(n)] != 'null'}
        candidates = []
        for node in self.op_nodes:
            n_args = node.num_arguments()
            if any((id(c), i) in needs for c, i in node.inputs[:n_args]):
                candidates.append(node)
                needs.update((id(node), i) for i in range(node.num_outputs()))
        # ... and that a gradient reaches from the heads (BlockGrad stops it): MXNet's zero
        # propagation, so a graph ending in stop_gradient runs no backward step at all
        flows = {(id(n), i) for n, i in self.heads}
        self.backward_nodes = []
        for node in reversed(candidates):
            if not any((id(node), i) in flows for i in range(node.num_outputs())):
                continue
            op = self.operators[id(node)]
            if not op.needs_grad_buffer:
                continue
            if type(op).backward is Operator.backward:
                raise MXNetError('Operator %s is non-differentiable: it defines no gradient, '
                                 'and node %s is on the path of a requested gradient (set '
                                 "grad_req 'null' for its inputs)" % (op.name, node.name))
            self.backward_nodes.append(node)
            flows.update((id(c), i) for c, i in node.inputs[:node.num_arguments()])
        self.backward_nodes.reverse()
        # gradients to compute: the outputs of the backward nodes and the arguments reached
        self.needs_grad = {(id(n), 0) for n in self.arg_nodes if (id(n), 0) in needs & flows}
        for node in self.backward_nodes:
            self.needs_grad.update((id(node), i) for i in range(node.num_outputs()))
        # arguments asking for a gradient that nothing reaches: MXNet writes zeros
        self.zero_grads = [n for n in self.arg_nodes
                           if var_req[id(n)] == 'write' and (id(n), 0) not in flows]

    # ---- buffers ---------------------------------------------------------------------------
    def _allocate(self, pool, var_req, var_grad):
        n_fwd = len(self.op_nodes)
        fwd_step = {id(n): s for s, n in enumerate(self.op_nodes)}
        bwd_order = self.backward_nodes[::-1]
        bwd_step = {id(n): n_fwd + s for s, n in enumerate(bwd_order)}
        head_keys = [(id(n), i) for n, i in self.heads]
        # outputs of loss heads, and of operators whose gradient is zero whatever flows
        # in (comparisons, shape_array, ...), take no head gradient
        heads_with_grad = {k for k, (n, _) in zip(head_keys, self.heads)
                           if k in self.needs_grad and n.op is not None
                           and not self.operators[id(n)].is_loss
                           and not self.operators[id(n)].zero_gradient}

        # every intermediate buffer as (first step, last step, bytes)
        last_use = self._value_lifetimes(fwd_step, bwd_step, head_keys)
        buffers, keys, aliases = self._value_buffers(fwd_step, last_use)
        # an output that is an argument itself passes its head gradient to the argument
        var_heads = [k for k, (n, _) in zip(head_keys, self.heads)
                     if n.op is None and k in self.needs_grad]
        first_write = self._gradient_requests(bwd_order, bwd_step, var_req,
                                              heads_with_grad | set(var_heads))
        for key in heads_with_grad:
            first_write[key] = n_fwd     # filled from out_grads before the first step
        self._grad = {}
        grad_buffer = {}
        for node in self.backward_nodes:
            for i in range(node.num_visible_outputs()):
                key = (id(node), i)
                if key not in first_write:
                    # nothing flows into this output: its gradient is a constant zero
                    self._grad[key] = pool.zeros(self.shape[key], self.dtype[key])
                    continue
                grad_buffer[key] = len(buffers)
                buffers.append((first_write[key], bwd_step[id(node)], self._nbytes(key)))
                keys.append(('grad', key))
        self._gradient_aliases(grad_buffer, aliases)
        self.zero_grad_arrays = [var_grad[id(n)] for n in self.zero_grads
                                 if var_grad[id(n)] is not None]
        del self.zero_grads
        for node in self.arg_nodes:
            key = (id(node), 0)
            if key in self.needs_grad:
                if var_grad[id(node)] is None:
                    raise MXNetError('argument %s has grad_req %r but no gradient array'
                                     % (node.name, var_req[id(node)]))
                self._grad[key] = var_grad[id(node)]

        storage_of, sizes = assign_storage(buffers, aliases)
        sink_bytes = self._sink_bytes(bwd_order)
        blocks = pool.back(sizes + [sink_bytes])
        self._sink = blocks.pop()
        self.storage_bytes = sum(sizes) + sink_bytes
        for (kind, key), storage in zip(keys, storage_of):
            if kind == 'value' and self.storage is not None and self.storage.is_sparse(key):
                # sparse values change size with the data: containers outside the pool
                self._value[key] = new_output(self.storage.stype[key], self.shape[key],
                                              self.dtype[key], self._ctx)
                continue
            array = view(blocks[storage], self.shape[key], self.dtype[key])
            (self._value if kind == 'value' else self._grad)[key] = array
        self.head_grad_arrays = [self._grad.get(k) if k in heads_with_grad or k in var_heads
                                 else None for k in head_keys]
        # how each head gradient is stored: accumulated into an argument with grad_req
        # 'add'; written otherwise (an output listed twice takes the last, as in MXNet)
        self.head_grad_modes = ['add' if k in var_heads and var_req[id(n)] == 'add' else 'write'
                                for k, (n, _) in zip(head_keys, self.heads)]
        self.outputs = [self._value[k] for k in head_keys]

    def _value_lifetimes(self, fwd_step, bwd_step, head_keys):
        """Last step reading each value: forward consumers, and backward steps of the
        operators whose backward reads their inputs or outputs; heads live forever."""
        last_use = {}

        def use(key, step):
            last_use[key] = max(last_use.get(key, -1), step)

        for node in self.op_nodes:
            op = self.operators[id(node)]
            for child, i in node.inputs:
                use((id(child), i), fwd_step[id(node)])
            if id(node) in bwd_step:
                step = bwd_step[id(node)]
                if op.backward_uses_inputs:
                    for child, i in node.inputs:
                        use((id(child), i), step)
                if op.backward_uses_outputs:
                    for i in range(node.num_outputs()):
                        use((id(node), i), step)
        for key in head_keys:
            last_use[key] = _FOREVER
        return last_use

    def _value_buffers(self, fwd_step, last_use):
        """One buffer per operator output, and the in-place candidates
        ``{output buffer: [input buffers]}`` operators declare."""
        buffers, keys = [], []
        value_buffer = {}
        aliases = {}
        sparse = self.storage.sparse_nodes if self.storage is not None else ()
        for node in self.op_nodes:
            start = fwd_step[id(node)]
            for i in range(node.num_outputs()):
                key = (id(node), i)
                value_buffer[key] = len(buffers)
                nbytes = 0 if id(node) in sparse and self.storage.is_sparse(key) \
                    else self._nbytes(key)
                buffers.append((start, last_use.get(key, start), nbytes))
                keys.append(('value', key))
            if id(node) in sparse:
                continue        # no in-place aliasing around sparse containers
            for in_index, out_index in self.operators[id(node)].inplace:
                child, i = node.inputs[in_index]
                source = (id(child), i)
                if child.op is not None and self.dtype[source] == \
                        self.dtype[(id(node), out_index)]:
                    aliases.setdefault(value_buffer[(id(node), out_index)], []).append(
                        value_buffer[source])
        return buffers, keys, aliases

    def _gradient_requests(self, bwd_order, bwd_step, var_req, heads_with_grad):
        """Set each backward input gradient's request (the first writer in backward order
        writes, later ones add; a variable's own 'add' always adds) and return the step
        that first writes each gradient."""
        self.grad_req = {}      # (id(consumer), input index) -> req
        first_write = {}
        for node in bwd_order:
            for j, (child, i) in enumerate(node.inputs[:node.num_arguments()]):
                key = (id(child), i)
                if key not in self.needs_grad:
                    self.grad_req[(id(node), j)] = 'null'
                    continue
                seen = key in first_write or key in heads_with_grad
                if child.op is None and var_req[id(child)] == 'add':
                    seen = True
                self.grad_req[(id(node), j)] = 'add' if seen else 'write'
                first_write.setdefault(key, bwd_step[id(node)])
        return first_write

    def _gradient_aliases(self, grad_buffer, aliases):
        """Add to ``aliases`` the in-place gradients: an input gradient that an operator
        passes on unchanged (its ``grad_inplace``, elemwise_add's) and writes first may
        take over the output gradient's buffer when that step is the output gradient's
        last reader (MXNet's in-place identity gradients), so that no copy is made."""
        sparse = self.storage.sparse_nodes if self.storage is not None else ()
        for node in self.backward_nodes:
            if id(node) in sparse:
                continue
            for out_index, in_index in self.operators[id(node)].grad_inplace:
                child, i = node.inputs[in_index]
                source, target = (id(node), out_index), (id(child), i)
                if (source in grad_buffer and target in grad_buffer
                        and self.grad_req[(id(node), in_index)] == 'write'
                        and self.dtype[source] == self.dtype[target]
                        and self.shape[source] == self.shape[target]):
                    aliases.setdefault(grad_buffer[target], []).append(grad_buffer[source])

    def _null_inputs(self, node):
        """(argument index, value key) of the inputs of ``node`` that get no gradient."""
        return [(j, (id(c), i)) for j, (c, i) in enumerate(node.inputs[:node.num_arguments()])
                if self.grad_req[(id(node), j)] == 'null']

    def _sink_bytes(self, bwd_order):
        """Bytes of the sink: the most any one backward step needs for the inputs it gives
        no gradient, each in its own aligned slot (one step may read what it wrote)."""
        most = 0
        for node in bwd_order:
            most = max(most, sum(_aligned(self._nbytes(k)) for _, k in self._null_inputs(node)))
        return most

    def _sink_views(self, node):
        """Sink views standing for the gradients of ``node``'s 'null' inputs."""
        views, offset = {}, 0
        for j, key in self._null_inputs(node):
            views[j] = view(self._sink[offset:], self.shape[key], self.dtype[key])
            offset += _aligned(self._nbytes(key))
        return views

    def _nbytes(self, key):
        return int(np.prod(self.shape[key], dtype=np.int64)) * self.dtype[key].itemsize

    # ---- step lists --------------------------------------------------------------------------
    def _step_op(self, node):
        """The operator of a step, and a function giving the arrays it is handed: a
        SparseStep taking NDArrays for nodes that touch sparse arrays."""
        op = self.operators[id(node)]
        if self.storage is None or id(node) not in self.storage.sparse_nodes:
            return op, list
        step = SparseStep(op, self.storage.kernel[id(node)])
        return step, lambda arrays: wrap_arrays(arrays, self._ctx)

    def _build_steps(self):
        self.forward_steps = []
        for node in self.op_nodes:
            op, arrays = self._step_op(node)
            n_args = node.num_arguments()
            ins = arrays([self._value[(id(c), i)] for c, i in node.inputs])
            outs = arrays([self._value[(id(node), i)] for i in range(node.num_outputs())])
            self.forward_steps.append((op, ['write'] * len(outs), ins[:n_args], outs,
                                       ins[n_args:], node))
        self.backward_steps = []
        for node in self.backward_nodes[::-1]:
            op, arrays = self._step_op(node)
            n_args = node.num_arguments()
            ins = arrays([self._value[(id(c), i)] for c, i in node.inputs])
            outs = arrays([self._value[(id(node), i)] for i in range(node.num_outputs())])
            out_grad = arrays([self._grad[(id(node), i)]
                               for i in range(node.num_visible_outputs())])
            reqs = [self.grad_req[(id(node), j)] for j in range(n_args)]
            sinks = self._sink_views(node)
            in_grad = arrays([self._grad[(id(c), i)] if r != 'null' else sinks[j]
                              for j, ((c, i), r) in enumerate(zip(node.inputs[:n_args],
                                                                  reqs))])
            self.backward_steps.append((op, reqs, out_grad, ins[:n_args], outs, in_grad,
                                        ins[n_args:], node))
