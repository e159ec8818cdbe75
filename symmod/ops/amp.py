"""Mixed-precision helpers: amp_cast, amp_multicast, all_finite and multi_all_finite.

``amp_cast`` casts between the float types only (other dtypes pass through unchanged);
``amp_multicast`` casts several arrays to their widest float type (or, with
``cast_narrow``, the narrowest). Their gradients are the output gradients cast back to
the input types. ``all_finite`` / ``multi_all_finite`` give a float32 ``[1.]`` when every
element is finite and ``[0.]`` otherwise.
"""
import numpy as np

from ..base import parse_bool, parse_dtype, parse_int
from .common import int_shape, store_cast
from .registry import Operator, Param, ShapeError, register, unify

__all__ = []

_FLOATS = (np.dtype(np.float16), np.dtype(np.float32))


def _is_float(dtype):
    return dtype is not None and np.dtype(dtype) in _FLOATS


@register
class amp_cast(Operator):
    """Casts float16 <-> float32 to ``dtype``; other input dtypes are left as they are."""
    name = 'amp_cast'
    params = (Param('dtype', parse_dtype, doc='Output float type.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0]
        return [dtype], [self.dtype if _is_float(dtype) else dtype], []

    def forward(self, is_train, req, in_data, out_data, aux):
        store_cast(out_data[0], req[0], in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        store_cast(in_grad[0], req[0], out_grad[0])


@register
class amp_multicast(Operator):
    """Casts ``num_outputs`` float arrays to their widest float type (float32 when any is),
    or with ``cast_narrow`` to the narrowest; non-float arrays pass through."""
    name = 'amp_multicast'
    key_var_num_args = 'num_outputs'
    params = (Param('num_outputs', parse_int, doc='Number of arrays to cast.'),
              Param('cast_narrow', parse_bool, False, 'Cast to the narrowest type instead.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['data_%d' % i for i in range(self.num_outputs)]

    def list_outputs(self):
        return ['output%d' % i for i in range(self.num_outputs)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = []
        for given, out in zip(in_shapes, out_shapes):
            try:
                shapes.append(unify(int_shape(given), int_shape(out)))
            except ShapeError:
                raise ShapeError('amp_multicast: output shape %s does not match input %s'
                                 % (out, given)) from None
        return shapes, list(shapes), []

    def infer_type(self, in_types, out_types, aux_types):
        floats = [np.dtype(t) for t in in_types if _is_float(t)]
        if self.cast_narrow:
            target = np.dtype(np.float16) if np.dtype(np.float16) in floats else \
                np.dtype(np.float32)
        else:
            target = np.dtype(np.float32) if np.dtype(np.float32) in floats or not floats \
                else np.dtype(np.float16)
        return list(in_types), [target if _is_float(t) else t for t in in_types], []

    def forward(self, is_train, req, in_data, out_data, aux):
        for x, out, r in zip(in_data, out_data, req):
            store_cast(out, r, x)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for dy, grad, r in zip(out_grad, in_grad, req):
            store_cast(grad, r, dy)


class _AllFinite(Operator):
    """Base of all_finite / multi_all_finite: a float32 (1,) flag, no gradient."""
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        return [int_shape(s) for s in in_shapes], [(1,)], []

    def infer_type(self, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.float32)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        if self.init_output:
            out.fill(1)
        if not all(np.isfinite(x.astype(np.float32, copy=False)).all() for x in in_data):
            out.fill(0)


@register
class all_finite(_AllFinite):
    """``[1.]`` when every element of ``data`` is finite, else ``[0.]`` (float32)."""
    name = 'all_finite'
    params = (Param('init_output', parse_bool, True,
                    'Start from 1 (else only a non-finite value writes, a 0).'),)


@register
class multi_all_finite(_AllFinite):
    """``[1.]`` when every element of all ``num_arrays`` arrays is finite, else ``[0.]``."""
    name = 'multi_all_finite'
    key_var_num_args = 'num_arrays'
    params = (Param('num_arrays', parse_int, 1, 'Number of arrays.'),
              Param('init_output', parse_bool, True,
                    'Start from 1 (else only a non-finite value writes, a 0).'))

    def list_arguments(self):
        return ['array_%d' % i for i in range(self.num_arrays)]
