"""Broadcasting operators: ``broadcast_add`` and friends, ``broadcast_to``,
``broadcast_axis`` and ``broadcast_like``.

Binary broadcast operators follow numpy's rule (shapes aligned on the right, size-1
dimensions stretched), as MXNet 1.x does. Their gradients are the elementwise
gradients summed over the broadcast axes, back to each input's shape.
"""
import numpy as np

from ..base import MXNetError, parse_optional, parse_tuple
from . import elemwise as ew
from .common import data_dtype, store, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register, unify

__all__ = ['broadcast_shape', 'sum_to']


def broadcast_shape(lhs, rhs, opname):
    """The broadcast of two partially known shapes (0 = unknown dim), or raise ShapeError."""
    ndim = max(len(lhs), len(rhs))
    lhs_full = (1,) * (ndim - len(lhs)) + tuple(lhs)
    rhs_full = (1,) * (ndim - len(rhs)) + tuple(rhs)
    out = []
    for l, r in zip(lhs_full, rhs_full):
        if l == 0 or r == 0:
            out.append(0)
        elif l != r and l != 1 and r != 1:
            raise ShapeError('%s: operands could not be broadcast together with shapes %s %s'
                             % (opname, tuple(lhs), tuple(rhs)))
        else:
            out.append(max(l, r) if min(l, r) == 1 else l)
    return tuple(out)


def _reduced_axes(small, big):
    """Axes of ``big`` summed to get back ``small`` (right-aligned broadcast)."""
    lead = len(big) - len(small)
    return tuple(range(lead)) + tuple(lead + i for i, d in enumerate(small)
                                      if d == 1 and big[lead + i] != 1)


def sum_to(dst, req, full):
    """Store ``full`` summed over the axes along which ``dst`` was broadcast to it."""
    if req == 'null':
        return
    if full.shape == dst.shape:
        store_from(dst, req, full)
        return
    axes = _reduced_axes(dst.shape, full.shape)
    keep = (1,) * (full.ndim - dst.ndim) + dst.shape
    if req == 'add':
        dst += np.sum(full, axis=axes, dtype=dst.dtype).reshape(dst.shape)
    else:
        np.sum(full, axis=axes, dtype=dst.dtype, keepdims=True, out=dst.reshape(keep))


class BroadcastBinary(ew.BinaryOperator):
    """Base of binary operators that broadcast their inputs numpy-style."""

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        lhs, rhs = in_shapes
        out = out_shapes[0]
        if lhs is not None and rhs is not None:
            shape = tuple(lhs) if tuple(lhs) == tuple(rhs) else \
                broadcast_shape(lhs, rhs, self.name)
            try:
                out = unify(out, shape)
            except ShapeError:
                raise ShapeError('%s: output shape %s does not match the broadcast %s of %s '
                                 'and %s' % (self.name, tuple(out), shape, tuple(lhs),
                                             tuple(rhs))) from None
        return [lhs, rhs], [out], list(aux_shapes)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        lhs, rhs = in_data
        dy = out_grad[0]
        for grad_fn, dst, r in zip(self.math.grads, in_grad, req):
            if grad_fn is None:
                zero_grad(dst, r)
            elif dst.shape == dy.shape:
                store(dst, r, grad_fn, lhs, rhs, dy)
            elif r != 'null':       # a broadcast input: sum back over the stretched axes
                sum_to(dst, r, grad_fn(lhs, rhs, dy, None))


def _broadcast(name, aliases, math, doc):
    return ew.declare_binary(BroadcastBinary, name, aliases, math, doc)


_broadcast('broadcast_add', ('broadcast_plus', '_sparse_broadcast_add', '_sparse_broadcast_plus'),
           ew.ADD, 'Adds two arrays elementwise with broadcasting.')
_broadcast('broadcast_sub', ('broadcast_minus', '_sparse_broadcast_sub',
                             '_sparse_broadcast_minus'),
           ew.SUB, 'Subtracts ``rhs`` from ``lhs`` elementwise with broadcasting.')
_broadcast('broadcast_mul', ('_sparse_broadcast_mul',), ew.MUL,
           'Multiplies two arrays elementwise with broadcasting.')
_broadcast('broadcast_div', ('_sparse_broadcast_div',), ew.DIV,
           'Divides ``lhs`` by ``rhs`` elementwise with broadcasting.')
