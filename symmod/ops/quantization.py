"""8-bit quantization: _contrib_quantize and _contrib_dequantize.

``quantize`` maps float32 data in ``[min_range, max_range]`` to ``uint8`` (affine,
rounded half up) or to ``int8`` (zero-centred: ``sign(x) * min(|x| * 127 / r + 0.5,
127)`` with ``r = max(|min|, |max|)``, truncated); it also returns the float32 range the
codes stand for. ``dequantize`` inverts it. Both have zero gradients, as in MXNet.
"""
import numpy as np

from .common import choice, int_shape, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []

_INT8_RANGE = np.float32(127)       # min(|int8 max|, |int8 min|)


def _scalar_range(array):
    return np.float32(array.reshape(-1)[0])


class _Quantization(Operator):
    """Base: inputs ``data``, ``min_range`` (1,), ``max_range`` (1,)."""
    backward_uses_outputs = False
    backward_uses_inputs = False
    zero_gradient = True

    def list_arguments(self):
        return ['data', 'min_range', 'max_range']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0]) or int_shape(out_shapes[0])
        for name, shape in zip(('min_range', 'max_range'), in_shapes[1:]):
            if shape is not None and tuple(shape) != (1,):
                raise ShapeError('%s: %s must have shape (1,), found %s'
                                 % (self.name, name, tuple(shape)))
        n_out = len(self.list_outputs())
        return [data, (1,), (1,)], [data] + [(1,)] * (n_out - 1), []

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad, req):
            zero_grad(grad, r)


@register
class quantize(_Quantization):
    """Quantizes float32 ``data`` given its range to ``out_type`` (uint8 or int8); returns
    the codes and the float32 (min, max) they represent."""
    name = '_contrib_quantize'
    params = (Param('out_type', choice('uint8', 'int8'), 'uint8', 'Output code type.'),)

    def list_outputs(self):
        return ['output', 'min_output', 'max_output']

    def infer_type(self, in_types, out_types, aux_types):
        f32 = np.dtype(np.float32)
        return [f32] * 3, [np.dtype(self.out_type), f32, f32], []

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].astype(np.float32, copy=False)
        lo, hi = _scalar_range(in_data[1]), _scalar_range(in_data[2])
        if self.out_type == 'uint8':
            scale = np.float32((255.0 - 0.0) / (hi - lo))
            codes = ((x - lo) * scale + np.float32(0.5)).astype(np.uint8)
            out_lo, out_hi = lo, hi
        else:
            real = max(abs(lo), abs(hi))
            scale = _INT8_RANGE / real
            codes = (np.sign(x) * np.minimum(np.abs(x) * scale + np.float32(0.5),
                                             _INT8_RANGE)).astype(np.int8)
            out_lo, out_hi = -real, real
        store_from(out_data[0], req[0], codes)
        store_from(out_data[1], req[1], out_lo)
        store_from(out_data[2], req[2], out_hi)


@register
class dequantize(_Quantization):
    """Float32 values of uint8/int8 codes ``data`` quantized over (min_range, max_range)."""
    name = '_contrib_dequantize'
    params = (Param('out_type', choice('float32'), 'float32', 'Output type (float32).'),)

    def infer_type(self, in_types, out_types, aux_types):
        f32 = np.dtype(np.float32)
        return [in_types[0], f32, f32], [f32], []

    def forward(self, is_train, req, in_data, out_data, aux):
        codes = in_data[0]
        lo, hi = _scalar_range(in_data[1]), _scalar_range(in_data[2])
        if codes.dtype == np.uint8:
            values = codes.astype(np.float32) * np.float32((hi - lo) / np.float32(255)) + lo
        elif codes.dtype == np.int8:
            values = codes.astype(np.float32) * (max(abs(lo), abs(hi)) / _INT8_RANGE)
        else:
            raise ShapeError('dequantize: data must be uint8 or int8 codes, found %s'
                             % codes.dtype)
        store_from(out_data[0], req[0], values)
