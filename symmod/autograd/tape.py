"""The tape: recording operator calls, marked variables, ``backward`` and ``grad``."""
import itertools

import numpy as np

from .. import threads as _threads
from ..base import MXNetError
from ..ops.registry import Operator
from .gradient_graphs import gradient_graph
from .sparse_grads import (looked_up_rows, store_row_sparse_grad, sparse_backward,
                           sparse_input_grads, add_gradient, dense_gradient)
from .state import set_recording, set_training

__all__ = ['mark_variables', 'backward', 'grad']

_NOT_IN_GRAPH = ('Cannot differentiate node because it is not in a computational graph. '
                 'You need to set is_recording to true or use autograd.record() to save '
                 'computational graphs for backward. If you want to differentiate the same '
                 'graph twice, you need to pass retain_graph=True to backward.')
_INPLACE_IN_GRAPH = ('Assigning to NDArrays that are already in a computational graph will '
                     'cause undefined behavior when evaluating gradients. Please call '
                     'backward first to clear the graph or do this out side of a record '
                     'section. Also note that you cannot use inplace operations like +=, *=, '
                     'relu(x, out=x), y[idx]=x, etc inside a record section.')
_GRAD_REQS = ('write', 'add', 'null')
_SEQ = itertools.count(1)
# MXNet's names for recorded graphs (autograd.get_symbol): one process-wide counter for
# variables ('var<k>' when marked, 'null<k>' for inputs that were not recorded) and one
# for operator nodes ('node_<k>')
_VAR_NAMES = itertools.count()
_NODE_NAMES = itertools.count()


class _Variable:
    """A marked leaf: its gradient buffer, write request and fresh-gradient flag."""
    __slots__ = ('grad', 'req', 'fresh', 'name')
    cleared = False

    def __init__(self, grad, req):
        self.grad = grad
        self.req = req
        self.fresh = False
        self.name = 'var%d' % next(_VAR_NAMES)


def _kept(array):
    """What the tape keeps of a recorded array: its host data, or a sparse array's own
    storage (densified only when a backward reads ``in_data`` / ``out_data``)."""
    return array._data if array.stype != 'default' else array._host()


def _dense(kept):
    return kept if isinstance(kept, np.ndarray) else kept.toarray()


def _rewrap(kept, ctx):
    """An NDArray over kept data: the sparse storage in a container of its type."""
    from ..ndarray.ndarray import NDArray
    from ..ndarray.sparse_array import RowSparseStorage, new_sparse
    if isinstance(kept, np.ndarray):
        return NDArray(kept, ctx)
    return new_sparse('row_sparse' if isinstance(kept, RowSparseStorage) else 'csr', kept,
                      ctx)


def _all_host(arrays):
    """Whether every item is a numpy array (a dense array in host memory)."""
    for a in arrays:
        if type(a) is not np.ndarray:
            return False
    return True


