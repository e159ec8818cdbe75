"""Elementwise binary operators on same-shape arrays, and add_n.

The arithmetic of each binary function (forward and both partial derivatives) is
written once, as a :class:`BinaryMath`, and shared with the broadcasting operators
in :mod:`.broadcast` and the scalar operators in :mod:`.scalar`. Results keep the input
dtype, as in MXNet: comparisons give 0/1 in that dtype, and an int32 array divided by 2
stays int32 (truncated).
"""
import numpy as np

from ..base import MXNetError, parse_int
from . import elementwise_kernels
from .common import store, zero_grad
from .registry import Operator, Param, register, REQUIRED

__all__ = ['BinaryMath', 'BinaryOperator', 'declare_binary', 'quiet', 'is_integer',
           'as_scalar', 'divide', 'power', 'modulo', 'hypot', 'pass_grad', 'mod_lhs_grad',
           'mod_rhs_grad', 'power_lhs_grad', 'hypot_grad']


# ---- helpers shared by the elementwise families --------------------------------------
def is_integer(dtype):
    """True for integer and boolean dtypes (MXNet computes those in C integer arithmetic)."""
    return np.dtype(dtype).kind in 'biu'


def as_scalar(value, dtype):
    """``value`` as a 0-d array of ``dtype``: MXNet casts the scalar to the data type first."""
    with np.errstate(invalid='ignore', over='ignore'):
        return np.array(value).astype(dtype)


def quiet(func):
    """Run ``func`` without numpy's divide / overflow / invalid warnings: MXNet produces
    inf and NaN silently."""
    def wrapped(*args, **kwargs):
        with np.errstate(all='ignore'):
            return func(*args, **kwargs)
    wrapped.__name__ = func.__name__
    wrapped.__doc__ = func.__doc__
    return wrapped


# ---- integer-aware arithmetic: C semantics where numpy's differ ------------------------
@quiet
def divide(a, b, out=None):
    """``a / b``; integers divide with truncation toward zero, x / 0 gives 0."""
    if not is_integer(np.result_type(a, b)):
        return np.divide(a, b, out=out)
    # floor -> trunc: step back toward zero where the signs differ and it did not divide
    # (computed before the quotient, which may overwrite ``a`` when run in place)
    fix = np.not_equal(np.remainder(a, b), 0)
    fix &= np.less(a, 0) != np.less(b, 0)
    quot = np.floor_divide(a, b, out=out)
    quot += fix
    return quot


def _via_double(ufunc, a, b, out):
    """``ufunc`` on integers the C way: computed in double precision, truncated back."""
    value = ufunc(np.asarray(a, np.float64), np.asarray(b, np.float64))
    if out is None:
        return value.astype(np.result_type(a, b))
    np.copyto(out, value, casting='unsafe')
    return out


@quiet
def power(a, b, out=None):
    """``a ** b``; integer powers go through double precision and truncate, as C pow does."""
    if is_integer(np.result_type(a, b)):
        return _via_double(np.power, a, b, out)
    return np.power(a, b, out=out)


def hypot(a, b, out=None):
    """``sqrt(a**2 + b**2)``; integers go through double precision and truncate."""
    if is_integer(np.result_type(a, b)):
        return _via_double(np.hypot, a, b, out)
    return np.hypot(a, b, out=out)


@quiet
def modulo(a, b, out=None):
    """Python-style modulo (the result takes the divisor's sign); x mod 0 gives 0."""
    result = np.remainder(a, b, out=out)
    if not is_integer(result.dtype):
        zero = np.equal(b, 0)
        if zero.any():
            np.copyto(result, 0, where=zero)
    return result


class BinaryMath:
    """Forward value and the two gradient terms of a binary elementwise function.

    Parameters
    ----------
    forward : callable
        ``forward(a, b, out=None)``, a ufunc or written like one.
    grad_lhs, grad_rhs : callable or None
        ``grad(a, b, dy, out)`` returns ``dy * df/da`` (resp. ``df/db``) at the
        broadcast shape, written into ``out`` when it is given. None means the
        gradient is zero (comparisons).
    uses_inputs : bool
        Whether the gradients read ``a`` and ``b``.
    """

    def __init__(self, forward, grad_lhs=None, grad_rhs=None, uses_inputs=True):
        self.forward = forward
        self.grads = (grad_lhs, grad_rhs)
        self.uses_inputs = uses_inputs


def pass_grad(a, b, dy, out):
    """Gradient ``dy`` unchanged (``d(a + b)/da``); copied only when ``out`` is given and
    is not ``dy``'s own memory (a bound graph's plan may give both one buffer)."""
    if out is None or _same_buffer(out, dy):
        return dy if out is None else out
    return elementwise_kernels.copy(dy, out)


def _same_buffer(a, b):
    return (a.__array_interface__['data'][0] == b.__array_interface__['data'][0]
            and a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype)


def _negate(a, b, dy, out):
    return np.negative(dy, out=out)


def _times_rhs(a, b, dy, out):
    return np.multiply(dy, b, out=out)


def _times_lhs(a, b, dy, out):
    return np.multiply(dy, a, out=out)


