"""Reductions over axes: sum, mean, prod, nansum, nanprod, max, min, norm, and the
index searches argmax, argmin, argmax_channel.

``axis`` is an int, a tuple, or None / ``()`` for every axis; ``exclude=True`` reduces
the axes *not* listed; ``keepdims`` keeps reduced axes as size 1. A reduction to a
scalar has shape ``(1,)`` (MXNet 1.x has no 0-d arrays).
"""
import math

import numpy as np

from ..base import MXNetError, parse_bool, parse_int, parse_optional, parse_tuple
from .common import store_cast, zero_grad
from .elemwise import divide
from .registry import Operator, Param, ShapeError, register

__all__ = ['reduce_axes', 'reduced_shape']


def reduce_axes(shape, axis, exclude, opname):
    """The sorted axes of ``shape`` a reduction with these parameters sums over."""
    ndim = len(shape)
    if axis is None or len(axis) == 0:
        return tuple(range(ndim))
    axes = sorted(a + ndim if a < 0 else a for a in axis)
    for a, b in zip(axes, axes[1:]):
        if a == b:
            raise ShapeError('%s: reduction axes have duplicates: %s' % (opname, tuple(axis)))
    if axes[-1] >= ndim or axes[0] < 0:
        raise ShapeError('%s: reduction axis %s exceeds input dimensions %s'
                         % (opname, tuple(axis), tuple(shape)))
    if exclude:
        return tuple(a for a in range(ndim) if a not in axes)
    return tuple(axes)


def reduced_shape(shape, axes, keepdims):
    """The output shape of reducing ``shape`` over ``axes`` ((1,) when nothing is left)."""
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    return kept or (1,)


class ReduceAxes(Operator):
    """Base of reductions with MXNet's ``axis`` / ``keepdims`` / ``exclude`` parameters.

    Subclasses define ``reduce(x, axes, out)`` (keepdims-shaped ``out``, or None for
    a new array) and ``grad(x, y, dy, out)``, which writes the input gradient into
    ``out``; ``y`` and ``dy`` come reshaped with the reduced axes kept, so they
    broadcast against ``x``.
    """
    params = (Param('axis', parse_optional(parse_tuple), None,
                    'The axis or axes to reduce; None or () for all.'),
              Param('keepdims', parse_bool, False, 'Keep reduced axes as size-1 dimensions.'),
              Param('exclude', parse_bool, False, 'Reduce over the axes NOT in axis.'))

    def axes_for(self, shape):
        """The reduced axes for an input shape."""
        return reduce_axes(shape, self.axis, self.exclude, self.name)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            shape = reduced_shape(data, self.axes_for(data), self.keepdims)
            if out is not None and tuple(out) != shape and all(out):
                raise ShapeError('%s: output shape %s does not match %s reduced to %s'
                                 % (self.name, tuple(out), tuple(data), shape))
            out = shape
        return [data], [out], list(aux_shapes)

    def _kept(self, x):
        """(reduced axes, input shape with those axes set to 1), cached per input shape."""
        cache = self.__dict__.setdefault('_plans', {})
        plan = cache.get(x.shape)
        if plan is None:
            axes = self.axes_for(x.shape)
            plan = cache[x.shape] = (axes, tuple(1 if i in axes else d
                                                 for i, d in enumerate(x.shape)))
        return plan

    def forward(self, is_train, req, in_data, out_data, aux):
        x, out, r = in_data[0], out_data[0], req[0]
        if r == 'null':
            return
        axes, kept = self._kept(x)
        with np.errstate(all='ignore'):
            if r == 'add':
                out += self.reduce(x, axes, None).reshape(out.shape)
            else:
                self.reduce(x, axes, out.reshape(kept))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        dst, r = in_grad[0], req[0]
        if r == 'null':
            return
        _, kept = self._kept(dst)
        dy = out_grad[0].reshape(kept)
        y = out_data[0].reshape(kept) if self.backward_uses_outputs else None
        with np.errstate(all='ignore'):
            if r == 'add':
                dst += self.grad(in_data[0], y, dy, np.empty_like(dst))
            else:
                self.grad(in_data[0], y, dy, dst)


def _count(x, axes):
    return math.prod(x.shape[a] for a in axes)


@register
class Sum(ReduceAxes):
    """Sum of array elements over the given axes.

    Examples
    --------
    >>> mx.nd.sum(mx.nd.ones((2, 3)), axis=1).asnumpy()
    array([3., 3.], dtype=float32)
    """
    name = 'sum'
    aliases = ('sum_axis', '_sparse_sum')
    backward_uses_inputs = False
    backward_uses_outputs = False

    def reduce(self, x, axes, out):
        return np.sum(x, axis=axes, dtype=x.dtype, keepdims=True, out=out)

    def grad(self, x, y, dy, out):
        np.copyto(out, dy)
        return out


