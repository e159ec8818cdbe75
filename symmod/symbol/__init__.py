"""``mx.sym``: Symbol, variables, groups, JSON loading and one function per operator."""
import builtins
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


def pow(base, exp):  # noqa: A001  (MXNet's name; this module's max/min/sum are operators)
    """``base ** exp`` for symbols and/or numbers."""
    if isinstance(base, Symbol):
        return base ** exp
    if isinstance(exp, Symbol):
        return exp.__rpow__(base)
    return base ** exp


def _elementwise(left, right, op, scalar_op, numbers):
    """Apply a commutative binary operator to symbols and/or numbers."""
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return op(left, right)
    if isinstance(left, Symbol):
        return scalar_op(left, scalar=right)
    if isinstance(right, Symbol):
        return scalar_op(right, scalar=left)
    return numbers(left, right)


def maximum(left, right):
    """Elementwise maximum of symbols and/or numbers."""
    return _elementwise(left, right, _internal._Maximum, _internal._MaximumScalar,
                        builtins.max)


def minimum(left, right):
    """Elementwise minimum of symbols and/or numbers."""
    return _elementwise(left, right, _internal._Minimum, _internal._MinimumScalar,
                        builtins.min)


from . import linalg, contrib  # noqa: E402,F401  (mx.sym.linalg.*, mx.sym.contrib.*)