class _TapeNode:
    """One recorded operator call: what its backward needs.

    The input gradients it returns are arrays it made for this pass, which nobody else
    reads: the tape keeps and accumulates into them without a copy (``owns_grads``)."""
    owns_grads = True
    records_graph = False
    direct_grads = None
    __slots__ = ('seq', 'op', 'in_entries', '_in', '_in_dense', 'aux', '_out', '_out_dense',
                 'n_visible', 'cleared', 'name', 'input_names', 'csr_in', 'ctx',
                 'sees_sparse')

    def __init__(self, op, entries, inputs, outputs):
        n_args = len(entries)
        self.seq = next(_SEQ)
        self.name = 'node_%d' % next(_NODE_NAMES)
        # variable names of the inputs that are not recorded results (aux states included)
        self.input_names = [_constant_name(x) if i >= n_args or entries[i] is None else None
                            for i, x in enumerate(inputs)]
        self.op = op
        self.in_entries = entries
        args = inputs[:n_args]
        kept = [x._data for x in args]
        if _all_host(kept):     # dense arrays in host memory
            self._in = self._in_dense = kept
            self.csr_in = None
        else:
            self._in = [_kept(x) for x in args]
            self._in_dense = None
            # csr arguments' own storage (a sparse dot's gradient reads it)
            self.csr_in = [getattr(x, 'stype', None) == 'csr' and x._data for x in args]
        self.aux = list(inputs[n_args:])     # NDArrays: backward may update them (BatchNorm)
        kept = [y._data for y in outputs]
        if _all_host(kept):
            self._out = self._out_dense = kept
        else:
            self._out = [_kept(y) for y in outputs]
            self._out_dense = None
        self.n_visible = op.num_visible_outputs()
        self.cleared = False
        self.ctx = outputs[0]._ctx if outputs else None
        # a Custom operator's backward sees csr / row_sparse arrays as its forward did
        self.sees_sparse = op.name == 'Custom' and any(
            not isinstance(k, np.ndarray) for k in self._in + self._out)

    def arg(self, i):
        """Argument ``i`` as a numpy array, without densifying the others."""
        return _dense(self._in[i])

    @property
    def in_data(self):
        """The arguments as numpy arrays (sparse ones densified on first use)."""
        if self._in_dense is None and self._in is not None:
            self._in_dense = [_dense(k) for k in self._in]
        return self._in_dense

    @property
    def out_meta(self):
        """``(shape, dtype)`` of each output, read without densifying sparse ones."""
        return None if self._out is None else [(k.shape, k.dtype) for k in self._out]

    @property
    def out_data(self):
        """The outputs as numpy arrays (sparse ones densified on first use)."""
        if self._out_dense is None and self._out is not None:
            self._out_dense = [_dense(k) for k in self._out]
        return self._out_dense

    def run_backward(self, req, out_grad, into=None):
        """Input gradients (numpy; zeros where req is 'null') from the output gradients.

        ``into``: per input, an array to write the gradient into (a variable's own
        gradient buffer, for an operator that ``writes_input_grads``), or None."""
        # np.zeros maps zero pages lazily (calloc); np.zeros_like writes every element
        in_grad = [np.zeros(k.shape, dtype=k.dtype) for k in self._in] if into is None else \
            [np.zeros(k.shape, dtype=k.dtype) if buf is None else buf
             for k, buf in zip(self._in, into)]
        if self.sees_sparse:
            from ..ops.sparse import storage_impl
            ctx = self.ctx
            storage_impl(self.op).backward(
                self.op, req, [_rewrap(g, ctx) for g in out_grad],
                [_rewrap(k, ctx) for k in self._in] + self.aux,
                [_rewrap(k, ctx) for k in self._out], [_rewrap(g, ctx) for g in in_grad])
            return in_grad
        aux = [a._host() for a in self.aux]
        self.op.backward(req, out_grad, self.in_data, self.out_data, in_grad, aux)
        for array, host in zip(self.aux, aux):
            if host is not array._data:     # device storage: write the update back
                array[:] = host
        return in_grad

    def clear(self):
        """Free the saved arrays; the node can no longer be differentiated."""
        self.cleared = True
        self._in = self._in_dense = self.aux = self._out = self._out_dense = None
        self.csr_in = None


def _constant_name(array):
    """The variable name standing for an unrecorded input array (kept for its reuses)."""
    name = array._ag_name
    if name is None:
        name = array._ag_name = 'null%d' % next(_VAR_NAMES)
    return name


def _entry(array):
    """The live tape entry of an array, or None when it is not in a graph."""
    entry = array._ag_entry
    if entry is None or entry[0].cleared:
        return None
    return entry


def _record_op(op, inputs, outputs, n_args=None):
    """Append an operator call to the tape if an argument depends on a variable.

    ``n_args``: the operator's number of arguments when the caller knows it, which also
    says that ``outputs`` are new arrays (no recorded array is written in place)."""
    if n_args is None:
        for y in outputs:
            if _entry(y) is not None:
                raise MXNetError(_INPLACE_IN_GRAPH)
        n_args = len(op.list_arguments())
    entries = []
    recorded = False
    for x in inputs[:n_args]:
        entry = x._ag_entry
        if entry is not None:
            if entry[0].cleared:
                entry = None
            else:
                recorded = True
        entries.append(entry)
    if not recorded:
        return
    node = _TapeNode(op, entries, inputs, outputs)
    for i, y in enumerate(outputs):
        y._ag_entry = (node, i)


