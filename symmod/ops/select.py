"""Elementwise operators that pick or re-type values rather than compute them: where,
Cast, zeros_like and ones_like."""
import numpy as np

from ..base import MXNetError, parse_dtype
from . import special
from .common import fill_into, store, store_cast, zero_grad
from .registry import Operator, Param, REQUIRED, register, shape_is_known, unify_all

__all__ = ['Cast', 'ZerosLike', 'OnesLike', 'Where']


_CAST_DTYPES = ('bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8')


def _parse_cast_dtype(value):
    if str(value).strip() == 'bfloat16':
        raise ValueError('bfloat16 is not supported: numpy has no bfloat16 type')
    try:
        dtype = parse_dtype(value)
    except TypeError:
        dtype = None
    if dtype is None or dtype.name not in _CAST_DTYPES:
        raise ValueError('expected one of %s, found %r' % (', '.join(_CAST_DTYPES), value))
    return dtype


@register
class Cast(Operator):
    """Casts every element to ``dtype`` (float to int truncates toward zero).

    Parameters
    ----------
    dtype : {'bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8'}
        The output type.

    Examples
    --------
    >>> mx.nd.cast(mx.nd.array([1.7, -1.7]), dtype='int32').asnumpy()
    array([ 1, -1], dtype=int32)
    """
    name = 'Cast'
    aliases = ('cast', '_npi_cast', '_npx_cast')
    params = (Param('dtype', _parse_cast_dtype, REQUIRED, 'Output data type.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_type(self, in_types, out_types, aux_types):
        if out_types[0] is not None and np.dtype(out_types[0]) != self.dtype:
            raise MXNetError('Cast: output dtype %s does not match dtype=%s'
                             % (np.dtype(out_types[0]), self.dtype))
        return list(in_types), [self.dtype], list(aux_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        with np.errstate(invalid='ignore'):     # NaN / inf to integer, as C casts do
            store_cast(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        store_cast(in_grad[0], req[0], out_grad[0])


class _Fill(Operator):
    """An array of the input's shape and dtype filled with ``value``; zero gradient."""
    value = 0
    backward_uses_inputs = False
    backward_uses_outputs = False

    def forward(self, is_train, req, in_data, out_data, aux):
        fill_into(out_data[0], req[0], self.value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


@register
class ZerosLike(_Fill):
    """An array of zeros with the input's shape and dtype.

    Examples
    --------
    >>> mx.nd.zeros_like(mx.nd.ones((2, 2))).asnumpy()
    array([[0., 0.],
           [0., 0.]], dtype=float32)
    """
    name = 'zeros_like'
    aliases = ('_sparse_zeros_like',)
    value = 0


@register
class OnesLike(_Fill):
    """An array of ones with the input's shape and dtype.

    Examples
    --------
    >>> mx.nd.ones_like(mx.nd.zeros((2,))).asnumpy()
    array([1., 1.], dtype=float32)
    """
    name = 'ones_like'
    value = 1


@register
class Where(Operator):
    """Takes elements of ``x`` where ``condition`` is nonzero, else of ``y``.

    ``condition`` has the shape of ``x`` and ``y``, or is a vector choosing whole rows
    (its length is ``x.shape[0]``). Gradients flow to ``x`` and ``y`` through the
    chosen elements; ``condition`` gets a zero gradient.

    Examples
    --------
    >>> c = mx.nd.array([1, 0]); x = mx.nd.array([1, 2]); y = mx.nd.array([3, 4])
    >>> mx.nd.where(c, x, y).asnumpy()
    array([1., 4.], dtype=float32)
    """
    name = 'where'
    aliases = ('_sparse_where',)
    backward_uses_outputs = False

    def list_arguments(self):
        return ['condition', 'x', 'y']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        cond, x, y = in_shapes
        if not shape_is_known(cond):
            # MXNet infers nothing until the condition's shape is wholly known
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        shape = unify_all([x, y, out_shapes[0]], self.name)
        if cond is not None and shape is not None:
            if len(cond) == len(shape):
                shape = cond = unify_all([cond, shape], self.name)
            elif len(cond) != 1 or (cond[0] and shape[0] and cond[0] != shape[0]):
                raise MXNetError('where: condition of shape %s must have the shape of x %s or '
                                 'be a vector of length %s' % (tuple(cond), shape, shape[0]))
        return [cond, shape, shape], [shape], list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        known = [t for t in (in_types[1], in_types[2], out_types[0]) if t is not None]
        dtype = known[0] if known else None
        for t in known:
            if np.dtype(t) != np.dtype(dtype):
                raise MXNetError('where: x, y and output must share one dtype, found %s and %s'
                                 % (np.dtype(dtype), np.dtype(t)))
        return [in_types[0], dtype, dtype], [dtype], list(aux_types)

    @staticmethod
    def _mask(cond, shape):
        mask = np.not_equal(cond, 0)
        if mask.shape != tuple(shape):
            mask = mask.reshape((-1,) + (1,) * (len(shape) - 1))
        return mask

    @staticmethod
    def _fusable(out, cond, *arrays):
        return special.fusable(out, *arrays) and cond.dtype.kind in 'biuf' and \
            cond.dtype != np.float16

    def _select(self, cond, x, y, out=None):
        if out is not None and self._fusable(out, cond, x, y):
            return special.where_forward(cond, x, y, out)
        value = np.where(self._mask(cond, x.shape), x, y)
        return value if out is None else _copy_into(out, value)

    def _pick(self, cond, dy, take, out=None):
        if out is not None and self._fusable(out, cond, dy):
            return special.where_backward(cond, dy, take, out)
        mask = self._mask(cond, dy.shape)
        value = np.where(mask if take else ~mask, dy, np.zeros((), dy.dtype))
        return value if out is None else _copy_into(out, value)

    def forward(self, is_train, req, in_data, out_data, aux):
        store(out_data[0], req[0], self._select, *in_data)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        cond, dy = in_data[0], out_grad[0]
        zero_grad(in_grad[0], req[0])
        store(in_grad[1], req[1], self._pick, cond, dy, True)
        store(in_grad[2], req[2], self._pick, cond, dy, False)


def _copy_into(out, value):
    np.copyto(out, value)
    return out