@register
class Mean(ReduceAxes):
    """Mean of array elements over the given axes (integer means truncate).

    Examples
    --------
    >>> mx.nd.mean(mx.nd.array([[1, 2], [3, 5]]), axis=0).asnumpy()
    array([2. , 3.5], dtype=float32)
    """
    name = 'mean'
    aliases = ('_sparse_mean',)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def reduce(self, x, axes, out):
        total = np.sum(x, axis=axes, dtype=x.dtype, keepdims=True, out=out)
        return divide(total, np.asarray(_count(x, axes), total.dtype), out=total)

    def grad(self, x, y, dy, out):
        return divide(dy, np.asarray(out.size // dy.size, out.dtype), out=out)


@register
class Prod(ReduceAxes):
    """Product of array elements over the given axes.

    The gradient is ``dy * prod / x`` (MXNet's formula, so a zero element gives a
    non-finite gradient).

    Examples
    --------
    >>> mx.nd.prod(mx.nd.array([[1, 2], [3, 4]]), axis=1).asnumpy()
    array([ 2., 12.], dtype=float32)
    """
    name = 'prod'

    def reduce(self, x, axes, out):
        return np.prod(x, axis=axes, dtype=x.dtype, keepdims=True, out=out)

    def grad(self, x, y, dy, out):
        value = np.divide(y, x, out=out)
        value *= dy
        return value


@register
class NanSum(ReduceAxes):
    """Sum over the given axes treating NaN as zero; NaN elements get zero gradient.

    Examples
    --------
    >>> mx.nd.nansum(mx.nd.array([1, float('nan'), 2])).asnumpy()
    array([3.], dtype=float32)
    """
    name = 'nansum'
    backward_uses_outputs = False

    def reduce(self, x, axes, out):
        return np.nansum(x, axis=axes, dtype=x.dtype, keepdims=True, out=out)

    def grad(self, x, y, dy, out):
        return np.multiply(dy, ~np.isnan(x), out=out)


@register
class NanProd(ReduceAxes):
    """Product over the given axes treating NaN as one; NaN elements get zero gradient.

    Examples
    --------
    >>> mx.nd.nanprod(mx.nd.array([2, float('nan'), 3])).asnumpy()
    array([6.], dtype=float32)
    """
    name = 'nanprod'

    def reduce(self, x, axes, out):
        return np.nanprod(x, axis=axes, dtype=x.dtype, keepdims=True, out=out)

    def grad(self, x, y, dy, out):
        value = np.divide(y, x, out=out)
        np.copyto(value, 0, where=np.isnan(x))
        value *= dy
        return value


class _Extreme(ReduceAxes):
    """max / min: the gradient goes to every element equal to the result (ties included)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        if in_data[0].size == 0:
            raise MXNetError("%s: reduction input's size should be > 0, found shape %s"
                             % (self.name, in_data[0].shape))
        super().forward(is_train, req, in_data, out_data, aux)

    def grad(self, x, y, dy, out):
        return np.multiply(dy, np.equal(x, y), out=out)


@register
class Max(_Extreme):
    """Maximum over the given axes (NaN propagates).

    Examples
    --------
    >>> mx.nd.max(mx.nd.array([[1, 5], [7, 2]]), axis=1).asnumpy()
    array([5., 7.], dtype=float32)
    """
    name = 'max'
    aliases = ('max_axis',)

    def reduce(self, x, axes, out):
        return np.max(x, axis=axes, keepdims=True, out=out)


@register
class Min(_Extreme):
    """Minimum over the given axes (NaN propagates).

    Examples
    --------
    >>> mx.nd.min(mx.nd.array([[1, 5], [7, 2]]), axis=1).asnumpy()
    array([1., 2.], dtype=float32)
    """
    name = 'min'
    aliases = ('min_axis',)

    def reduce(self, x, axes, out):
        return np.min(x, axis=axes, keepdims=True, out=out)


_NORM_DTYPES = ('float16', 'float32', 'float64', 'int64', 'int32', 'int8')


def _parse_norm_dtype(value):
    dtype = np.dtype(str(value))
    if dtype.name not in _NORM_DTYPES:
        raise ValueError('expected one of None, %s, found %r' % (', '.join(_NORM_DTYPES), value))
    return dtype


@register
class Norm(ReduceAxes):
    """L1 (``ord=1``) or L2 (``ord=2``) norm over the given axes.

    Over two axes the L2 norm is the Frobenius norm of each matrix.

    Parameters
    ----------
    ord : int, default 2
        1 or 2.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out_dtype : str, optional
        Output dtype; the input's by default.
    keepdims : bool, default False
        Keep reduced axes as size-1 dimensions.

    Examples
    --------
    >>> mx.nd.norm(mx.nd.array([3, 4])).asnumpy()
    array([5.], dtype=float32)
    """
    name = 'norm'
    aliases = ('_sparse_norm',)
    params = (Param('ord', parse_int, 2, 'Order of the norm: 1 or 2.'),
              Param('axis', parse_optional(parse_tuple), None,
                    'The axis or axes to reduce; None or () for all.'),
              Param('out_dtype', parse_optional(_parse_norm_dtype), None,
                    'The data type of the output.'),
              Param('keepdims', parse_bool, False, 'Keep reduced axes as size-1 dimensions.'))
    exclude = False

    def check_params(self):
        if self.ord not in (1, 2):
            raise MXNetError('norm only supports ord=1 and ord=2, found ord=%d' % self.ord)

    def infer_type(self, in_types, out_types, aux_types):
        if self.out_dtype is None:
            return super().infer_type(in_types, out_types, aux_types)
        return list(in_types), [self.out_dtype], list(aux_types)

    def reduce(self, x, axes, out):
        if x.dtype.kind in 'fc':
            work = x
        else:
            work = x.astype(np.float64)
        if self.ord == 1:
            value = np.sum(np.abs(work), axis=axes, keepdims=True)
        else:
            value = np.sqrt(np.sum(np.square(work), axis=axes, keepdims=True))
        if out is None:
            return value.astype(self.out_dtype or x.dtype)
        np.copyto(out, value, casting='unsafe')
        return out

    def grad(self, x, y, dy, out):
        dy = dy.astype(x.dtype, copy=False)
        if self.ord == 1:
            value = np.sign(x, out=out)
            np.copyto(value, 0, where=np.isnan(x))
        else:
            value = np.divide(x, y.astype(x.dtype, copy=False), out=out)
        value *= dy
        return value


# ---- index searches ------------------------------------------------------------------
class _Search(Operator):
    """argmax / argmin: the index (first occurrence; NaN counts as the extreme) along
    one axis, or of the flattened array when ``axis`` is None, in the input's dtype."""
    params = (Param('axis', parse_optional(parse_int), None,
                    'The axis to search; None searches the flattened array.'),
              Param('keepdims', parse_bool, False, 'Keep the searched axis as size 1.'))
    search = None
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _axis(self, ndim):
        axis = self.axis
        if axis is None:
            return None
        if not -ndim <= axis < ndim:
            raise ShapeError('%s: axis %d exceeds the input dimension of %d'
                             % (self.name, axis, ndim))
        return axis % ndim

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None:
            axis = self._axis(len(data))
            if axis is None or len(data) == 1:
                out = (1,) * len(data) if self.keepdims else (1,)
            elif self.keepdims:
                out = tuple(1 if i == axis else d for i, d in enumerate(data))
            else:
                out = tuple(d for i, d in enumerate(data) if i != axis)
        return [data], [out], list(aux_shapes)

    def forward(self, is_train, req, in_data, out_data, aux):
        x, out, r = in_data[0], out_data[0], req[0]
        if r == 'null':
            return
        if x.size == 0:
            raise MXNetError('%s: attempt to search an empty sequence of shape %s'
                             % (self.name, x.shape))
        axis = self._axis(x.ndim)
        index = type(self).search(x.reshape(-1) if axis is None else x, axis=axis)
        store_cast(out, r, np.reshape(index, out.shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


@register
class Argmax(_Search):
    """Index of the maximum along ``axis`` (first occurrence), as the input's dtype.

    Examples
    --------
    >>> mx.nd.argmax(mx.nd.array([[0, 1, 2], [3, 4, 5]]), axis=1).asnumpy()
    array([2., 2.], dtype=float32)
    """
    name = 'argmax'
    zero_gradient = True
    search = staticmethod(np.argmax)


@register
class Argmin(_Search):
    """Index of the minimum along ``axis`` (first occurrence), as the input's dtype.

    Examples
    --------
    >>> mx.nd.argmin(mx.nd.array([[0, 1, 2], [3, 4, 5]]), axis=0).asnumpy()
    array([0., 0., 0.], dtype=float32)
    """
    name = 'argmin'
    zero_gradient = True
    search = staticmethod(np.argmin)


@register
class ArgmaxChannel(_Search):
    """Index of the maximum along axis 1 (the channel axis), as the input's dtype.

    MXNet registers no gradient for this operator.

    Examples
    --------
    >>> mx.nd.argmax_channel(mx.nd.array([[0, 1, 2], [3, 4, 5]])).asnumpy()
    array([2., 2.], dtype=float32)
    """
    name = 'argmax_channel'
    params = ()
    axis = 1
    keepdims = False
    search = staticmethod(np.argmax)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise MXNetError('Operator argmax_channel is non-differentiable because it did not '
                         'register a gradient')