@quiet
def _div_rhs(a, b, dy, out):
    grad = np.multiply(dy, a, out=out)
    grad /= b
    grad /= b
    return np.negative(grad, out=grad)


@quiet
def _by_rhs(a, b, dy, out):
    return np.divide(dy, b, out=out)


def _zeros_like(dy, out):
    if out is None:
        return np.zeros_like(dy)
    out[...] = 0
    return out


def mod_lhs_grad(a, b, dy, out):
    """Gradient of ``a mod b`` with respect to ``a``: ``dy``; zero for integer types (MXNet
    defines the modulo gradients for floating types only)."""
    return _zeros_like(dy, out) if is_integer(dy.dtype) else pass_grad(a, b, dy, out)


@quiet
def mod_rhs_grad(a, b, dy, out):
    """Gradient of ``a mod b`` with respect to ``b``: ``-dy * floor(a / b)``; zero for
    integer types (as in MXNet)."""
    if is_integer(dy.dtype):
        return _zeros_like(dy, out)
    grad = np.divide(a, b, out=out)
    np.floor(grad, out=grad)
    grad *= dy
    return np.negative(grad, out=grad)


@quiet
def power_lhs_grad(a, b, dy, out):
    """Gradient of ``a ** b`` with respect to ``a``: ``dy * b * a ** (b - 1)``."""
    grad = np.power(a, np.subtract(b, 1), out=out)
    grad *= b
    grad *= dy
    return grad


@quiet
def _power_rhs(a, b, dy, out):
    grad = np.power(a, b, out=out)
    grad *= np.log(a)
    grad *= dy
    return grad


def _masked(compare, first):
    def grad(a, b, dy, out):
        mask = compare(a, b) if first else compare(b, a)
        return np.multiply(dy, mask, out=out)
    return grad


def hypot_grad(first):
    """Gradient of ``hypot(a, b)`` with respect to ``a`` (``first``) or ``b``."""
    @quiet
    def grad(a, b, dy, out):
        norm = np.hypot(a, b, out=out)
        np.divide(a if first else b, norm, out=norm)
        norm *= dy
        return norm
    return grad


ADD = BinaryMath(elementwise_kernels.add, pass_grad, pass_grad, uses_inputs=False)
SUB = BinaryMath(np.subtract, pass_grad, _negate, uses_inputs=False)
MUL = BinaryMath(np.multiply, _times_rhs, _times_lhs)
DIV = BinaryMath(divide, _by_rhs, _div_rhs)
MOD = BinaryMath(modulo, mod_lhs_grad, mod_rhs_grad)
POWER = BinaryMath(power, power_lhs_grad, _power_rhs)
# maximum: ties send the gradient to the left operand; minimum likewise
MAXIMUM = BinaryMath(np.maximum, _masked(np.greater_equal, True), _masked(np.greater, False))
MINIMUM = BinaryMath(np.minimum, _masked(np.less_equal, True), _masked(np.less, False))
HYPOT = BinaryMath(hypot, hypot_grad(True), hypot_grad(False))
EQUAL = BinaryMath(np.equal, uses_inputs=False)
NOT_EQUAL = BinaryMath(np.not_equal, uses_inputs=False)
GREATER = BinaryMath(np.greater, uses_inputs=False)
GREATER_EQUAL = BinaryMath(np.greater_equal, uses_inputs=False)
LESSER = BinaryMath(np.less, uses_inputs=False)
LESSER_EQUAL = BinaryMath(np.less_equal, uses_inputs=False)
LOGICAL_AND = BinaryMath(np.logical_and, uses_inputs=False)
LOGICAL_OR = BinaryMath(np.logical_or, uses_inputs=False)
LOGICAL_XOR = BinaryMath(np.logical_xor, uses_inputs=False)


# ---- binary operators -------------------------------------------------------------------
class BinaryOperator(Operator):
    """Base of the operators computing a :class:`BinaryMath` (``math``) of ``lhs`` and
    ``rhs``: the same-shape ones below; the broadcasting ones in :mod:`.broadcast` add
    shape inference and a backward that sums over the broadcast axes."""
    math = None
    backward_uses_outputs = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.math is not None:
            cls.backward_uses_inputs = cls.math.uses_inputs
            cls.zero_gradient = all(g is None for g in cls.math.grads)

    def list_arguments(self):
        return ['lhs', 'rhs']

    def forward(self, is_train, req, in_data, out_data, aux):
        store(out_data[0], req[0], self.math.forward, in_data[0], in_data[1])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        lhs, rhs = in_data
        for grad_fn, dst, r in zip(self.math.grads, in_grad, req):
            if grad_fn is None:
                zero_grad(dst, r)
            else:
                store(dst, r, grad_fn, lhs, rhs, out_grad[0])


def declare_binary(base, name, aliases, math, doc):
    """Declare and register the ``base`` subclass ``name`` computing ``math``."""
    return register(type(name, (base,), {'name': name, 'aliases': aliases, 'math': math,
                                         '__doc__': doc}))


