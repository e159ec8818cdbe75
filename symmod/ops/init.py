"""Array creation operators: _zeros, _ones, _full, _arange, _eye, _linspace and
_zeros_without_dtype without inputs, and _contrib_arange_like shaped like its input.

Their output shape and dtype come from parameters (``shape``, ``dtype`` with
default float32); ``ctx`` is accepted for MXNet compatibility and only matters to
imperative calls. ``mx.sym.zeros(shape=...)`` builds a ``_zeros`` node.
"""
import math

import numpy as np

from ..base import MXNetError, parse_bool, parse_dtype, parse_float, parse_int, \
    parse_optional, parse_tuple
from .common import fill_into, store_from, zero_grad
from .registry import Operator, Param, register, ShapeError, unify, shape_is_known

__all__ = []

_FLOAT32 = np.dtype(np.float32)


def _parse_ctx(value):
    return '' if value is None else str(value)


def _ctx_dtype_params(dtype_default=_FLOAT32):
    return (Param('ctx', _parse_ctx, '', 'Context of the output (imperative calls only).'),
            Param('dtype', parse_dtype, dtype_default, 'The output dtype.'))


class _Init(Operator):
    """Base of the creation operators: no inputs, shape and dtype from parameters."""
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return []

    def _shape(self):
        # MXNet's legacy shape rules: a 0 in ``shape`` means "unknown", and so does -1
        # (NumPy-shape semantics' unknown); graph inference fills them from where the
        # array is used
        shape = tuple(0 if d < 0 else d for d in self.shape)
        return shape if shape else None

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        out = out_shapes[0]
        shape = self._shape()
        if shape is None or (out is not None and shape_is_known(out)
                             and not shape_is_known(shape)):
            return [], [out], []
        try:
            return [], [unify(shape, out)], []
        except ShapeError:
            raise ShapeError('%s: output shape %s does not match shape=%s'
                             % (self.name, tuple(out), shape)) from None

    def infer_type(self, in_types, out_types, aux_types):
        dtype = self.dtype if self.dtype is not None else out_types[0]
        if out_types[0] is not None and dtype != out_types[0]:
            raise MXNetError('%s: output dtype %s does not match dtype=%s'
                             % (self.name, np.dtype(out_types[0]).name, np.dtype(dtype).name))
        return [], [dtype], []

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """No inputs, so nothing to differentiate."""


def _shape_params(dtype_default=_FLOAT32):
    return (Param('shape', parse_tuple, (), 'The shape of the output.'),) \
        + _ctx_dtype_params(dtype_default)


class _Constant(_Init):
    """Base of the arrays of one ``value`` (a class attribute, or _full's parameter)."""
    params = _shape_params()

    def forward(self, is_train, req, in_data, out_data, aux):
        fill_into(out_data[0], req[0], self.value)


@register
class _zeros(_Constant):
    """An array of zeros of the given ``shape`` and ``dtype``."""
    name = '_zeros'
    value = 0


@register
class _zeros_without_dtype(_Constant):
    """An array of zeros whose dtype is inferred from where it is used."""
    name = '_zeros_without_dtype'
    params = _shape_params(None)
    value = 0


@register
class _ones(_Constant):
    """An array of ones of the given ``shape`` and ``dtype``."""
    name = '_ones'
    value = 1


@register
class _full(_Constant):
    """An array of the given ``shape`` and ``dtype`` filled with ``value``."""
    name = '_full'
    params = _shape_params() + (Param('value', parse_float, doc='The fill value.'),)


@register
class _eye(_Init):
    """A 2-D array with ones on diagonal ``k`` and zeros elsewhere, of shape (N, M or N)."""
    name = '_eye'
    params = (Param('N', parse_int, doc='Number of rows.'),
              Param('M', parse_int, 0, 'Number of columns; 0 means N.'),
              Param('k', parse_int, 0, 'Diagonal index: 0 main, > 0 upper, < 0 lower.')) \
        + _ctx_dtype_params()

    def _shape(self):
        return (self.N, self.M if self.M > 0 else self.N)

    def forward(self, is_train, req, in_data, out_data, aux):
        value = np.eye(self.N, self._shape()[1], self.k, dtype=out_data[0].dtype)
        store_from(out_data[0], req[0], value)


