"""Special functions ONNX has no operator for: gamma, gammaln (log |gamma|) and erfinv,
evaluated in float64 with series accurate far beyond float32.

- log |gamma(x)|: Lanczos' approximation (g = 7, nine terms; relative error about
  1e-15) for x >= 1/2, the reflection ``log(pi / |sin(pi x)|) - lgamma(1 - x)`` below,
  with ``sin(pi x)`` taken from the fractional part of x (exact for float inputs);
  +inf at the poles 0, -1, -2, ..., as symmod's kernels.
- gamma: ``sign * exp(lgamma(x))``, the sign ``(-1)^floor(x)`` for negative x; at 0 it is
  +inf (-inf at -0.0), at the negative integers NaN, as symmod's kernels.
- erfinv: M. Giles' approximation ("Approximating the erfinv function", GPU Computing
  Gems, 2011; relative error below 4e-7 on (-1, 1)); ONNX Runtime has no float64 Erf to
  refine it with. +-inf at +-1, NaN outside [-1, 1].
"""
import math

import numpy as np

from ..registry import translator
from .common import cast, scalar

__all__ = ['lgamma']

_F64 = np.float64
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _c(g, value):
    return scalar(g, value, _F64, 'c')


def _lanczos(g, z, hint):
    """lgamma(z + 1) for z >= -1/2 (float64 tensor)."""
    total = _c(g, _LANCZOS[0])
    for i, coefficient in enumerate(_LANCZOS[1:], start=1):
        term = g.add('Div', [_c(g, coefficient), g.add('Add', [z, _c(g, float(i))],
                                                       hint=hint + '_zi')], hint=hint + '_term')
        total = g.add('Add', [total, term], hint=hint + '_series')
    t = g.add('Add', [z, _c(g, _LANCZOS_G + 0.5)], hint=hint + '_t')
    power = g.add('Mul', [g.add('Add', [z, _c(g, 0.5)], hint=hint + '_zh'),
                          g.add('Log', [t], hint=hint + '_logt')], hint=hint + '_power')
    value = g.add('Sub', [power, t], hint=hint + '_pt')
    value = g.add('Add', [value, g.add('Log', [total], hint=hint + '_logs')], hint=hint + '_ps')
    return g.add('Add', [value, _c(g, 0.5 * math.log(2 * math.pi))], hint=hint + '_lgamma')


def _sin_pi(g, x, hint):
    """|sin(pi x)| from the fractional part of x."""
    frac = g.add('Sub', [x, g.add('Floor', [x], hint=hint + '_floor')], hint=hint + '_frac')
    return g.add('Abs', [g.add('Sin', [g.add('Mul', [frac, _c(g, math.pi)],
                                             hint=hint + '_pif')], hint=hint + '_sin')],
                 hint=hint + '_abs_sin')


def _is_pole(g, x, hint):
    """x is 0 or a negative integer."""
    return g.add('And', [g.add('LessOrEqual', [x, _c(g, 0.0)], hint=hint + '_nonpos'),
                         g.add('Equal', [x, g.add('Floor', [x], hint=hint + '_fl')],
                               hint=hint + '_integer')], hint=hint + '_pole')


def lgamma(g, x, hint):
    """log |gamma(x)| of a float64 tensor (+inf at the poles)."""
    small = g.add('Less', [x, _c(g, 0.5)], hint=hint + '_small')
    # Lanczos on x (large side) or on 1 - x (reflection side), never below 1/2
    mirrored = g.add('Sub', [_c(g, 1.0), x], hint=hint + '_mirror')
    arg = g.add('Where', [small, mirrored, x], hint=hint + '_arg')
    direct = _lanczos(g, g.add('Sub', [arg, _c(g, 1.0)], hint=hint + '_z'), hint)
    reflected = g.add('Sub', [g.add('Log', [g.add('Div', [_c(g, math.pi),
                                                           _sin_pi(g, x, hint)],
                                                  hint=hint + '_ratio')],
                                    hint=hint + '_logratio'), direct], hint=hint + '_refl')
    value = g.add('Where', [small, reflected, direct], hint=hint + '_value')
    return g.add('Where', [_is_pole(g, x, hint), _c(g, math.inf), value], hint=hint)


