"""Optimizer updates with row_sparse gradients (and row_sparse weights or states).

MXNet's SGD, Adam, AdaGrad, FTRL and GroupAdaGrad have row-sparse kernels: with
``lazy_update`` (the default) only the rows the gradient holds are touched; SGD and Adam
with ``lazy_update=False`` apply the standard update to every row, a missing row having
gradient zero. Every other optimizer, as in MXNet, updates from the densified gradient.
float16 weights, which the row kernels do not take, get their lazy updates from the dense
kernel run on the gradient's rows only (MXNet's sparse kernels run in float16 too).

A row_sparse weight or state must hold every row (MXNet's CheckAllRowsPresent for
weights); an empty row_sparse state, as ``create_state`` makes for a row_sparse weight,
is filled with zero rows first (MXNet's FillDnsZerosRspImpl).

The first lazy row_sparse update in a process logs MXNet's notice (INFO, logger
``symmod.optimizer``) that lazy updates differ from standard ones.
"""
import logging

import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from ..ndarray.sparse_array import BaseSparseNDArray, RowSparseNDArray, RowSparseStorage

__all__ = ['has_sparse', 'rows_view', 'row_sparse_parts', 'sparse_update', 'position_of',
           'dense_fallback', 'lazy_rows_fallback', 'log_lazy_update']

_LOG = logging.getLogger('symmod.optimizer')
LAZY_UPDATE_NOTICE = ('Optimizer with lazy_update = True detected. Be aware that lazy update '
                      'with row_sparse gradient is different from standard update, and may '
                      'lead to different empirical results. See '
                      'https://mxnet.apache.org/api/python/optimization/optimization.html for '
                      'more details.')
_logged = set()


def log_lazy_update():
    """Log MXNet's lazy-update notice, once per process (MXNet's LogOnce)."""
    if LAZY_UPDATE_NOTICE not in _logged:
        _logged.add(LAZY_UPDATE_NOTICE)
        _LOG.info(LAZY_UPDATE_NOTICE)


def has_sparse(weights, grads):
    """Whether any weight or gradient has sparse storage."""
    return any(isinstance(a, BaseSparseNDArray) for a in weights) or \
        any(isinstance(a, BaseSparseNDArray) for a in grads)


def rows_view(array, what='weight'):
    """A 2-D ``(rows, row_length)`` numpy view of a dense or full row_sparse NDArray that
    writes through to its storage."""
    if isinstance(array, RowSparseNDArray):
        s = array._data
        n = s.shape[0]
        if len(s.indices) == 0:
            s = RowSparseStorage(np.zeros(s.shape, dtype=s.dtype),
                                 np.arange(n, dtype=np.int64), s.shape)
            array._set_storage(s)
        elif len(s.indices) != n or s.indices[0] != 0 or s.indices[-1] != n - 1:
            raise MXNetError('%s: a row_sparse %s must hold all %d rows for an optimizer '
                             'update, found %d' % (what, what, n, len(s.indices)))
        return s.data.reshape(n, -1)
    if isinstance(array, BaseSparseNDArray):
        raise MXNetError('%s: csr storage cannot be updated by an optimizer' % what)
    data = array._data
    if not isinstance(data, np.ndarray):
        raise MXNetError('row_sparse gradients update host (cpu) arrays only; the %s is on %s'
                         % (what, array.context))
    return data.reshape(data.shape[0], -1) if data.ndim else data.reshape(1, 1)


def row_sparse_parts(grad, dtype):
    """(row indices int64, 2-D values in ``dtype``) of a row_sparse gradient."""
    s = grad._data
    # explicit width: a gradient with no rows stored is (0, width), not reshape(0, -1)
    values = s.data.reshape(len(s.indices), int(np.prod(s.shape[1:], dtype=np.int64)))
    if values.dtype != dtype:
        values = values.astype(dtype)
    return s.indices.astype(np.int64, copy=False), np.ascontiguousarray(values)