_broadcast('broadcast_mod', (), ew.MOD,
           '``lhs`` modulo ``rhs`` with broadcasting; the result has the sign of ``rhs``.')
_broadcast('broadcast_power', (), ew.POWER,
           '``lhs`` raised to the power ``rhs`` with broadcasting.')
_broadcast('broadcast_maximum', ('_npi_maximum',), ew.MAXIMUM,
           'Elementwise maximum with broadcasting.')
_broadcast('broadcast_minimum', ('_npi_minimum',), ew.MINIMUM,
           'Elementwise minimum with broadcasting.')
_broadcast('broadcast_hypot', (), ew.HYPOT,
           'Elementwise ``sqrt(lhs**2 + rhs**2)`` with broadcasting.')
_broadcast('broadcast_equal', (), ew.EQUAL,
           '1 where ``lhs == rhs`` else 0 (input dtype), with broadcasting.')
_broadcast('broadcast_not_equal', (), ew.NOT_EQUAL,
           '1 where ``lhs != rhs`` else 0 (input dtype), with broadcasting.')
_broadcast('broadcast_greater', (), ew.GREATER,
           '1 where ``lhs > rhs`` else 0 (input dtype), with broadcasting.')
_broadcast('broadcast_greater_equal', (), ew.GREATER_EQUAL,
           '1 where ``lhs >= rhs`` else 0 (input dtype), with broadcasting.')
_broadcast('broadcast_lesser', (), ew.LESSER,
           '1 where ``lhs < rhs`` else 0 (input dtype), with broadcasting.')
_broadcast('broadcast_lesser_equal', (), ew.LESSER_EQUAL,
           '1 where ``lhs <= rhs`` else 0 (input dtype), with broadcasting.')
_broadcast('broadcast_logical_and', (), ew.LOGICAL_AND,
           '1 where both inputs are nonzero else 0, with broadcasting.')
_broadcast('broadcast_logical_or', (), ew.LOGICAL_OR,
           '1 where either input is nonzero else 0, with broadcasting.')
_broadcast('broadcast_logical_xor', (), ew.LOGICAL_XOR,
           '1 where exactly one input is nonzero else 0, with broadcasting.')


# ---- broadcasting one array to a bigger shape ---------------------------------------------
class _BroadcastTo(Operator):
    """Base of broadcasts to a computed shape (``target_shape``); the gradient sums back
    over the stretched axes."""
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = in_shapes[0]
        out = out_shapes[0]
        if data is not None and all(d > 0 for d in data):
            shape = self.target_shape(tuple(data), *in_shapes[1:])
            if shape is not None:
                try:
                    out = unify(out, shape)
                except ShapeError:
                    raise ShapeError('%s: output shape %s does not match %s'
                                     % (self.name, tuple(out), shape)) from None
        return list(in_shapes), [out], list(aux_shapes)

    def forward(self, is_train, req, in_data, out_data, aux):
        store_from(out_data[0], req[0], in_data[0])        # numpy broadcasts

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        sum_to(in_grad[0], req[0], out_grad[0])
        for dst, r in zip(in_grad[1:], req[1:]):
            zero_grad(dst, r)


def _stretch(opname, shape, target):
    """``shape`` broadcast to ``target`` of as many dims (a 0 in ``target`` keeps the dim)."""
    if len(shape) != len(target):
        raise ShapeError('%s: operand of shape %s cannot be broadcasted to %s'
                         % (opname, shape, target))
    out = []
    for have, want in zip(shape, target):
        if want == 0:
            out.append(have)
        elif have not in (want, 1):
            raise ShapeError('%s: array cannot be broadcasted from %s to %s'
                             % (opname, shape, target))
        else:
            out.append(want)
    return tuple(out)


@register
class BroadcastTo(_BroadcastTo):
    """Broadcasts an array to a new shape; a 0 in ``shape`` keeps that input dimension.

    Only size-1 dimensions can grow, and ``shape`` must have as many dimensions as
    the input.

    Parameters
    ----------
    shape : tuple of int
        The target shape, e.g. ``(10, 0, 0)`` to repeat a ``(1, 4, 5)`` array 10 times.

    Examples
    --------
    >>> mx.nd.broadcast_to(mx.nd.array([[1], [2]]), shape=(0, 3)).asnumpy()
    array([[1., 1., 1.],
           [2., 2., 2.]], dtype=float32)
    """
    name = 'broadcast_to'
    params = (Param('shape', parse_tuple, (), 'The shape of the desired array.'),)

    def target_shape(self, in_shape, other=None):
        return _stretch('broadcast_to', in_shape, self.shape)