def _wide(g, node):
    return cast(g, node.input(0), _F64, hint=node.name + '_x64')


@translator('gammaln')
def gammaln(g, node):
    cast(g, lgamma(g, _wide(g, node), node.name + '_lg'), node.out_dtype(),
         out=node.outputs[0])


@translator('gamma')
def gamma(g, node):
    name = node.name
    x = _wide(g, node)
    magnitude = g.add('Exp', [lgamma(g, x, name + '_lg')], hint=name + '_abs')
    floor = g.add('Floor', [x], hint=name + '_floor')
    odd = g.add('Sub', [floor, g.add('Mul', [_c(g, 2.0), g.add('Floor', [
        g.add('Mul', [floor, _c(g, 0.5)], hint=name + '_half')], hint=name + '_hf')],
        hint=name + '_twice')], hint=name + '_odd')
    negative = g.add('And', [g.add('Less', [x, _c(g, 0.0)], hint=name + '_neg'),
                             g.add('Equal', [odd, _c(g, 1.0)], hint=name + '_isodd')],
                     hint=name + '_negative')
    value = g.add('Where', [negative, g.add('Neg', [magnitude], hint=name + '_minus'),
                            magnitude], hint=name + '_signed')
    # the poles: +-inf at (-)0 (1 / x keeps the zero's sign), NaN at -1, -2, ...
    at_zero = g.add('Div', [_c(g, 1.0), x], hint=name + '_inf')
    value = g.add('Where', [g.add('Equal', [x, _c(g, 0.0)], hint=name + '_zero'), at_zero,
                            value], hint=name + '_at_zero')
    negative_integer = g.add('And', [g.add('Less', [x, _c(g, 0.0)], hint=name + '_lt0'),
                                     g.add('Equal', [x, floor], hint=name + '_int')],
                             hint=name + '_negint')
    value = g.add('Where', [negative_integer, _c(g, math.nan), value], hint=name + '_value')
    cast(g, value, node.out_dtype(), out=node.outputs[0])


def _horner(g, w, coefficients, hint):
    p = _c(g, coefficients[0])
    for c in coefficients[1:]:
        p = g.add('Add', [_c(g, c), g.add('Mul', [p, w], hint=hint + '_pw')], hint=hint + '_p')
    return p


@translator('erfinv')
def erfinv(g, node):
    name = node.name
    y = _wide(g, node)
    one = _c(g, 1.0)
    w = g.add('Neg', [g.add('Log', [g.add('Mul', [
        g.add('Sub', [one, y], hint=name + '_1my'), g.add('Add', [one, y], hint=name + '_1py')],
        hint=name + '_prod')], hint=name + '_log')], hint=name + '_w')
    central = _horner(g, g.add('Sub', [w, _c(g, 2.5)], hint=name + '_wc'), _GILES_CENTRAL,
                      name + '_central')
    tail = _horner(g, g.add('Sub', [g.add('Sqrt', [w], hint=name + '_sqrtw'), _c(g, 3.0)],
                            hint=name + '_wt'), _GILES_TAIL, name + '_tail')
    p = g.add('Where', [g.add('Less', [w, _c(g, 5.0)], hint=name + '_iscentral'), central,
                        tail], hint=name + '_poly')
    value = g.add('Mul', [p, y], hint=name + '_value')
    # +-1 give +-inf (w is inf there); beyond them NaN (the log of a negative number)
    edge = g.add('Equal', [g.add('Abs', [y], hint=name + '_absy'), one], hint=name + '_edge')
    value = g.add('Where', [edge, g.add('Mul', [y, _c(g, math.inf)], hint=name + '_inf'),
                            value], hint=name + '_edged')
    cast(g, value, node.out_dtype(), out=node.outputs[0])
