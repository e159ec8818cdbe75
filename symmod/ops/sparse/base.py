"""Storage-type rules and sparse kernels of operators (MXNet's FInferStorageType and
FComputeEx), kept beside the dense operators rather than inside them.

A :class:`StorageImpl` is registered for operator names. For given input storage types
its ``infer`` returns the output storage types, or None when the operator has no sparse
kernel for them; then inputs are densified, the dense kernel runs, and the outputs are
dense (MXNet's storage fallback). ``forward`` gets NDArrays: the inputs, and output
containers of the inferred storage types to fill. ``backward`` may fill gradients of
any storage type and returns False when it cannot, so the dense gradient is used.
"""
import numpy as np

from ...base import MXNetError
from ...ndarray.ndarray import NDArray
from ...ndarray.sparse_array import (BaseSparseNDArray, RowSparseStorage, to_storage,
                                     empty_sparse)

__all__ = ['StorageImpl', 'register_storage', 'storage_impl', 'infer_storage',
           'dense_forward', 'dense_backward', 'store_array', 'add_storage', 'is_zero_map']

_IMPLS = {}


class StorageImpl:
    """Storage rules and sparse kernels of one operator family."""

    def infer(self, op, in_stypes):
        """Output storage types for ``in_stypes``, or None for the dense fallback."""
        return None

    def forward(self, op, is_train, inputs, outputs):
        """Fill ``outputs`` (NDArrays of the inferred storage types) from ``inputs``."""
        dense_forward(op, is_train, inputs, outputs)

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        """Fill ``in_grads`` honouring ``reqs``; False: use the dense gradient."""
        return False

    def grad_stypes(self, op, in_stypes):
        """Storage types of the argument gradients MXNet allocates (simple_bind), or None
        for all dense."""
        return None


def register_storage(*names):
    """Class decorator: register one StorageImpl instance for operator ``names``."""
    def wrap(cls):
        impl = cls()
        for name in names:
            _IMPLS[name] = impl
        return cls
    return wrap


def storage_impl(op):
    """The StorageImpl of operator instance ``op``, or None."""
    return _IMPLS.get(op.name)


def infer_storage(op, in_stypes):
    """Output storage types of ``op`` for input storage types ``in_stypes``, and whether
    its sparse kernel runs (False: dense fallback)."""
    impl = _IMPLS.get(op.name)
    n_out = len(op.list_outputs())
    if impl is not None:
        out = impl.infer(op, list(in_stypes))
        if out is not None:
            return list(out), True
    return ['default'] * n_out, False


# ---- storage helpers ------------------------------------------------------------------
def is_zero_map(fn, dtype):
    """Whether the elementwise function ``fn`` maps 0 to 0 (so sparsity survives it)."""
    zero = np.zeros(1, dtype=dtype)
    with np.errstate(all='ignore'):
        value = fn(zero)
    return bool(np.all(np.asarray(value) == 0))


def add_storage(stype, a, b):
    """Sum of two storages of ``stype`` ('default': numpy arrays)."""
    if stype == 'default':
        return a + b
    if stype == 'csr':
        total = (a + b).tocsr()
        total.sort_indices()
        return total
    rows = np.union1d(a.indices, b.indices).astype(a.indices.dtype, copy=False)
    data = np.zeros((len(rows),) + tuple(a.shape[1:]), dtype=np.result_type(a.data, b.data))
    data[np.searchsorted(rows, a.indices)] += a.data
    data[np.searchsorted(rows, b.indices)] += b.data
    return RowSparseStorage(data, rows, a.shape)


def _as_storage(value, stype, dtype):
    """``value`` (numpy array, scipy csr or RowSparseStorage) as storage of ``stype``."""
    if stype == 'default':
        dense = value if isinstance(value, np.ndarray) else value.toarray()
        return dense
    if isinstance(value, np.ndarray):
        return to_storage(np.asarray(value, dtype=dtype), stype)
    if stype == 'csr' and not hasattr(value, 'indptr'):
        return to_storage(value.toarray(), 'csr')
    if stype == 'row_sparse' and not isinstance(value, RowSparseStorage):
        return to_storage(value.toarray(), 'row_sparse')
    return value