def mark_variables(variables, gradients, grad_reqs='write'):
    """Mark arrays as variables whose gradients ``backward`` computes.

    ``NDArray.attach_grad`` does this with a new zero buffer; with this function the
    buffer can be any array of the same shape.

    Parameters
    ----------
    variables : NDArray or list of NDArray
        The arrays to differentiate with respect to.
    gradients : NDArray or list of NDArray
        Buffers receiving the gradients.
    grad_reqs : str or list of str, default 'write'
        ``'write'`` (overwrite), ``'add'`` (accumulate) or ``'null'`` (none), one for
        all or one per variable.

    Examples
    --------
    >>> x = mx.nd.ones((2,)); gx = mx.nd.zeros((2,))
    >>> mx.autograd.mark_variables(x, gx)
    >>> with mx.autograd.record():
    ...     y = 3 * x
    >>> y.backward(); gx.asnumpy()
    array([3., 3.], dtype=float32)
    """
    from ..ndarray.ndarray import NDArray
    if isinstance(variables, NDArray):
        assert isinstance(gradients, NDArray)
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    if not len(variables) == len(gradients) == len(grad_reqs):
        raise MXNetError('mark_variables: got %d variables, %d gradients and %d grad_reqs'
                         % (len(variables), len(gradients), len(grad_reqs)))
    for var, grad_buf, req in zip(variables, gradients, grad_reqs):
        if req not in _GRAD_REQS:
            raise KeyError("grad_req must be one of 'write', 'add' or 'null', found %r"
                           % (req,))
        if tuple(grad_buf.shape) != tuple(var.shape):
            raise MXNetError('mark_variables: gradient buffer of shape %s for a variable of '
                             'shape %s' % (grad_buf.shape, var.shape))
        var._grad = grad_buf
        var._grad_req = req
        var._ag_entry = (_Variable(grad_buf, req), 0)


def _get_fresh_grad(array):
    """Whether ``backward`` wrote ``array``'s gradient since the flag was last cleared."""
    entry = array._ag_entry
    return entry is not None and isinstance(entry[0], _Variable) and entry[0].fresh


def _set_fresh_grad(array, value):
    """Set the fresh-gradient flag of a marked variable (no effect otherwise)."""
    entry = array._ag_entry
    if entry is not None and isinstance(entry[0], _Variable):
        entry[0].fresh = bool(value)


# ---- backward --------------------------------------------------------------------------
def _parse_heads(heads, head_grads):
    from ..ndarray.ndarray import NDArray
    if isinstance(heads, NDArray):
        heads = [heads]
    if isinstance(head_grads, NDArray):
        head_grads = [head_grads]
    if head_grads is not None:
        assert len(heads) == len(head_grads), \
            'heads and head_grads must be lists of the same length'
    return list(heads), head_grads


def _graph_nodes(heads):
    """Tape nodes and variables the heads depend on: (nodes oldest first, variables)."""
    nodes, variables = {}, {}
    stack = [_entry(h)[0] for h in heads]
    while stack:
        owner = stack.pop()
        if isinstance(owner, _Variable):
            variables[id(owner)] = owner
            continue
        if id(owner) in nodes:
            continue
        nodes[id(owner)] = owner
        stack.extend(e[0] for e in owner.in_entries if e is not None)
    return sorted(nodes.values(), key=lambda n: n.seq), list(variables.values())


def _on_paths(targets, nodes):
    """ids of the wanted variables, and of the nodes on a path to one of them: only those
    are differentiated (as MXGradient)."""
    wanted = {id(v) for v in targets}
    needed = set()
    for node in nodes:
        for e in node.in_entries:
            if e is not None and (id(e[0]) in wanted or id(e[0]) in needed):
                needed.add(id(node))
                break
    return wanted, needed


def _requests(node, wanted, needed):
    """'write' for the inputs of ``node`` whose gradient is wanted, 'null' for the others."""
    return ['write' if e is not None and (id(e[0]) in wanted or id(e[0]) in needed)
            else 'null' for e in node.in_entries]


