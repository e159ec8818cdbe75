"""NDArray indexing helpers: differentiable indexing with any key while autograd records,
and MXNet's public indexing utilities (``get_indexing_dispatch_code``,
``indexing_key_expand_implicit_axes``, ``get_oshape_of_gather_nd_op``)."""
import numpy as np

from ..autograd import Function
from ..base import integer_types
from .ndarray import NDArray

__all__ = ['get_indexing_dispatch_code', 'indexing_key_expand_implicit_axes',
           'get_oshape_of_gather_nd_op']

# MXNet's dispatch codes
_NDARRAY_UNSUPPORTED_INDEXING = -1
_NDARRAY_BASIC_INDEXING = 0
_NDARRAY_ADVANCED_INDEXING = 1
_NDARRAY_EMPTY_TUPLE_INDEXING = 2


def host_key(key):
    """``key`` with NDArrays replaced by int64 numpy arrays."""
    if isinstance(key, NDArray):
        return key.asnumpy().astype(np.int64)
    if isinstance(key, tuple):
        return tuple(k.asnumpy().astype(np.int64) if isinstance(k, NDArray) else k for k in key)
    return key


class IndexGather(Function):
    """``x[key]`` for any numpy-style key, differentiable: the gradient scatters (adds) the
    head gradient back to the indexed positions."""

    def __init__(self, key):
        super().__init__()
        self._key = host_key(key)
        self._in_shape = None
        self._out_shape = None

    def forward(self, x):
        self._in_shape = x.shape
        value = np.asarray(x.asnumpy()[self._key])
        self._out_shape = value.shape
        return NDArray(value.reshape(value.shape or (1,)), x.context)

    def backward(self, dy):
        grad = np.zeros(self._in_shape, dtype=dy.dtype)
        np.add.at(grad, self._key, dy.asnumpy().reshape(self._out_shape))
        return NDArray(grad, dy.context)


def get_indexing_dispatch_code(key):
    """MXNet's code for an indexing key tuple: 0 basic (ints, slices, None), 1 advanced
    (arrays, lists, ranges), 2 an empty tuple among them."""
    if not isinstance(key, tuple):
        raise TypeError('key must be a tuple, found %s' % type(key).__name__)
    for idx in key:
        if isinstance(idx, (NDArray, np.ndarray, list, tuple, range)):
            if isinstance(idx, tuple) and len(idx) == 0:
                return _NDARRAY_EMPTY_TUPLE_INDEXING
            return _NDARRAY_ADVANCED_INDEXING
        if not (isinstance(idx, (slice, integer_types)) or idx is None):
            raise ValueError('NDArray does not support slicing with key %s of type %s.'
                             % (idx, type(idx)))
    return _NDARRAY_BASIC_INDEXING


def indexing_key_expand_implicit_axes(key, shape):
    """``key`` with the axes it leaves implicit (a missing tail, ``...``) made explicit as
    ``slice(None)``; returns ``(expanded key, 0)`` (the second item is MXNet's flag for
    zero-dim boolean keys, which legacy arrays do not have)."""
    if not isinstance(key, tuple):
        key = (key,)
    ellipsis = None
    explicit = []
    new_axes = 0
    for i, idx in enumerate(key):
        if idx is Ellipsis:
            if ellipsis is not None:
                raise IndexError('Cannot use more than one ellipsis (`...`) for indexing')
            ellipsis = i
            continue
        if idx is None:
            new_axes += 1
        elif isinstance(idx, (NDArray, np.ndarray)) and idx.dtype == np.bool_:
            raise ValueError('Cannot perform boolean indexing in legacy mode.')
        elif isinstance(idx, NDArray) and idx.ndim == 0:
            idx = int(idx.asscalar())
        explicit.append(idx)
    if ellipsis is None:
        ellipsis = len(explicit)
    missing = len(shape) + new_axes - len(explicit)
    expanded = tuple(explicit[:ellipsis]) + (slice(None),) * missing + tuple(explicit[ellipsis:])
    return expanded, 0


def get_oshape_of_gather_nd_op(dshape, ishape):
    """The output shape of ``gather_nd`` for data of shape ``dshape`` and indices of shape
    ``ishape`` (``ishape[0]`` leading data axes are indexed)."""
    if not dshape or not ishape:
        raise ValueError('gather_nd needs non-empty data and index shapes')
    oshape = list(ishape[1:])
    if ishape[0] < len(dshape):
        oshape.extend(dshape[ishape[0]:])
    return tuple(oshape)
