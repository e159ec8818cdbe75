"""Imperative operator calls that involve csr / row_sparse arrays.

``register.invoke`` sends a call here when an input or ``out=`` array is sparse (it
already tests whether every array is a host numpy array, so dense calls pay nothing
more). The operator's storage rule picks the output storage types; its sparse kernel
runs, or the dense kernel runs on dense copies (MXNet's storage fallback). An ``out=``
array keeps its own storage type: the result is converted into it.
"""
import copy

import numpy as np

from ..base import MXNetError
from ..context import current_context
from .. import autograd
from .ndarray import NDArray
from .sparse_array import BaseSparseNDArray

__all__ = ['involves_sparse', 'invoke_sparse']


def involves_sparse(arrays):
    """Whether any of ``arrays`` (None entries allowed) has sparse storage."""
    return any(isinstance(a, BaseSparseNDArray) for a in arrays)


def _densified(inputs):
    return [NDArray(x._host(), x.context) if isinstance(x, BaseSparseNDArray) else x
            for x in inputs]


def _deliver(results, outs):
    """Copy results into the given ``out=`` arrays (converting storage types)."""
    delivered = []
    for i, value in enumerate(results):
        given = outs[i] if i < len(outs) else None
        if given is None:
            delivered.append(value)
            continue
        if tuple(given.shape) != tuple(value.shape):
            raise MXNetError('out= has shape %s, expected %s'
                             % (tuple(given.shape), tuple(value.shape)))
        value.copyto(given)
        delivered.append(given)
    return delivered


def invoke_sparse(op, inputs, outs, invoke_dense):
    """Run ``op`` on ``inputs`` where some array is sparse; see the module docstring."""
    from ..ops.sparse import infer_storage, storage_impl, new_output
    out_stypes, has_kernel = infer_storage(op, [x.stype for x in inputs])
    if not has_kernel:
        if op.makes_sparse:         # the dense kernel, then the conversion below
            op = copy.copy(op)
            op.makes_sparse = False
        recording = autograd.is_recording()
        # the dense copies are not the recorded arrays: record the call on the originals
        with autograd.pause(train_mode=autograd.is_training()):
            results = invoke_dense(op, _densified(inputs), out=None)
        results = results if isinstance(results, list) else [results]
        results = [r if s == 'default' else r.tostype(s)
                   for r, s in zip(results, out_stypes)]
        if recording:
            autograd._record_op(op, list(inputs), results)
        visible = _deliver(results, outs)
        return visible[0] if len(visible) == 1 else visible
    n_args = len(op.list_arguments())
    args, aux = inputs[:n_args], inputs[n_args:]
    ctx = inputs[0].context if inputs else current_context()
    if op.stateful:
        # per-call state (Custom's CustomOp) on a copy, as the dense path makes it
        op = copy.copy(op)
        op.create_state(ctx, [x.shape for x in inputs], [x.dtype for x in inputs])
    n_out = len(op.list_outputs())
    _, out_shapes, _ = op.infer_shape([x.shape for x in args], [None] * n_out,
                                      [x.shape for x in aux])
    _, out_types, _ = op.infer_type([np.dtype(x.dtype) for x in args], [None] * n_out,
                                    [np.dtype(x.dtype) for x in aux])
    outputs = [new_output(s, tuple(shape), dtype, ctx)
               for s, shape, dtype in zip(out_stypes, out_shapes, out_types)]
    storage_impl(op).forward(op, autograd.is_training(), list(inputs), outputs)
    if autograd.is_recording():
        autograd._record_op(op, inputs, outputs)
    visible = _deliver(outputs[:op.num_visible_outputs()], outs)
    return visible[0] if len(visible) == 1 else visible