def _run_backward(heads, head_grads, targets, retain_graph, train_mode, nodes,
                  into_variables=False):
    """Propagate gradients from the heads to the ``targets`` (a list of _Variable)
    through ``nodes`` (the heads' tape nodes, oldest first).

    ``into_variables``: the caller stores each target's gradient in its buffer (``backward``),
    so a hybridized graph may leave the gradient it writes into a variable's buffer there.

    Returns a dict id(variable) -> numpy gradient (variables not reached are absent).
    """
    wanted, needed = _on_paths(targets, nodes)
    grads = {}

    def add_grad(entry, value, owned=False):
        key = (id(entry[0]), entry[1])
        if key in grads:
            grads[key] = add_gradient(grads[key], value, owned)
        else:
            # ``owned``: an array the node made for this pass and nobody else reads (it
            # may be accumulated into); anything else is copied first. A row-sparse
            # gradient (RowSparseStorage) is never written into.
            grads[key] = value if owned or not isinstance(value, np.ndarray) else \
                np.array(value, copy=True)

    for i, head in enumerate(heads):
        hgrad = None if head_grads is None else head_grads[i]
        if hgrad is None:
            value = np.ones(head.shape, dtype=head.dtype)
        else:
            if tuple(hgrad.shape) != tuple(head.shape):
                raise MXNetError('head_grads[%d] has shape %s, the head has shape %s'
                                 % (i, hgrad.shape, head.shape))
            value = hgrad._host()
        add_grad(_entry(head), value)
    prev_rec, prev_train = set_recording(False), set_training(train_mode)
    try:
        for node in reversed(nodes):
            node_id = id(node)
            if node_id not in needed:
                continue
            _threads.apply()    # a long pass follows the machine's load node by node
            out_grad = []
            if type(node) is _TapeNode and node._out_dense is node._out is not None:
                outs = node._out
                for i in range(node.n_visible):
                    got = grads.pop((node_id, i), None)
                    out_grad.append(np.zeros(outs[i].shape, dtype=outs[i].dtype)
                                    if got is None else
                                    got if type(got) is np.ndarray else
                                    dense_gradient(got, outs[i].shape))
            else:
                out_meta = _output_meta(node)
                for i in range(node.n_visible):
                    got = grads.pop((node_id, i), None)
                    shape, dtype = out_meta[i][:2]
                    out_grad.append(dense_gradient(got, shape) if got is not None
                                    else np.zeros(shape, dtype=dtype))
            req = _requests(node, wanted, needed)
            direct = getattr(node, 'direct_grads', None)
            if direct:
                # the graph writes these variables' buffers: a gradient held so far that is
                # one of them (from an earlier call of the graph) is kept as a copy
                _copy_held(grads, [buf for _, _, buf in direct])
                in_grad, owned = node.run_backward(req, out_grad, into_variables), True
            elif sparse_backward(node, req):    # embedding / csr dot: row-sparse weight grad
                in_grad, owned = sparse_input_grads(node, out_grad), True
            else:
                into = _variable_buffers(node, req) if into_variables else None
                if into is not None:
                    _copy_held(grads, [buf for buf in into if buf is not None])
                    in_grad = node.run_backward(req, out_grad, into)
                else:
                    in_grad = node.run_backward(req, out_grad)
                owned = getattr(node, 'owns_grads', False)
            for entry, g, r in zip(node.in_entries, in_grad, req):
                if r != 'null':
                    add_grad(entry, g, owned)
    finally:
        set_recording(prev_rec)
        set_training(prev_train)
        if not retain_graph:
            for node in nodes:
                node.clear()
    return {key[0]: value for key, value in grads.items() if key[0] in wanted}


def direct_buffer(entry, like):
    """The gradient buffer of the marked variable of tape ``entry`` when a backward pass
    may write the variable's gradient straight into it: its request is 'write' and the
    buffer is a C-contiguous numpy array of ``like``'s shape and dtype; else None."""
    var = entry[0] if entry is not None else None
    if type(var) is not _Variable or var.req != 'write':
        return None
    buf = var.grad._data
    if type(buf) is not np.ndarray or buf.shape != like.shape or buf.dtype != like.dtype \
            or not buf.flags.c_contiguous:
        return None
    return buf


def _variable_buffers(node, req):
    """Per input of a recorded operator call, the variable's gradient buffer its backward
    writes into (see :func:`direct_buffer`; each buffer at most once), or None when the
    operator does not store every element of its input gradients."""
    if type(node) is not _TapeNode or not node.op.writes_input_grads or node.sees_sparse:
        return None
    found, any_found = [], False
    for entry, kept, r in zip(node.in_entries, node._in, req):
        buf = direct_buffer(entry, kept) if r == 'write' and type(kept) is np.ndarray \
            else None
        if buf is not None and any(buf is b for b in found):
            buf = None
        found.append(buf)
        any_found = any_found or buf is not None
    return found if any_found else None


def _copy_held(grads, buffers):
    """Replace every gradient in ``grads`` that is one of ``buffers`` by a copy."""
    ids = {id(b) for b in buffers}
    for key, value in grads.items():
        if id(value) in ids:
            grads[key] = np.array(value)