@register
class BroadcastAxis(_BroadcastTo):
    """Broadcasts size-1 axes of an array to the given sizes.

    Parameters
    ----------
    axis : tuple of int
        The axes to broadcast (each must have size 1; negative values are not allowed).
    size : tuple of int
        The target size of each axis in ``axis``.

    Examples
    --------
    >>> mx.nd.broadcast_axis(mx.nd.ones((2, 1)), axis=1, size=3).shape
    (2, 3)
    """
    name = 'broadcast_axis'
    aliases = ('broadcast_axes',)
    params = (Param('axis', parse_tuple, (), 'The axes to perform the broadcasting.'),
              Param('size', parse_tuple, (), 'Target sizes of the broadcasting axes.'))

    def check_params(self):
        if len(self.axis) != len(self.size):
            raise MXNetError('broadcast_axis: axis %s and size %s must have the same length'
                             % (self.axis, self.size))

    def target_shape(self, in_shape, other=None):
        out = list(in_shape)
        for ax, size in zip(self.axis, self.size):
            if not 0 <= ax < len(in_shape):
                raise ShapeError('broadcast_axis: axis %d must be in range [0, %d) for input '
                                 'shape %s' % (ax, len(in_shape), in_shape))
            if out[ax] != 1:
                raise ShapeError('broadcast_axis: broadcasting axis %d must have size 1, '
                                 'found input shape %s' % (ax, in_shape))
            out[ax] = size
        return tuple(out)


@register
class BroadcastLike(_BroadcastTo):
    """Broadcasts ``lhs`` to the shape of ``rhs`` (or of the chosen ``rhs`` axes).

    Parameters
    ----------
    lhs_axes : tuple of int, optional
        Axes of ``lhs`` to broadcast (each of size 1).
    rhs_axes : tuple of int, optional
        Axes of ``rhs`` whose sizes they take. Without both, ``lhs`` takes the
        whole shape of ``rhs`` (same number of dimensions required).

    Examples
    --------
    >>> mx.nd.broadcast_like(mx.nd.ones((1, 3)), mx.nd.zeros((2, 3))).shape
    (2, 3)
    """
    name = 'broadcast_like'
    params = (Param('lhs_axes', parse_optional(parse_tuple), None,
                    'Axes to perform broadcast on in the first input array.'),
              Param('rhs_axes', parse_optional(parse_tuple), None,
                    'Axes to copy from the second input array.'))

    def list_arguments(self):
        return ['lhs', 'rhs']

    def infer_type(self, in_types, out_types, aux_types):
        # rhs only lends its shape: it keeps its own dtype (as in MXNet)
        return data_dtype(in_types, out_types)

    def target_shape(self, lhs, rhs=None):
        if rhs is None:
            return None
        rhs = tuple(rhs)
        if self.lhs_axes is None or self.rhs_axes is None:
            return _stretch('broadcast_like', lhs, rhs)
        if len(self.lhs_axes) != len(self.rhs_axes):
            raise ShapeError('broadcast_like: lhs_axes %s and rhs_axes %s differ in size'
                             % (self.lhs_axes, self.rhs_axes))
        if not self.lhs_axes:
            raise ShapeError('broadcast_like: empty axes tuple is not allowed')
        out = list(lhs)
        for la, ra in zip(self.lhs_axes, self.rhs_axes):
            src = la + len(lhs) if la < 0 else la
            dst = ra + len(rhs) if ra < 0 else ra
            if not 0 <= src < len(lhs):
                raise ShapeError('broadcast_like: invalid dimension %d in lhs_axes' % la)
            if not 0 <= dst < len(rhs):
                raise ShapeError('broadcast_like: invalid dimension %d in rhs_axes' % ra)
            if lhs[src] != 1:
                raise ShapeError('broadcast_like: input axis %d of shape %s must have size 1 '
                                 'to broadcast to %d' % (la, lhs, rhs[dst]))
            out[src] = rhs[dst]
        return tuple(out)
