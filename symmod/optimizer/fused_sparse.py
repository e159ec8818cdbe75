"""Row-sparse gradients for the fused update functions (``mx.nd.sgd_update`` ...) and
``mx.nd.sparse.adagrad_update``, with MXNet 1.9.1's rules for a dense weight:

- ``sgd_update``, ``sgd_mom_update`` and ``adam_update`` with ``lazy_update=True`` (the
  default) update only the rows the gradient holds; the other rows of the weight and its
  states keep their values, as MXNet's sparse kernels do.
- With ``lazy_update=False``, and for every other update (MXNet's storage fallback), the
  gradient is densified (a missing row is a zero gradient) and the dense update runs.
- MXNet's row-sparse kernels (SGD, SGD momentum, Adam, AdaGrad, lazy or not) write the weight
  in place only: ``out`` must be the weight.
- ``adagrad_update`` exists only for row_sparse gradients (MXNet's ``_sparse_adagrad_update``)
  and takes no weight decay.
"""
import functools
import inspect

import numpy as np

from ..base import MXNetError
from ..ndarray.ndarray import NDArray
from .kernels import sparse_rows
from .sparse import log_lazy_update, row_sparse_parts, rows_view

__all__ = ['row_sparse_grad', 'adagrad_update']


def _stype(array):
    return getattr(array, 'stype', 'default')


def row_sparse_grad(n_states, lazy=False):
    """Decorate a single-weight update taking ``(weight, grad, *states, ...)`` so that a
    row_sparse ``grad`` is handled as MXNet does (module docstring); ``lazy``: the update
    has a lazy row-sparse kernel in MXNet."""
    def wrap(update):
        signature = inspect.signature(update)
        state_names = list(signature.parameters)[2:2 + n_states]

        @functools.wraps(update)
        def call(*args, **kwargs):
            grad = args[1] if len(args) > 1 else kwargs.get('grad')
            if _stype(grad) == 'default':
                return update(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = bound.arguments
            name = update.__name__
            if _stype(grad) != 'row_sparse':
                raise MXNetError('%s: the gradient must have default or row_sparse storage, '
                                 'found %s' % (name, _stype(grad)))
            arrays = [values['weight']] + [values[s] for s in state_names]
            for what, array in zip(['weight'] + state_names, arrays):
                if _stype(array) != 'default':
                    raise MXNetError('%s with a row_sparse gradient: the %s must have default '
                                     'storage here, found %s (optimizer classes take '
                                     'row_sparse weights)' % (name, what, _stype(array)))
            if lazy:
                _check_in_place(name, values['weight'], values['out'])
            if not (lazy and values.get('lazy_update', False)):
                values['grad'] = grad.tostype('default')
                return update(*bound.args, **bound.kwargs)
            if n_states or values.get('wd', 0) != 0:
                log_lazy_update()   # MXNet: sgd_update logs only with weight decay
            return _lazy(update, bound, state_names)
        return call
    return wrap


def _check_in_place(name, weight, out):
    if out is not weight:
        raise MXNetError('%s with a row_sparse gradient updates the weight in place: pass '
                         'out=weight (MXNet: kWriteInplace is expected for sparse %s)'
                         % (name, name))


def _lazy(update, bound, state_names):
    """The dense update on copies of the gradient's rows, written back."""
    values = bound.arguments
    weight = out = values['weight']
    target = rows_view(out)
    rows, grad_rows = row_sparse_parts(values['grad'], target.dtype)
    if not len(rows):
        return out
    row_shape = (len(rows),) + tuple(weight.shape[1:])
    ctx = weight.context
    parts = [(target, NDArray(target[rows].reshape(row_shape), ctx))]
    for name in state_names:
        view = rows_view(values[name], 'state')
        parts.append((view, NDArray(view[rows].reshape(row_shape), ctx)))
    values['weight'] = parts[0][1]
    values['out'] = parts[0][1]
    values['grad'] = NDArray(grad_rows.reshape(row_shape), ctx)
    for name, (_, part) in zip(state_names, parts[1:]):
        values[name] = part
    update(*bound.args, **bound.kwargs)
    for view, part in parts:
        view[rows] = part.asnumpy().reshape(len(rows), -1)
    return out


def adagrad_update(weight, grad, history, lr, epsilon=1e-7, wd=0, rescale_grad=1,
                   clip_gradient=-1, out=None, name=None):
    """AdaGrad on the rows of a row_sparse gradient (MXNet's ``_sparse_adagrad_update``):
    ``history += g * g``; ``weight -= lr * g / (sqrt(history) + epsilon)`` with
    ``g = clip(rescale_grad * grad, clip_gradient)``, for those rows only.

    Examples
    --------
    >>> w, h = mx.nd.ones((3, 2)), mx.nd.zeros((3, 2))
    >>> g = mx.nd.sparse.row_sparse_array((np.ones((1, 2)), [1]), shape=(3, 2))
    >>> mx.nd.sparse.adagrad_update(w, g, h, lr=0.1, out=w).asnumpy()[:, 0]
    array([1. , 0.9, 1. ], dtype=float32)
    """
    if wd != 0:
        raise MXNetError('sparse adagrad_update does not support wd, found wd=%s' % wd)
    if _stype(grad) != 'row_sparse':
        raise MXNetError('adagrad_update: the gradient must have row_sparse storage, found %s'
                         % _stype(grad))
    for what, array in (('weight', weight), ('history', history)):
        if array.shape != grad.shape:
            raise MXNetError('adagrad_update: shape mismatch, expected %s (the gradient), '
                             'found %s for the %s' % (grad.shape, array.shape, what))
    _check_in_place('adagrad_update', weight, out)
    w = rows_view(out)
    h = rows_view(history, 'history')
    if h.dtype != w.dtype:
        raise MXNetError('adagrad_update: history dtype %s differs from the weight dtype %s'
                         % (h.dtype, w.dtype))
    rows, g = row_sparse_parts(grad, w.dtype)
    if w.dtype == np.float32:
        scalars = (np.float32(v) for v in (lr, epsilon, rescale_grad, clip_gradient))
        sparse_rows.adagrad_rows(w, h, rows, g, *scalars)
    elif len(rows):
        grad = g * w.dtype.type(rescale_grad)
        if clip_gradient >= 0:
            np.clip(grad, -clip_gradient, clip_gradient, out=grad)
        h[rows] += grad * grad
        w[rows] -= w.dtype.type(lr) * grad / np.sqrt(h[rows] + w.dtype.type(epsilon))
    return out