def _output_meta(node):
    """``(shape, dtype, ...)`` of each output of a recorded call (a hybridized graph's
    and a Function's call keep only these, not their outputs)."""
    meta = getattr(node, 'out_meta', None)
    return meta if meta is not None else [(y.shape, y.dtype) for y in node.out_data]


class _NoHigherOrderGradient(Operator):
    """Stands in the recorded gradient graph for an operator whose gradient is a numpy
    kernel only: differentiating through it raises."""

    def __init__(self, forward_name, n_in, n_out):
        super().__init__()
        self.name = '_backward_' + forward_name
        self._forward_name, self._n_in, self._n_out = forward_name, n_in, n_out

    def list_arguments(self):
        return ['in%d' % i for i in range(self._n_in)]

    def list_outputs(self):
        return ['out%d' % i for i in range(self._n_out)]

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise MXNetError('Operator %s has no higher-order gradient in symmod: '
                         'autograd.grad(create_graph=True) recorded its gradient as a '
                         'constant, which cannot be differentiated again'
                         % self._forward_name)


def _wrap(data, entry):
    """An NDArray over recorded ``data`` standing for tape entry ``entry``."""
    from ..ndarray.ndarray import NDArray
    array = NDArray(data)
    array._ag_entry = entry
    return array


def _graph_input_grads(node, req, out_grad):
    """Input gradients of ``node`` (NDArrays or None) computed with recorded operations."""
    from ..ndarray.ndarray import array as nd_array
    n_args = len(node.in_entries)
    inputs = [_wrap(node.in_data[i], node.in_entries[i]) for i in range(n_args)]
    rule = gradient_graph(node.op)
    if rule is not None:
        outputs = [_wrap(y, (node, i)) for i, y in enumerate(node.out_data)]
        return rule(node.op, inputs, outputs, out_grad)
    values = node.run_backward(req, [g.asnumpy() for g in out_grad])
    grads = [nd_array(v, dtype=v.dtype) for v in values]
    # record the constant gradients so that differentiating through them raises
    _record_op(_NoHigherOrderGradient(node.op.name, len(out_grad) + n_args, n_args),
               list(out_grad) + inputs, grads)
    return grads


def _run_backward_graph(heads, head_grads, targets, train_mode, nodes):
    """``_run_backward`` recording the gradient computation (``create_graph``): returns a
    dict id(variable) -> NDArray that is itself part of the recorded graph."""
    from ..ndarray.ndarray import array as nd_array, zeros
    wanted, needed = _on_paths(targets, nodes)
    grads = {}

    def add_grad(entry, value):
        key = (id(entry[0]), entry[1])
        grads[key] = value if key not in grads else grads[key] + value

    prev_rec, prev_train = set_recording(True), set_training(train_mode)
    try:
        for i, head in enumerate(heads):
            hgrad = None if head_grads is None else head_grads[i]
            if hgrad is None:
                hgrad = nd_array(np.ones(head.shape, dtype=head.dtype), dtype=head.dtype)
            elif tuple(hgrad.shape) != tuple(head.shape):
                raise MXNetError('head_grads[%d] has shape %s, the head has shape %s'
                                 % (i, hgrad.shape, head.shape))
            add_grad(_entry(head), hgrad)
        for node in reversed(nodes):
            if id(node) not in needed:
                continue
            out_grad = [grads.pop((id(node), i), None) for i in range(node.n_visible)]
            out_grad = [g if g is not None else zeros(shape, dtype=dtype)
                        for g, (shape, dtype) in zip(out_grad, _output_meta(node))]
            req = _requests(node, wanted, needed)
            for entry, g, r in zip(node.in_entries, _graph_input_grads(node, req, out_grad),
                                   req):
                if r != 'null' and g is not None:
                    add_grad(entry, g)
    finally:
        set_recording(prev_rec)
        set_training(prev_train)
    return {key[0]: value for key, value in grads.items() if key[0] in wanted}