def store_array(dst, value, req='write'):
    """Write ``value`` (numpy array, scipy csr matrix or RowSparseStorage) into NDArray
    ``dst`` following ``req``, converting to ``dst``'s storage type."""
    if req == 'null':
        return
    if isinstance(dst, BaseSparseNDArray):
        storage = _as_storage(value, dst.stype, dst.dtype)
        if storage.dtype != np.dtype(dst.dtype):
            storage = _cast(storage, dst.dtype)
        if req == 'add':
            storage = add_storage(dst.stype, dst._data, storage)
        dst._set_storage(storage)
        return
    dense = value if isinstance(value, np.ndarray) else value.toarray()
    if req == 'add':
        dst._data += dense
    else:
        np.copyto(dst._data, dense, casting='unsafe')


def _cast(storage, dtype):
    if isinstance(storage, RowSparseStorage):
        return RowSparseStorage(storage.data.astype(dtype), storage.indices, storage.shape)
    return storage.astype(dtype)


def _dense_inputs(inputs):
    return [x._host() if isinstance(x, BaseSparseNDArray) else x._data for x in inputs]


def dense_forward(op, is_train, inputs, outputs):
    """Run the dense kernel of ``op`` on densified inputs and store into ``outputs``
    (converted to their storage types); auxiliary states are written back."""
    n_args = len(op.list_arguments())
    host = _dense_inputs(inputs)
    dense_outs = [o._data if not isinstance(o, BaseSparseNDArray)
                  else np.empty(o.shape, dtype=o.dtype) for o in outputs]
    op.forward(is_train, ['write'] * len(outputs), host[:n_args], dense_outs, host[n_args:])
    for x, a in zip(inputs[n_args:], host[n_args:]):
        if isinstance(x, BaseSparseNDArray):
            store_array(x, a)
    for o, d in zip(outputs, dense_outs):
        if isinstance(o, BaseSparseNDArray):
            store_array(o, d)


def dense_backward(op, reqs, out_grads, inputs, outputs, in_grads):
    """The dense gradient of ``op`` on densified arrays, stored into ``in_grads`` (sparse
    destinations get the dense result converted to their storage type)."""
    n_args = len(op.list_arguments())
    host = _dense_inputs(inputs)
    dense_outs = _dense_inputs(outputs)
    dense_ograds = _dense_inputs(out_grads)
    targets, dense_reqs = [], []
    for j, (g, r) in enumerate(zip(in_grads, reqs)):
        if g is None:       # no gradient wanted: a scratch array stands in
            targets.append(np.empty(inputs[j].shape, dtype=inputs[j].dtype))
            dense_reqs.append('null')
        elif isinstance(g, BaseSparseNDArray) and r != 'null':
            targets.append(np.zeros(g.shape, dtype=g.dtype))
            dense_reqs.append('write')
        else:
            targets.append(g._data if isinstance(g._data, np.ndarray) else g._host())
            dense_reqs.append(r)
    op.backward(dense_reqs, dense_ograds, host[:n_args], dense_outs, targets, host[n_args:])
    for g, r, t in zip(in_grads, reqs, targets):
        if isinstance(g, BaseSparseNDArray) and r != 'null':
            store_array(g, t, r)


def new_output(stype, shape, dtype, ctx):
    """An NDArray container of ``stype`` to be filled by a kernel."""
    from ...ndarray.sparse_array import new_sparse
    if stype == 'default':
        return NDArray(np.empty(shape, dtype=dtype), ctx)
    return new_sparse(stype, empty_sparse(stype, shape, dtype), ctx)


def check_stype(value, what='stype'):
    if value not in ('default', 'row_sparse', 'csr'):
        raise MXNetError("%s must be one of 'default', 'row_sparse', 'csr', found %r"
                         % (what, value))
    return value
