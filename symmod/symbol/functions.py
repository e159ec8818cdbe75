"""``mx.sym`` functions written over operators: pow/power, maximum, minimum and hypot of
symbols and/or numbers, eye, linspace, histogram and split_v2.

As in MXNet, two symbols use the elementwise (non-broadcasting) operators (``_Power``,
``_Maximum``), a symbol and a number the scalar ones, two numbers give a number.
"""
import builtins
import numbers

import numpy as np

from ..base import integer_types
from .symbol import Symbol, _FUNCS

__all__ = ['pow', 'power', 'maximum', 'minimum', 'hypot', 'eye', 'linspace', 'histogram',
           'split_v2', 'reset_arrays']


def _binary(name, left, right, array_op, scalar_op, reverse_op, numbers_fn):
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return _FUNCS[array_op](left, right)
    if isinstance(left, Symbol) and isinstance(right, numbers.Number):
        return _FUNCS[scalar_op](left, scalar=right)
    if isinstance(left, numbers.Number) and isinstance(right, Symbol):
        return _FUNCS[reverse_op](right, scalar=left)
    if isinstance(left, numbers.Number) and isinstance(right, numbers.Number):
        return numbers_fn(left, right)
    raise TypeError('%s: types (%s, %s) not supported' % (name, type(left).__name__,
                                                         type(right).__name__))


def pow(base, exp):  # noqa: A001  (MXNet's name)
    """``base ** exp`` elementwise for symbols and/or numbers (no broadcasting)."""
    return _binary('pow', base, exp, '_Power', '_PowerScalar', '_RPowerScalar',
                   lambda a, b: a ** b)


def power(base, exp):
    """``base ** exp`` elementwise for symbols and/or numbers (no broadcasting)."""
    return pow(base, exp)


def maximum(left, right):
    """Elementwise maximum of symbols and/or numbers (no broadcasting)."""
    return _binary('maximum', left, right, '_Maximum', '_MaximumScalar', '_MaximumScalar',
                   builtins.max)


def minimum(left, right):
    """Elementwise minimum of symbols and/or numbers (no broadcasting)."""
    return _binary('minimum', left, right, '_Minimum', '_MinimumScalar', '_MinimumScalar',
                   builtins.min)


def hypot(left, right):
    """``sqrt(left**2 + right**2)`` elementwise for symbols and/or numbers."""
    return _binary('hypot', left, right, '_Hypot', '_HypotScalar', '_HypotScalar', np.hypot)


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """A symbol of the 2-D array with ones on diagonal ``k`` (operator ``_eye``)."""
    return _FUNCS['_eye'](N=N, M=M, k=k, dtype='float32' if dtype is None else dtype,
                          **kwargs)


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """A symbol of ``num`` evenly spaced values (operator ``_linspace``)."""
    return _FUNCS['_linspace'](start=start, stop=stop, num=num, endpoint=endpoint, name=name,
                               dtype='float32' if dtype is None else dtype)


def histogram(a, bins=10, range=None, **kwargs):  # noqa: A002  (MXNet's name)
    """Histogram of ``a`` over ``bins`` equal bins of ``range`` or the edges ``bins``."""
    if isinstance(bins, Symbol):
        return _FUNCS['_histogram'](data=a, bins=bins, **kwargs)
    if isinstance(bins, integer_types):
        if range is None:
            raise ValueError('null range is not supported in symbol mode')
        return _FUNCS['_histogram'](data=a, bin_cnt=bins, range=range, **kwargs)
    raise ValueError('bins argument should be either an integer or an NDArray')


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split along ``axis`` into ``sections`` parts (an int) or at indices (a tuple)."""
    if isinstance(indices_or_sections, integer_types):
        indices, sections = (), indices_or_sections
    elif isinstance(indices_or_sections, tuple):
        indices, sections = (0,) + tuple(indices_or_sections), 0
    else:
        raise ValueError('indices_or_sections must either int or tuple of ints')
    return _FUNCS['_split_v2'](ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis,
                               sections=sections)


def reset_arrays(*data, **kwargs):
    """Zeroing arrays in place has no symbolic form (MXNet 1.9.1's symbol has no outputs
    and crashes); use ``mx.nd.reset_arrays``."""
    from ..base import MXNetError
    raise MXNetError('reset_arrays zeroes NDArrays in place and has no symbolic form; use '
                     'mx.nd.reset_arrays')