@register
class _arange(_Init):
    """Evenly spaced values ``start, start+step, ...`` below ``stop``, each repeated
    ``repeat`` times. With only ``start`` given, the range is ``[0, start)``.

    With ``infer_range`` and no ``stop``, the length comes from the output shape.
    """
    name = '_arange'
    params = (Param('start', parse_float, doc='Start of the interval (included).'),
              Param('stop', parse_optional(parse_float), None, 'End of the interval (excluded).'),
              Param('step', parse_float, 1.0, 'Spacing between values.'),
              Param('repeat', parse_int, 1, 'Times each value is repeated.'),
              Param('infer_range', parse_bool, False,
                    'Infer stop from the output size when stop is not given.')) \
        + _ctx_dtype_params()

    def check_params(self):
        if not self.infer_range and self.stop is None:
            self.start, self.stop = 0.0, self.start
        if self.step == 0:
            raise MXNetError('_arange: does not support step=0, received %s' % self.step)
        if self.repeat <= 0:
            raise MXNetError('_arange: only supports repeat > 0, received %d' % self.repeat)
        if self.stop is not None:
            if (self.step > 0 and not self.start < self.stop) or \
                    (self.step < 0 and not self.start > self.stop):
                raise MXNetError('_arange: invalid range (start, stop, step) = (%s, %s, %s)'
                                 % (self.start, self.stop, self.step))

    def _shape(self):
        if self.stop is None:
            return None
        return (int(math.ceil((self.stop - self.start) / self.step)) * self.repeat,)

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        store_from(out, req[0], _range_values(out.size, self.start, self.step, self.repeat,
                                              out.dtype).reshape(out.shape))


def _range_values(size, start, step, repeat, dtype):
    """``start + (i // repeat) * step`` for i below ``size``, in ``dtype`` as MXNet's
    kernel computes it. (For float16 MXNet 1.9.1's kernel truncates start and step to
    integers, because C++ does not call its half type signed, so that
    ``arange(0, 2, 0.5, dtype='float16')`` is all zeros there; that is a bug, and symmod
    computes the intended values.)"""
    if np.issubdtype(dtype, np.unsignedinteger):
        # through a signed integer, wrapping around like MXNet's C++ casts
        start, step = np.array([int(start), int(step)]).astype(dtype)
    else:
        start, step = dtype.type(start), dtype.type(step)
    positions = (np.arange(size, dtype=np.int64) // repeat).astype(dtype)
    return start + positions * step


@register
class arange_like(Operator):
    """Evenly spaced values ``start + (i // repeat) * step`` shaped like ``data`` (its
    dtype too), or along one ``axis`` of it as a 1-D array. The values of ``data`` are
    not read; its gradient is zero.

    Examples
    --------
    >>> mx.nd.contrib.arange_like(mx.nd.zeros((2, 3)), start=1).asnumpy()
    array([[1., 2., 3.],
           [4., 5., 6.]], dtype=float32)
    >>> mx.nd.contrib.arange_like(mx.nd.zeros((2, 3)), axis=-1).asnumpy()
    array([0., 1., 2.], dtype=float32)
    """
    name = '_contrib_arange_like'
    aliases = ('_npx_arange_like',)
    params = (Param('start', parse_float, 0.0, 'Start of the interval (included).'),
              Param('step', parse_float, 1.0, 'Spacing between values.'),
              Param('repeat', parse_int, 1, 'Times each value is repeated.'),
              Param('ctx', _parse_ctx, '', 'Context of the output (imperative calls only).'),
              Param('axis', parse_optional(parse_int), None,
                    'Arange along this axis of the input (a 1-D output) instead of its '
                    'whole shape.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.repeat <= 0:
            raise MXNetError('arange_like: only supports repeat > 0, received %d'
                             % self.repeat)

    def _out_shape(self, shape):
        if self.axis is None:
            return tuple(shape)
        if not -len(shape) <= self.axis < len(shape):
            raise ShapeError('arange_like: axis %d is out of range for data of shape %s'
                             % (self.axis, tuple(shape)))
        return (shape[self.axis],)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        if data is None or not shape_is_known(data):
            if self.axis is None and out_shapes[0] is not None:
                return [unify(data, out_shapes[0]) if data is not None else
                        tuple(out_shapes[0])], [tuple(out_shapes[0])], []
            return [data], [out_shapes[0]], []
        return [tuple(data)], [unify(self._out_shape(data), out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype], [dtype], []

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        store_from(out, req[0], _range_values(out.size, self.start, self.step, self.repeat,
                                              out.dtype).reshape(out.shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


@register
class _linspace(_Init):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included when ``endpoint``),
    computed as ``start + i * step`` in float64 and cast to ``dtype``."""
    name = '_linspace'
    params = (Param('start', parse_float, doc='The first value.'),
              Param('stop', parse_float, doc='The last value (or the end when not endpoint).'),
              Param('num', parse_int, doc='Number of values (non-negative).'),
              Param('endpoint', parse_bool, True, 'Whether stop is the last value.')) \
        + _ctx_dtype_params()

    def check_params(self):
        if self.num < 0:
            raise MXNetError('_linspace: number of sequence should be non-negative, received %d'
                             % self.num)

    def _shape(self):
        return (self.num,)

    def forward(self, is_train, req, in_data, out_data, aux):
        steps = self.num - 1 if self.endpoint else self.num
        step = (self.stop - self.start) / steps if steps > 0 else 0.0
        value = self.start + step * np.arange(self.num, dtype=np.float64)
        store_from(out_data[0], req[0], value.astype(out_data[0].dtype))
