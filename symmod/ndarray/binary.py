"""``mx.nd`` binary functions of NDArrays and/or numbers: add, subtract, multiply, divide,
true_divide, modulo, power, maximum, minimum, the comparisons and the logical operators.

Two NDArrays use the broadcasting operator (``broadcast_add``); an NDArray and a number
use the scalar operator (``_plus_scalar``, or the reversed form such as
``_rminus_scalar`` when the number comes first); two numbers give a Python number.
"""
import operator

from ..base import numeric_types
from .ndarray import NDArray, _op

__all__ = ['add', 'subtract', 'multiply', 'divide', 'true_divide', 'modulo', 'power',
           'maximum', 'minimum', 'equal', 'not_equal', 'greater', 'greater_equal', 'lesser',
           'lesser_equal', 'logical_and', 'logical_or', 'logical_xor']


def _flag(test):
    return lambda x, y: 1 if test(x, y) else 0


# name: (array operator, scalar operator, operator when the number is on the left
#        (None: the same, the operation is symmetric), Python function for two numbers)
_TABLE = {
    'add': ('broadcast_add', '_plus_scalar', None, operator.add),
    'subtract': ('broadcast_sub', '_minus_scalar', '_rminus_scalar', operator.sub),
    'multiply': ('broadcast_mul', '_mul_scalar', None, operator.mul),
    'divide': ('broadcast_div', '_div_scalar', '_rdiv_scalar', operator.truediv),
    'modulo': ('broadcast_mod', '_mod_scalar', '_rmod_scalar', operator.mod),
    'power': ('broadcast_power', '_power_scalar', '_rpower_scalar', operator.pow),
    'maximum': ('broadcast_maximum', '_maximum_scalar', None, max),
    'minimum': ('broadcast_minimum', '_minimum_scalar', None, min),
    'equal': ('broadcast_equal', '_equal_scalar', None, _flag(operator.eq)),
    'not_equal': ('broadcast_not_equal', '_not_equal_scalar', None, _flag(operator.ne)),
    'greater': ('broadcast_greater', '_greater_scalar', '_lesser_scalar', _flag(operator.gt)),
    'greater_equal': ('broadcast_greater_equal', '_greater_equal_scalar',
                      '_lesser_equal_scalar', _flag(operator.ge)),
    'lesser': ('broadcast_lesser', '_lesser_scalar', '_greater_scalar', _flag(operator.lt)),
    'lesser_equal': ('broadcast_lesser_equal', '_lesser_equal_scalar',
                     '_greater_equal_scalar', _flag(operator.le)),
    'logical_and': ('broadcast_logical_and', '_logical_and_scalar', None,
                    _flag(lambda x, y: x and y)),
    'logical_or': ('broadcast_logical_or', '_logical_or_scalar', None,
                   _flag(lambda x, y: x or y)),
    'logical_xor': ('broadcast_logical_xor', '_logical_xor_scalar', None,
                    _flag(lambda x, y: bool(x) != bool(y))),
}


def _apply(name, lhs, rhs):
    array_op, scalar_op, reverse_op, numbers = _TABLE[name]
    if isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return numbers(lhs, rhs)
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return _op(array_op)(lhs, rhs)
    if isinstance(lhs, NDArray) and isinstance(rhs, numeric_types):
        return _op(scalar_op)(lhs, scalar=float(rhs))
    if isinstance(lhs, numeric_types) and isinstance(rhs, NDArray):
        return _op(reverse_op or scalar_op)(rhs, scalar=float(lhs))
    raise TypeError('%s: type %s and %s not supported (NDArrays and numbers only)'
                    % (name, type(lhs).__name__, type(rhs).__name__))


def _make(name):
    def function(lhs, rhs):
        return _apply(name, lhs, rhs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = ('``%s`` of two NDArrays (broadcasting, operator ``%s``), of an NDArray '
                        'and a number (operator ``%s``), or of two numbers.\n\n'
                        'Parameters\n----------\nlhs : NDArray or number\nrhs : NDArray or '
                        'number\n\nReturns\n-------\nNDArray or number'
                        % ((name,) + _TABLE[name][:2]))
    return function


for _name in _TABLE:
    globals()[_name] = _make(_name)
true_divide = divide  # noqa: F821  (defined by the loop above)
