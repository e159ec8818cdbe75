"""Storage types in a bound graph: which entries are csr / row_sparse, and the step that
runs an operator whose arrays include sparse ones.

At bind time every entry's storage type is inferred from the bound arrays through the
operators' storage rules (:mod:`symmod.ops.sparse`). A graph with no sparse array, value
or gradient, is planned exactly as before. Otherwise sparse values get NDArray
containers (outside the memory pool: their size changes with the data), and each node
that touches one runs through a :class:`SparseStep`, which hands the operator's sparse
kernel NDArrays, or falls back to its dense kernel on dense copies. Gradients between
operators stay dense; an argument's gradient has the storage type of its buffer.
"""
import numpy as np

from ..ops.sparse import infer_storage, storage_impl, dense_forward, dense_backward

__all__ = ['StorageInfo', 'infer_entries', 'SparseStep', 'stype_of', 'grad_stypes']


def stype_of(array):
    """'default' for a numpy buffer, else the NDArray's storage type."""
    return 'default' if array is None or isinstance(array, np.ndarray) else array.stype


class StorageInfo:
    """Storage types of a plan's entries and the nodes that need a SparseStep."""

    def __init__(self, stype, kernel, sparse_nodes):
        self.stype = stype                  # (id(node), index) -> storage type
        self.kernel = kernel                # id(node) -> whether its sparse kernel runs
        self.sparse_nodes = sparse_nodes    # ids of the nodes run by a SparseStep

    def is_sparse(self, key):
        return self.stype.get(key, 'default') != 'default'


def infer_entries(arg_nodes, aux_nodes, op_nodes, operators, value, var_grad):
    """StorageInfo of a graph, or None when nothing in it is sparse."""
    stype = {}
    for node in arg_nodes + aux_nodes:
        stype[(id(node), 0)] = stype_of(value[(id(node), 0)])
    grad_stype = {id(n): stype_of(var_grad.get(id(n))) for n in arg_nodes}
    kernel = {}
    for node in op_nodes:
        ins = [stype[(id(c), i)] for c, i in node.inputs]
        outs, kernel[id(node)] = infer_storage(operators[id(node)], ins)
        for i, s in enumerate(outs):
            stype[(id(node), i)] = s
    if all(s == 'default' for s in stype.values()) and \
            all(s == 'default' for s in grad_stype.values()):
        return None
    sparse_nodes = set()
    for node in op_nodes:
        keys = [(id(c), i) for c, i in node.inputs] + \
            [(id(node), i) for i in range(node.num_outputs())]
        if any(stype[k] != 'default' for k in keys) or \
                any(c.op is None and grad_stype.get(id(c), 'default') != 'default'
                    for c, _ in node.inputs):
            sparse_nodes.add(id(node))
    return StorageInfo(stype, kernel, sparse_nodes)


def grad_stypes(symbol, arg_stypes):
    """The gradient storage type MXNet gives each argument of ``symbol`` (by name) when
    ``simple_bind`` allocates it: row_sparse where every consumer's backward produces a
    row_sparse gradient (embeddings with sparse_grad, dot of a csr lhs), else 'default'."""
    from ..symbol import graph as _graph
    nodes = symbol._nodes()
    mutable = _graph.mutable_input_nodes(nodes)
    stype = {}
    for node in nodes:
        if node.op is None:
            stype[(id(node), 0)] = arg_stypes.get(node.name, 'default')
    votes = {}
    for node in nodes:
        if node.op is None:
            continue
        op = node.operator()
        ins = [stype[(id(c), i)] for c, i in node.inputs]
        outs, _ = infer_storage(op, ins)
        for i, s in enumerate(outs):
            stype[(id(node), i)] = s
        impl = storage_impl(op)
        wanted = impl.grad_stypes(op, ins) if impl is not None else None
        for j, (child, _) in enumerate(node.inputs[:node.num_arguments()]):
            if child.op is None and id(child) not in mutable:
                votes.setdefault(child.name, []).append(
                    wanted[j] if wanted is not None else 'default')
    return {name: ('row_sparse' if all(v == 'row_sparse' for v in got) else 'default')
            for name, got in votes.items()}


def _wrap(array, ctx):
    from ..ndarray.ndarray import NDArray
    if array is None or not isinstance(array, np.ndarray):
        return array
    return NDArray(array, ctx)


class SparseStep:
    """Stands in for an operator in a plan's step lists when the node's arrays include
    sparse ones; ``forward`` / ``backward`` take the same arguments as the operator's,
    as NDArrays (made once at bind time by :func:`wrap_arrays`)."""

    def __init__(self, op, kernel):
        self.op = op
        self.name = op.name
        self.kernel = kernel

    def __getattr__(self, name):
        return getattr(self.op, name)

    def forward(self, is_train, req, in_data, out_data, aux):
        inputs = list(in_data) + list(aux)
        if self.kernel:
            storage_impl(self.op).forward(self.op, is_train, inputs, out_data)
        else:
            dense_forward(self.op, is_train, inputs, out_data)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        inputs = list(in_data) + list(aux)
        impl = storage_impl(self.op)
        if impl is None or not impl.backward(self.op, req, out_grad, inputs, out_data,
                                             in_grad):
            dense_backward(self.op, req, out_grad, inputs, out_data, in_grad)


def wrap_arrays(arrays, ctx):
    """The arrays of a step as NDArrays (numpy buffers wrapped, sharing memory)."""
    return [_wrap(a, ctx) for a in arrays]
