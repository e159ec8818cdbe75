"""8-bit quantization: _contrib_quantize and _contrib_dequantize, written out as the
operators' own arithmetic.

ONNX's QuantizeLinear rounds half to even around an integer zero point; MXNet's uint8
codes are ``floor((x - min) * 255 / (max - min) + 0.5)`` with a real-valued offset and
its int8 codes ``sign(x) * floor(min(|x| * 127 / r + 0.5, 127))``, so QuantizeLinear
would move some codes by one. The same goes for DequantizeLinear's ``(q - zero) *
scale`` against MXNet's ``q * scale + min``. The scales are float32 quotients, as in
MXNet's kernels. Data outside the given range (whose codes MXNet leaves to a C
cast's undefined behaviour) saturates at 0 / 255.
"""
import numpy as np

from ..registry import translator
from .common import cast, scalar

__all__ = []

_F32 = np.float32


def _range(g, node, hint):
    """min_range and max_range as float32 tensors of shape (1,)."""
    return [cast(g, node.input(i), _F32, hint='%s_%s' % (node.name, hint[i - 1]))
            if node.in_dtype(i) != _F32 else node.input(i) for i in (1, 2)]


def _int8_real(g, node, lo, hi):
    """``max(|min|, |max|)``."""
    return g.add('Max', [g.add('Abs', [lo], hint=node.name + '_abs_lo'),
                         g.add('Abs', [hi], hint=node.name + '_abs_hi')],
                 hint=node.name + '_real')


@translator('_contrib_quantize')
def quantize(g, node):
    op = node.op
    x = node.input(0)
    if node.in_dtype(0) != _F32:
        x = cast(g, x, _F32, hint=node.name + '_data')
    lo, hi = _range(g, node, ('lo', 'hi'))
    half = scalar(g, 0.5, _F32, 'half')
    if op.out_type == 'uint8':
        width = g.add('Sub', [hi, lo], hint=node.name + '_width')
        scale = g.add('Div', [scalar(g, 255, _F32, 'u8max'), width], hint=node.name + '_scale')
        shifted = g.add('Mul', [g.add('Sub', [x, lo], hint=node.name + '_shift'), scale],
                        hint=node.name + '_scaled')
        codes = g.add('Floor', [g.add('Add', [shifted, half], hint=node.name + '_half')],
                      hint=node.name + '_floor')
        codes = g.add('Clip', [codes, scalar(g, 0, _F32, 'zero'),
                               scalar(g, 255, _F32, 'u8max')], hint=node.name + '_sat')
        cast(g, codes, np.uint8, out=node.outputs[0])
        g.add('Identity', [lo], [node.outputs[1]])
        g.add('Identity', [hi], [node.outputs[2]])
        return
    real = _int8_real(g, node, lo, hi)
    limit = scalar(g, 127, _F32, 'i8max')
    scale = g.add('Div', [limit, real], hint=node.name + '_scale')
    magnitude = g.add('Add', [g.add('Mul', [g.add('Abs', [x], hint=node.name + '_abs'),
                                            scale], hint=node.name + '_scaled'), half],
                      hint=node.name + '_half')
    magnitude = g.add('Floor', [g.add('Min', [magnitude, limit], hint=node.name + '_sat')],
                      hint=node.name + '_floor')
    codes = g.add('Mul', [g.add('Sign', [x], hint=node.name + '_sign'), magnitude],
                  hint=node.name + '_codes')
    cast(g, codes, np.int8, out=node.outputs[0])
    g.add('Neg', [real], [node.outputs[1]])
    g.add('Identity', [real], [node.outputs[2]])


@translator('_contrib_dequantize')
def dequantize(g, node):
    codes = cast(g, node.input(0), _F32, hint=node.name + '_codes')
    lo, hi = _range(g, node, ('lo', 'hi'))
    if node.in_dtype(0) == np.uint8:
        step = g.add('Div', [g.add('Sub', [hi, lo], hint=node.name + '_width'),
                             scalar(g, 255, _F32, 'u8max')], hint=node.name + '_step')
        g.add('Add', [g.add('Mul', [codes, step], hint=node.name + '_scaled'), lo],
              [node.outputs[0]])
        return
    if node.in_dtype(0) != np.int8:
        node.fail('the codes must be uint8 or int8, found %s' % node.in_dtype(0))
    step = g.add('Div', [_int8_real(g, node, lo, hi), scalar(g, 127, _F32, 'i8max')],
                 hint=node.name + '_step')
    g.add('Mul', [codes, step], [node.outputs[0]])