class ElemwiseBinary(BinaryOperator):
    """Base of binary operators whose two inputs and output share one shape."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.math is not None:
            cls.inplace = () if cls.math.uses_inputs else ((0, 0), (1, 0))
            cls.grad_inplace = tuple((0, j) for j, g in enumerate(cls.math.grads)
                                     if g is pass_grad)


def _binary(name, aliases, math, doc):
    return declare_binary(ElemwiseBinary, name, aliases, math, doc)


_binary('elemwise_add', ('_add', '_plus', '_Plus', '_sparse_elemwise_add'), ADD,
        'Adds two arrays of the same shape elementwise.')
_binary('elemwise_sub', ('_sub', '_minus', '_Minus', '_sparse_elemwise_sub'), SUB,
        'Subtracts ``rhs`` from ``lhs`` elementwise (same shapes).')
_binary('elemwise_mul', ('_mul', '_Mul', '_sparse_elemwise_mul'), MUL,
        'Multiplies two arrays of the same shape elementwise.')
_binary('elemwise_div', ('_div', '_Div', '_sparse_elemwise_div'), DIV,
        'Divides ``lhs`` by ``rhs`` elementwise (integers truncate toward zero).')
_binary('_mod', ('_Mod',), MOD,
        '``lhs`` modulo ``rhs`` elementwise; the result has the sign of ``rhs``, x mod 0 is 0.')
_binary('_power', ('_Power',), POWER, '``lhs`` raised to the power ``rhs`` elementwise.')
_binary('_maximum', ('_Maximum',), MAXIMUM, 'Elementwise maximum of two arrays.')
_binary('_minimum', ('_Minimum',), MINIMUM, 'Elementwise minimum of two arrays.')
_binary('_hypot', ('_Hypot',), HYPOT, 'Elementwise ``sqrt(lhs**2 + rhs**2)``.')
_binary('_equal', ('_Equal',), EQUAL, '1 where ``lhs == rhs`` else 0, in the input dtype.')
_binary('_not_equal', ('_Not_Equal',), NOT_EQUAL,
        '1 where ``lhs != rhs`` else 0, in the input dtype.')
_binary('_greater', ('_Greater',), GREATER, '1 where ``lhs > rhs`` else 0, in the input dtype.')
_binary('_greater_equal', ('_Greater_Equal',), GREATER_EQUAL,
        '1 where ``lhs >= rhs`` else 0, in the input dtype.')
_binary('_lesser', ('_Lesser',), LESSER, '1 where ``lhs < rhs`` else 0, in the input dtype.')
_binary('_lesser_equal', ('_Lesser_Equal',), LESSER_EQUAL,
        '1 where ``lhs <= rhs`` else 0, in the input dtype.')
_binary('_logical_and', ('_Logical_And',), LOGICAL_AND,
        '1 where both inputs are nonzero else 0, in the input dtype.')
_binary('_logical_or', ('_Logical_Or',), LOGICAL_OR,
        '1 where either input is nonzero else 0, in the input dtype.')
_binary('_logical_xor', ('_Logical_Xor',), LOGICAL_XOR,
        '1 where exactly one input is nonzero else 0, in the input dtype.')



def _lhs(a, b, out=None):
    if out is None:
        return a.copy()
    np.copyto(out, a)
    return out


# MXNet's internal shape/type constraint: the output is lhs, but lhs, rhs and output are
# inferred alike (so a shape known from rhs flows back into lhs); rhs gets a zero gradient
_binary('_identity_with_attr_like_rhs', (), BinaryMath(_lhs, pass_grad, None,
                                                       uses_inputs=False),
        '``lhs`` unchanged, with the shape and dtype inferred like ``rhs``.')


@register
class AddN(Operator):
    """Sums any number of same-shape arrays elementwise: ``arg0 + arg1 + ...``.

    Parameters
    ----------
    num_args : int
        Number of inputs (named ``arg0``, ``arg1``, ...).

    Examples
    --------
    >>> mx.nd.add_n(mx.nd.ones((2,)), mx.nd.ones((2,)), mx.nd.ones((2,))).asnumpy()
    array([3., 3.], dtype=float32)
    """
    name = 'add_n'
    aliases = ('ElementWiseSum', '_sparse_ElementWiseSum', '_sparse_add_n')
    params = (Param('num_args', parse_int, REQUIRED, 'Number of inputs to be summed.'),)
    key_var_num_args = 'num_args'
    backward_uses_inputs = False
    backward_uses_outputs = False
    inplace = ((0, 0),)

    def check_params(self):
        if self.num_args < 1:
            raise MXNetError('add_n: num_args must be at least 1, found %d' % self.num_args)

    def list_arguments(self):
        return ['arg%d' % i for i in range(self.num_args)]

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        if req[0] == 'null':
            return
        if req[0] == 'add':
            for x in in_data:
                out += x
            return
        if len(in_data) == 1:
            np.copyto(out, in_data[0])
            return
        np.add(in_data[0], in_data[1], out=out)
        for x in in_data[2:]:
            out += x

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for dst, r in zip(in_grad, req):
            store(dst, r, pass_grad, None, None, out_grad[0])
