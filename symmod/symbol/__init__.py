"""``mx.sym``: Symbol, variables, groups, JSON loading and one function per operator."""
import sys
import types

from .symbol import Symbol, var, Variable, Group, load, load_json
from .. import ops as _ops  # registers every operator
from . import register as _register

_internal = types.ModuleType(__name__ + '._internal', 'Internal operators (names starting with _).')
sys.modules[_internal.__name__] = _internal
_register.populate(globals(), _internal.__dict__)
op = sys.modules[__name__]


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros of ``shape`` (operator ``_zeros``)."""
    return _internal._zeros(shape=shape, dtype='float32' if dtype is None else dtype, **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones of ``shape`` (operator ``_ones``)."""
    return _internal._ones(shape=shape, dtype='float32' if dtype is None else dtype, **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol of ``shape`` filled with ``val`` (operator ``_full``)."""
    return _internal._full(shape=shape, value=val,
                           dtype='float32' if dtype is None else dtype, **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop) (operator ``_arange``)."""
    return _internal._arange(start=start, stop=stop, step=step, repeat=repeat,
                             infer_range=infer_range, name=name,
                             dtype='float32' if dtype is None else dtype)


def pow(base, exp):  # pylint: disable=redefined-builtin
    """``base ** exp`` for symbols and/or numbers."""
    if isinstance(base, Symbol):
        return base ** exp
    if isinstance(exp, Symbol):
        return exp.__rpow__(base)
    return base ** exp


def maximum(left, right):
    """Elementwise maximum of symbols and/or numbers."""
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return _internal._Maximum(left, right)
    if isinstance(left, Symbol):
        return _internal._MaximumScalar(left, scalar=right)
    if isinstance(right, Symbol):
        return _internal._MaximumScalar(right, scalar=left)
    return max(left, right)


def minimum(left, right):
    """Elementwise minimum of symbols and/or numbers."""
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return _internal._Minimum(left, right)
    if isinstance(left, Symbol):
        return _internal._MinimumScalar(left, scalar=right)
    if isinstance(right, Symbol):
        return _internal._MinimumScalar(right, scalar=left)
    return min(left, right)
