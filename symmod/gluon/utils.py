"""Data-parallel helpers (``split_data``, ``split_and_load``, ``clip_global_norm``) and the
small formatting utilities gluon shares."""
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from .. import ndarray
from .download import check_sha1, download, replace_file

__all__ = ['split_data', 'split_and_load', 'clip_global_norm', 'shape_is_known',
           'HookHandle', 'check_sha1', 'download', 'replace_file']


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Split an NDArray into ``num_slice`` slices along ``batch_axis``.

    Parameters
    ----------
    data : NDArray
        A batch of data.
    num_slice : int
        Number of slices.
    batch_axis : int, default 0
        The axis to split.
    even_split : bool, default True
        Require every slice to have the same size (else the first slices get one
        extra element each).

    Returns
    -------
    list of NDArray
        Always a list, even for one slice.

    Raises
    ------
    ValueError
        When ``even_split`` and the size is not a multiple of ``num_slice``.

    Examples
    --------
    >>> [s.shape for s in split_data(mx.nd.zeros((5, 2)), 2, even_split=False)]
    [(3, 2), (2, 2)]
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            'data with shape %s cannot be evenly split into %d slices along axis %d. '
            "Use a batch size that's multiple of %d or set even_split=False to allow "
            'uneven partitioning of data.' % (str(data.shape), num_slice, batch_axis,
                                              num_slice))
    n_each, extras = divmod(size, num_slice)
    sizes = [0] + extras * [n_each + 1] + (num_slice - extras) * [n_each]
    bounds = np.cumsum(sizes)
    if batch_axis == 0:
        return [data[int(bounds[i]):int(bounds[i + 1])] for i in range(num_slice)]
    return [ndarray.slice_axis(data, axis=batch_axis, begin=int(bounds[i]),
                               end=int(bounds[i + 1])) for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split a batch into ``len(ctx_list)`` slices and put slice i on ``ctx_list[i]``.

    Parameters
    ----------
    data : NDArray or array-like
        A batch of data.
    ctx_list : list of Context
        One context per slice.
    batch_axis : int, default 0
        The axis to split.
    even_split : bool, default True
        Require equal slices.

    Returns
    -------
    list of NDArray

    Examples
    --------
    >>> parts = split_and_load(mx.nd.zeros((4, 3)), [mx.cpu(0), mx.cpu(1)])
    >>> [p.context for p in parts]
    [cpu(0), cpu(1)]
    """
    if not isinstance(data, ndarray.NDArray):
        data = ndarray.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale arrays in place so that their joint 2-norm is at most ``max_norm``.

    Parameters
    ----------
    arrays : list of NDArray
        Typically gradients.
    max_norm : float
        The largest allowed norm.
    check_isfinite : bool, default True
        Warn when the norm is nan or inf (and return a float instead of an NDArray).

    Returns
    -------
    float or NDArray
        The norm before clipping (an NDArray of shape (1,) when not checking).
    """
    assert len(arrays) > 0
    ctx = arrays[0].context
    squares = []
    for arr in arrays:
        if arr.stype == 'default':
            flat = arr.reshape((-1,))
            squares.append(ndarray.dot(flat, flat).as_in_context(ctx))
        else:       # sparse gradients: the norm of the stored values
            squares.append(arr.norm().square().as_in_context(ctx))
    total_norm = ndarray.sqrt(ndarray.add_n(*squares))
    if check_isfinite and not np.isfinite(total_norm.asscalar()):
        warnings.warn(UserWarning('nan or inf is detected. Clipping results will be '
                                  'undefined.'), stacklevel=2)
    scale = max_norm / (total_norm + 1e-8)
    scale = ndarray.min(ndarray.concat(scale, ndarray.ones(1, ctx=ctx), dim=0))
    for arr in arrays:
        arr *= scale.as_in_context(arr.context)
    return total_norm.asscalar() if check_isfinite else total_norm


def shape_is_known(shape):
    """True when ``shape`` is given and has no unknown (0 or -1) dimension."""
    if shape is None:
        return False
    return all(dim > 0 for dim in shape)


def _indent(text, num_spaces):
    """Indent every line of ``text`` but the first."""
    lines = text.split('\n')
    if len(lines) == 1:
        return text
    return '\n'.join([lines[0]] + [(num_spaces * ' ') + line for line in lines[1:]])


def _brief_print_list(lst, limit=7):
    """A short quoted listing: the first and last few items around '...'."""
    lst = list(lst)
    if len(lst) > limit:
        return _brief_print_list(lst[:limit // 2], limit) + ', ..., ' + \
            _brief_print_list(lst[-limit // 2:], limit)
    return ', '.join(["'%s'" % str(i) for i in lst])


class HookHandle:
    """A handle to remove a forward hook registered on a Block."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        """Add ``hook`` to ``hooks_dict`` (an OrderedDict) under a fresh id."""
        assert not self._hooks_dict_ref, 'The same handle cannot be attached twice.'
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        """Remove the hook again."""
        hooks_dict = self._hooks_dict_ref()
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref(), self._id)

    def __setstate__(self, state):
        if state[0] is None:
            self._hooks_dict_ref = weakref.ref(OrderedDict())
        else:
            self._hooks_dict_ref = weakref.ref(state[0])
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()
