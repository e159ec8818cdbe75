"""Operators with a scalar operand: ``_plus_scalar`` (``x + 1``), ``_rdiv_scalar``
(``1 / x``), comparisons with a scalar, ... and smooth_l1.

The scalar is cast to the array's dtype before the arithmetic, as in MXNet, so an
int32 array plus 0.5 stays int32 and adds 0.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float
from . import elemwise as ew
from .common import store, store_cast, zero_grad
from .elemwise import as_scalar, divide, hypot, is_integer, modulo, power, quiet
from .registry import Param, Operator, register

__all__ = ['ScalarOp']


class ScalarOp(Operator):
    """Base of ``op(data, scalar)`` operators.

    The scalar is cast to the data's dtype before the arithmetic, as in MXNet, so
    ``int32 array + 0.5`` adds 0 and stays int32. With ``is_int=False`` an integer
    input is promoted to float64 first (MXNet's numpy-compatible path).

    Subclasses set ``compute(x, s, out=None)`` and ``grad(x, y, s, dy, out)`` (the
    input gradient ``dy * d op / dx``, written into ``out`` when given); ``grad =
    None`` marks an operator with zero gradient.
    """
    params = (Param('scalar', parse_float, 1.0, 'Scalar input value.'),
              Param('is_int', parse_bool, True, 'Whether the scalar is an integer.'))
    compute = None
    grad = None

    def __init__(self, attrs=None):
        super().__init__(attrs)
        self._scalars = {}

    def out_dtype(self, in_dtype):
        """The output dtype for an input dtype (MXNet's NumpyBinaryScalarType)."""
        in_dtype = np.dtype(in_dtype)
        if in_dtype == np.bool_:
            return np.dtype(np.int64 if self.is_int else np.float64)
        if is_integer(in_dtype) and not self.is_int:
            return np.dtype(np.float64)
        return in_dtype

    def infer_type(self, in_types, out_types, aux_types):
        in_t, out_t = in_types[0], out_types[0]
        if in_t is not None:
            expected = self.out_dtype(in_t)
            if out_t is not None and np.dtype(out_t) != expected:
                raise MXNetError('Operator %s: output dtype %s does not match %s expected for '
                                 'input dtype %s' % (self.name, np.dtype(out_t), expected,
                                                     np.dtype(in_t)))
            out_t = expected
        elif out_t is not None:
            in_t = out_t
        return [in_t], [out_t], list(aux_types)

    def scalar_as(self, dtype):
        """The scalar as a 0-d array of ``dtype`` (cached per dtype)."""
        s = self._scalars.get(dtype)
        if s is None:
            s = self._scalars[dtype] = as_scalar(self.scalar, dtype)
        return s

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        x = in_data[0] if in_data[0].dtype == out.dtype else in_data[0].astype(out.dtype)
        store(out, req[0], self.compute, x, self.scalar_as(out.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        dst, r = in_grad[0], req[0]
        if r == 'null':
            return
        if self.grad is None:
            zero_grad(dst, r)
            return
        dy = out_grad[0]
        x = in_data[0]
        if self.backward_uses_inputs and x.dtype != dy.dtype:
            x = x.astype(dy.dtype)
        args = (x, out_data[0], self.scalar_as(dy.dtype), dy)
        if dst.dtype == dy.dtype:
            store(dst, r, self.grad, *args)
        else:
            with np.errstate(all='ignore'):
                store_cast(dst, r, self.grad(*args, out=None))


def _scalar(name, aliases, compute, grad, uses, doc):
    """Declare and register a scalar operator; ``uses`` says what its gradient reads."""
    body = {'name': name, 'aliases': aliases, '__doc__': doc,
            'compute': staticmethod(compute),
            'grad': None if grad is None else staticmethod(grad),
            'zero_gradient': grad is None,
            'backward_uses_inputs': uses == 'input',
            'backward_uses_outputs': uses == 'output',
            'inplace': () if uses == 'input' else ((0, 0),)}
    return register(type(name, (ScalarOp,), body))


def _rsub(x, s, out=None):
    return np.subtract(s, x, out=out)


def _rdiv(x, s, out=None):
    return divide(s, x, out=out)


def _rmod(x, s, out=None):
    return modulo(s, x, out=out)


def _rpow(x, s, out=None):
    return power(s, x, out=out)


def _g_pass(x, y, s, dy, out):
    return ew.pass_grad(None, None, dy, out)


def _g_negate(x, y, s, dy, out):
    return np.negative(dy, out=out)


def _g_mul(x, y, s, dy, out):
    return np.multiply(dy, s, out=out)


@quiet
def _g_div(x, y, s, dy, out):
    return np.divide(dy, s, out=out)


@quiet
def _g_rdiv(x, y, s, dy, out):
    grad = np.divide(s, x, out=out)
    grad /= x
    grad *= dy
    return np.negative(grad, out=grad)


def _g_mod(x, y, s, dy, out):
    return ew.mod_lhs_grad(None, None, dy, out)


def _g_rmod(x, y, s, dy, out):
    return ew.mod_rhs_grad(s, x, dy, out)


def _g_power(x, y, s, dy, out):
    return ew.power_lhs_grad(x, s, dy, out)


@quiet
def _g_rpower(x, y, s, dy, out):
    grad = np.multiply(dy, y, out=out)
    grad *= np.log(s)
    return grad


def _g_maximum(x, y, s, dy, out):
    return np.multiply(dy, np.greater_equal(x, s), out=out)


def _g_minimum(x, y, s, dy, out):
    return np.multiply(dy, np.less_equal(x, s), out=out)


_HYPOT_LHS = ew.hypot_grad(True)


def _g_hypot(x, y, s, dy, out):
    return _HYPOT_LHS(x, s, dy, out)


_scalar('_plus_scalar', ('_PlusScalar',), np.add, _g_pass, None,
        'Adds a scalar: ``data + scalar``.')
_scalar('_minus_scalar', ('_MinusScalar',), np.subtract, _g_pass, None,
        'Subtracts a scalar: ``data - scalar``.')
_scalar('_rminus_scalar', ('_RMinusScalar',), _rsub, _g_negate, None,
        'Subtracts from a scalar: ``scalar - data``.')
_scalar('_mul_scalar', ('_MulScalar',), np.multiply, _g_mul, None,
        'Multiplies by a scalar: ``data * scalar``.')
_scalar('_div_scalar', ('_DivScalar',), divide, _g_div, None,
        'Divides by a scalar: ``data / scalar`` (integers truncate).')
_scalar('_rdiv_scalar', ('_RDivScalar',), _rdiv, _g_rdiv, 'input',
        'Divides a scalar by the data: ``scalar / data``.')
_scalar('_mod_scalar', ('_ModScalar',), modulo, _g_mod, None,
        '``data`` modulo a scalar, with the sign of the scalar.')
_scalar('_rmod_scalar', ('_RModScalar',), _rmod, _g_rmod, 'input',
        'A scalar modulo ``data``, with the sign of ``data``.')
_scalar('_maximum_scalar', ('_MaximumScalar', '_npi_maximum_scalar'), np.maximum, _g_maximum,
        'input', 'Elementwise maximum of the data and a scalar.')
_scalar('_minimum_scalar', ('_MinimumScalar', '_npi_minimum_scalar'), np.minimum, _g_minimum,
        'input', 'Elementwise minimum of the data and a scalar.')
_scalar('_power_scalar', ('_PowerScalar',), power, _g_power, 'input',
        'Raises the data to a scalar power: ``data ** scalar``.')
_scalar('_rpower_scalar', ('_RPowerScalar',), _rpow, _g_rpower, 'output',
        'Raises a scalar to the power of the data: ``scalar ** data``.')
_scalar('_hypot_scalar', ('_HypotScalar', '_npi_hypot_scalar'), hypot, _g_hypot, 'input',
        'Elementwise ``sqrt(data**2 + scalar**2)``.')
_scalar('_equal_scalar', ('_EqualScalar',), np.equal, None, None,
        '1 where ``data == scalar`` else 0, in the data dtype.')
_scalar('_not_equal_scalar', ('_NotEqualScalar',), np.not_equal, None, None,
        '1 where ``data != scalar`` else 0, in the data dtype.')
_scalar('_greater_scalar', ('_GreaterScalar',), np.greater, None, None,
        '1 where ``data > scalar`` else 0, in the data dtype.')
_scalar('_greater_equal_scalar', ('_GreaterEqualScalar',), np.greater_equal, None, None,
        '1 where ``data >= scalar`` else 0, in the data dtype.')
_scalar('_lesser_scalar', ('_LesserScalar',), np.less, None, None,
        '1 where ``data < scalar`` else 0, in the data dtype.')
_scalar('_lesser_equal_scalar', ('_LesserEqualScalar',), np.less_equal, None, None,
        '1 where ``data <= scalar`` else 0, in the data dtype.')
_scalar('_logical_and_scalar', ('_LogicalAndScalar',), np.logical_and, None, None,
        '1 where both the data and the scalar are nonzero else 0.')
_scalar('_logical_or_scalar', ('_LogicalOrScalar',), np.logical_or, None, None,
        '1 where the data or the scalar is nonzero else 0.')
_scalar('_logical_xor_scalar', ('_LogicalXorScalar',), np.logical_xor, None, None,
        '1 where exactly one of the data and the scalar is nonzero else 0.')


@quiet
def _smooth_l1(x, s, out=None):
    bsq = s * s
    ibsq = 1 / bsq
    ax = np.abs(x)
    result = np.multiply(x, x, out=out)
    result *= 0.5 * bsq
    np.copyto(result, ax - 0.5 * ibsq, where=ax > ibsq)
    return result


@quiet
def _g_smooth_l1(x, y, s, dy, out):
    bsq = s * s
    ibsq = 1 / bsq
    slope = np.multiply(x, bsq, out=out)
    np.copyto(slope, 1, where=x > ibsq)
    np.copyto(slope, -1, where=x < -ibsq)
    slope *= dy
    return slope


@register
class SmoothL1(ScalarOp):
    """Smooth L1 (Huber-like) loss of each element, with ``sigma = scalar``.

    ``f(x) = 0.5 * (sigma * x)**2`` where ``|x| < 1 / sigma**2``, else
    ``|x| - 0.5 / sigma**2``. The output keeps the input dtype.

    Examples
    --------
    >>> mx.nd.smooth_l1(mx.nd.array([0.5, 2.0]), scalar=1.0).asnumpy()
    array([0.125, 1.5  ], dtype=float32)
    """
    name = 'smooth_l1'
    aliases = ('_npx_smooth_l1',)
    compute = staticmethod(_smooth_l1)
    grad = staticmethod(_g_smooth_l1)
    backward_uses_inputs = True
    backward_uses_outputs = False

    def out_dtype(self, in_dtype):
        return np.dtype(in_dtype)