def position_of(rows, count):
    """``position[row]``: the gradient row holding ``row``, or -1."""
    position = np.full(count, -1, dtype=np.int64)
    position[rows] = np.arange(len(rows), dtype=np.int64)
    return position


def _csr_copy(array, written):
    """A dense copy of csr ``array``, written back after the update (MXNet's storage
    fallback casts mutated csr outputs back)."""
    dense = NDArray(np.array(array._host()), array.context)
    written.append((array, dense))
    return dense


def _dense_state(state, written):
    """A state with row_sparse arrays replaced by dense NDArray views of their rows and
    csr arrays by dense copies (listed in ``written``)."""
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return type(state)(_dense_state(s, written) for s in state)
    if isinstance(state, RowSparseNDArray):
        return NDArray(rows_view(state, 'state').reshape(state.shape), state.context)
    if isinstance(state, BaseSparseNDArray):
        return _csr_copy(state, written)
    return state


def _densified(array, what, written):
    if isinstance(array, RowSparseNDArray) and what == 'weight':
        return NDArray(rows_view(array).reshape(array.shape), array.context)
    if isinstance(array, BaseSparseNDArray) and what == 'weight':
        return _csr_copy(array, written)
    if isinstance(array, BaseSparseNDArray):
        return NDArray(array._host(), array.context)
    return array


def dense_fallback(optimizer, weight, grad, state, hp):
    """The optimizer's dense kernel on dense views of the weight and states (copies of
    csr ones, written back) and a dense copy of the gradient."""
    written = []
    w = _densified(weight, 'weight', written)
    g = _densified(grad, 'gradient', written)
    if np.dtype(g.dtype) != np.dtype(w.dtype):
        g = g.astype(w.dtype)
    optimizer._dense_single_update(w, g, _dense_state(state, written), hp)
    for target, dense in written:
        target[:] = dense


def _rows_of_state(state, rows, gathered):
    """The state with each array replaced by an NDArray of its ``rows`` (listed in
    ``gathered`` as (row view, copy) to scatter back)."""
    if state is None:
        return None
    if isinstance(state, (tuple, list)):
        return type(state)(_rows_of_state(s, rows, gathered) for s in state)
    view = rows_view(state, 'state')
    part = NDArray(view[rows], state.context)
    gathered.append((view, part))
    return part


def lazy_rows_fallback(optimizer, weight, grad, state, hp):
    """A lazy update for weight types the row kernels do not take (float16): the
    optimizer's dense kernel on copies of the gradient's rows of the weight and states,
    written back. MXNet's sparse kernels update those rows only, in the weight's type;
    the other rows keep their bits."""
    view = rows_view(weight)
    rows, values = row_sparse_parts(grad, view.dtype)
    if not len(rows):
        return
    gathered = [(view, NDArray(view[rows], weight.context))]
    part_state = _rows_of_state(state, rows, gathered)
    optimizer._dense_single_update(gathered[0][1], NDArray(values, weight.context),
                                   part_state, hp)
    for target, part in gathered:
        target[rows] = part._data


def _master_copy_step(step, weight, grad, state, hp):
    """MXNet's Optimizer.update_multi_precision: the row step on the float32 master copy
    with a float32 gradient, then the weight takes the master copy rounded."""
    master, inner = state
    step(master, grad.astype(np.float32), inner, hp)
    rows_view(weight)[...] = rows_view(master)


def sparse_update(optimizer, weights, grads, states, rows):
    """Update each weight: the optimizer's row-sparse step for a row_sparse gradient when
    it has one (``_row_sparse_step``), else its dense kernel on the densified gradient."""
    step = getattr(optimizer, '_row_sparse_step', None)
    for weight, grad, state, hp in zip(weights, grads, states, rows):
        if step is not None and isinstance(grad, RowSparseNDArray):
            if optimizer._mp_calls_update and optimizer._uses_master_copy(weight, state):
                _master_copy_step(step, weight, grad, state, hp)
            else:
                step(weight, grad, state, hp)
        else:
            dense_fallback(optimizer, weight, grad, state, hp)