def backward(heads, head_grads=None, retain_graph=False,
             train_mode=True):  # pylint: disable=redefined-outer-name
    """Compute the gradients of ``heads`` with respect to the marked variables.

    Each variable's gradient is written to (``grad_req='write'``) or added to
    (``'add'``) its buffer; variables with ``'null'`` are skipped.

    Parameters
    ----------
    heads : NDArray or list of NDArray
        Outputs of recorded computation.
    head_grads : NDArray or list of (NDArray or None), optional
        Gradients flowing into the heads; ones where None.
    retain_graph : bool, default False
        Keep the recorded graph so that it can be differentiated again.
    train_mode : bool, default True
        Run the backward pass in training mode.

    Raises
    ------
    MXNetError
        When a head is not the result of recorded computation (or its graph was freed
        by an earlier backward), or no variable in the graph needs a gradient.
    """
    _threads.apply()
    heads, head_grads = _parse_heads(heads, head_grads)
    for head in heads:
        if _entry(head) is None:
            raise MXNetError(_NOT_IN_GRAPH)
    nodes, variables = _graph_nodes(heads)
    targets = [v for v in variables if v.req != 'null']
    if not targets:
        raise MXNetError('There are no inputs in computation graph that require gradients.')
    looked_up = {id(v): looked_up_rows(v, nodes) for v in targets
                 if v.grad.stype == 'row_sparse'}
    grads = _run_backward(heads, head_grads, targets, retain_graph, train_mode, nodes,
                          into_variables=True)
    for var in targets:
        var.fresh = True
        value = grads.get(id(var))
        dst = var.grad
        if dst.stype == 'row_sparse':
            store_row_sparse_grad(var, looked_up[id(var)], value, var.req)
        elif var.req == 'add':
            if value is not None:
                dst[:] = dst._host() + dense_gradient(value, dst.shape)
        elif value is None:
            dst[:] = 0
        elif value is not dst._data:    # a hybridized graph wrote it there already
            dst[:] = dense_gradient(value, dst.shape)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):  # pylint: disable=redefined-outer-name
    """Return the gradients of ``heads`` with respect to ``variables`` as new arrays.

    The variables' own gradient buffers are not touched.

    Parameters
    ----------
    heads : NDArray or list of NDArray
        Outputs of recorded computation.
    variables : NDArray or list of NDArray
        Marked variables to differentiate with respect to.
    head_grads : NDArray or list of (NDArray or None), optional
        Gradients flowing into the heads; ones where None.
    retain_graph : bool, optional
        Keep the graph for another backward; defaults to ``create_graph``.
    create_graph : bool, default False
        Record the gradient computation, so that the returned gradients can be
        differentiated again (higher-order gradients). Operators whose gradient has
        no recorded form raise when differentiated a second time.
    train_mode : bool, default True
        Run the backward pass in training mode.

    Returns
    -------
    list of NDArray
        One gradient per variable (a list even for a single variable, as MXNet).

    Examples
    --------
    >>> x = mx.nd.ones((1,)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     z = mx.nd.elemwise_add(mx.nd.exp(x), x)
    >>> mx.autograd.grad(z, [x])[0].asscalar()
    3.7182817
    """
    from ..ndarray.ndarray import NDArray, array
    heads, head_grads = _parse_heads(heads, head_grads)
    if isinstance(variables, NDArray):
        variables = [variables]
    else:
        assert len(variables), 'variables cannot be an empty list.'
    for head in heads:
        if _entry(head) is None:
            raise MXNetError(_NOT_IN_GRAPH)
    targets = []
    for i, var in enumerate(variables):
        entry = var._ag_entry
        if entry is None or not isinstance(entry[0], _Variable):
            raise MXNetError('Cannot differentiate with respect to the %d-th variable because '
                             'it does not require gradient.' % (i + 1))
        targets.append(entry[0])
    retain = create_graph if retain_graph is None else retain_graph
    nodes = _graph_nodes(heads)[0]
    if create_graph:
        grads = _run_backward_graph(heads, head_grads, targets, train_mode, nodes)
        if not retain:
            for node in nodes:
                node.clear()
        return [grads[id(t)] if id(t) in grads else array(np.zeros(v.shape, dtype=v.dtype),
                                                          ctx=v.context, dtype=v.dtype)
                for v, t in zip(variables, targets)]
    grads = _run_backward(heads, head_grads, targets, retain, train_mode, nodes)
    result = []
    for var, target in zip(variables, targets):
        value = grads.get(id(target))
        if value is None:
            value = np.zeros(var.shape, dtype=var.dtype)
        value = dense_gradient(value, var.shape)
        result.append(array(value, ctx=var.context, dtype=var.dtype))
    return result
