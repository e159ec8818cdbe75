"""Shape manipulation: Reshape, Flatten, reshape_like, expand_dims, squeeze,
shape_array and size_array.

These operators keep the data in order and change only the shape. The executor gives
every output its own buffer, so forward is one ``np.copyto`` from a reshaped view of
the input (skipped when the planner made the output share the input's memory), and
backward is the same copy in the other direction.
"""
import numpy as np

from ..base import parse_bool, parse_int, parse_tuple, parse_optional
from . import registry
from .common import canonical_axis, copy_into, data_dtype, int_shape, size_of, zero_grad
from .registry import Operator, Param, register, ShapeError, unify, shape_is_known

__all__ = ['infer_reshape', 'reshape_output_shape']


def _grad_like(grad, ograd, req):
    """Copy an output gradient of the same size into an input gradient buffer."""
    copy_into(grad, ograd.reshape(grad.shape), req)


# ---- Reshape ----------------------------------------------------------------------
def infer_reshape(dshape, shape, reverse=False, opname='Reshape'):
    """The output shape of ``Reshape(shape=shape, reverse=reverse)`` on ``dshape``.

    Implements MXNet's special values: 0 copies a dimension, -1 infers one
    dimension from the size, -2 copies all remaining dimensions, -3 merges two
    consecutive dimensions and -4 splits one into the next two values of ``shape``
    (one of which may be -1). With ``reverse`` the special values are matched
    from the right. Unknown dimensions of ``dshape`` (0) stay unknown (0) in the
    result. The size is not checked here; see :func:`reshape_output_shape`.

    Examples
    --------
    >>> infer_reshape((2, 3, 4), (-4, 1, 2, -2))
    (1, 2, 3, 4)
    >>> infer_reshape((10, 5, 4), (-1, 0), reverse=True)
    (50, 4)
    """
    src = list(dshape)
    spec = list(shape)
    if reverse:
        src.reverse()
        spec.reverse()
    out = []
    src_idx = 0
    inf_idx = -1
    i = 0

    def need(count, value):
        if src_idx + count > len(src):
            raise ShapeError('%s: shape %s uses special value %d at position %d but the input '
                             '%s has no dimension left for it'
                             % (opname, tuple(shape), value, i, tuple(dshape)))

    while i < len(spec):
        dim = spec[i]
        if dim == 0:
            need(1, 0)
            out.append(src[src_idx])
            src_idx += 1
        elif dim == -1:
            if inf_idx >= 0:
                raise ShapeError('%s: shape %s has more than one -1; only one dimension can be '
                                 'inferred' % (opname, tuple(shape)))
            inf_idx = len(out)
            out.append(1)
            src_idx += 1
        elif dim == -2:
            out.extend(src[src_idx:])
            src_idx = len(src)
        elif dim == -3:
            need(2, -3)
            d1, d2 = src[src_idx], src[src_idx + 1]
            src_idx += 2
            out.append(d1 * d2)       # 0 (unknown) when either is unknown
        elif dim == -4:
            if i + 2 >= len(spec):
                raise ShapeError('%s: shape %s: -4 must be followed by two dimensions'
                                 % (opname, tuple(shape)))
            need(1, -4)
            d0 = src[src_idx]
            src_idx += 1
            d1, d2 = spec[i + 1], spec[i + 2]
            i += 2
            if d1 == -1 and d2 == -1:
                raise ShapeError('%s: shape %s: the two dimensions after -4 cannot both be -1'
                                 % (opname, tuple(shape)))
            if d1 == -1:
                d1 = d0 // d2 if d0 else 0
            if d2 == -1:
                d2 = d0 // d1 if d0 else 0
            if d0 and d1 * d2 != d0:
                raise ShapeError('%s: split dimensions %d, %d do not multiply to the input '
                                 'dimension %d (input %s, shape %s)'
                                 % (opname, d1, d2, d0, tuple(dshape), tuple(shape)))
            out.extend([d1, d2])
        elif dim > 0:
            out.append(dim)
            src_idx += 1
        else:
            raise ShapeError('%s: invalid value %d in shape %s (allowed: positive sizes and '
                             'the special values 0, -1, -2, -3, -4)' % (opname, dim, tuple(shape)))
        i += 1
    if inf_idx >= 0:
        if all(d > 0 for d in dshape):
            rest = size_of(out)
            out[inf_idx] = size_of(dshape) // rest if rest else 0
        else:
            out[inf_idx] = 0
    if reverse:
        out.reverse()
    return tuple(out)


def _fill_one_unknown(shape, total):
    """Fill the single unknown (0) dim of ``shape`` so that its size is ``total``."""
    unknown = [i for i, d in enumerate(shape) if not d]
    if len(unknown) != 1:
        return shape
    known = size_of(d for d in shape if d)
    if known == 0 or total % known:
        return shape
    shape = list(shape)
    shape[unknown[0]] = total // known
    return tuple(shape)


def reshape_output_shape(dshape, shape, reverse=False, opname='Reshape'):
    """Like :func:`infer_reshape`, and raise MXNetError when the sizes differ."""
    out = infer_reshape(dshape, shape, reverse, opname)
    if shape_is_known(dshape) and shape_is_known(out) and size_of(out) != size_of(dshape):
        raise ShapeError('%s: cannot reshape %s into %s' % (opname, tuple(dshape), tuple(shape)))
    return out


class _Identity(Operator):
    """Base of operators whose output is the input's data in a new shape."""
    backward_uses_inputs = False
    backward_uses_outputs = False
    inplace = ((0, 0),)

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0].reshape(out_data[0].shape), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _grad_like(in_grad[0], out_grad[0], req[0])


@register
class Reshape(_Identity):
    """Reshapes the input to ``shape``, a copy of the same data.

    ``shape`` may use the special values 0 (copy this dimension), -1 (infer it),
    -2 (copy all remaining), -3 (merge two dimensions) and -4 (split one dimension
    into the two values that follow); ``reverse`` matches them from the right.
    ``target_shape`` and ``keep_highest`` are MXNet's deprecated spelling.

    Examples
    --------
    >>> mx.nd.Reshape(mx.nd.zeros((2, 3, 4)), shape=(-3, -2)).shape
    (6, 4)
    """
    name = 'Reshape'
    aliases = ('reshape',)
    params = (Param('shape', parse_tuple, (), 'The target shape (special values 0, -1..-4).'),
              Param('reverse', parse_bool, False,
                    'Infer the special values from right to left.'),
              Param('target_shape', parse_tuple, (), '(Deprecated) target shape; one 0 is '
                    'inferred.'),
              Param('keep_highest', parse_bool, False,
                    '(Deprecated) keep the first dimension of the input.'))

    def _legacy_target(self, dshape):
        out = list(self.target_shape)
        start = 1 if self.keep_highest else 0
        if self.keep_highest:
            out[0] = dshape[0]
        zeros = [i for i in range(start, len(out)) if out[i] == 0]
        if len(zeros) == 1 and shape_is_known(dshape):
            out[zeros[0]] = 1
            out[zeros[0]] = size_of(dshape) // size_of(out)
        return tuple(out)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, oshape = int_shape(in_shapes[0]), int_shape(out_shapes[0])
        if dshape is None:
            return [None], [oshape], []
        if self.shape:
            target = reshape_output_shape(dshape, self.shape, self.reverse)
        elif self.target_shape:
            target = self._legacy_target(dshape)
        else:
            target = oshape
        try:
            oshape = unify(target, oshape)
        except ShapeError:
            raise ShapeError('Reshape: output shape %s does not match %s computed from input %s '
                             'and shape=%s' % (oshape, target, dshape, self.shape)) from None
        if oshape is not None and shape_is_known(oshape):
            dshape = _fill_one_unknown(dshape, size_of(oshape))
            if shape_is_known(dshape) and size_of(dshape) != size_of(oshape):
                raise ShapeError('Reshape: cannot reshape %s into %s'
                                 % (dshape, self.shape or self.target_shape or oshape))
        return [dshape], [oshape], []


@register
class Flatten(_Identity):
    """Collapses all axes but the first: ``(d1, d2, ..., dk)`` becomes ``(d1, d2*...*dk)``."""
    name = 'Flatten'
    aliases = ('flatten',)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None:
            return [None], list(out_shapes), []
        rest = dshape[1:]
        out = (dshape[0], size_of(rest) if all(rest) else 0)
        try:
            out = unify(out, out_shapes[0])
        except ShapeError:
            raise ShapeError('Flatten: output shape %s does not match input %s'
                             % (tuple(out_shapes[0]), dshape)) from None
        return [dshape], [out], []


def _parse_opt_int(value):
    return parse_optional(parse_int)(value)


@register
class reshape_like(_Identity):
    """Reshapes ``lhs`` (all or a range of its axes) to the shape of (a range of) ``rhs``.

    Only the data of ``lhs`` is used; ``rhs`` gives shapes and receives a zero gradient.
    """
    name = 'reshape_like'
    params = (Param('lhs_begin', _parse_opt_int, None, 'First lhs axis replaced (default 0).'),
              Param('lhs_end', _parse_opt_int, None, 'End of the lhs axes replaced.'),
              Param('rhs_begin', _parse_opt_int, None, 'First rhs axis used (default 0).'),
              Param('rhs_end', _parse_opt_int, None, 'End of the rhs axes used.'))

    def list_arguments(self):
        return ['lhs', 'rhs']

    @staticmethod
    def _range(ndim, side, begin, end):
        b = 0 if begin is None else begin
        b = b + ndim if b < 0 else b
        e = ndim if end is None else end
        e = e + ndim if e < 0 else e
        if not (0 <= b < e <= ndim):
            raise ShapeError('reshape_like: invalid range %s_begin=%s, %s_end=%s for %d '
                             'dimensions' % (side, begin, side, end, ndim))
        return b, e

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        lshape, rshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if lshape is None or rshape is None:
            return [lshape, rshape], list(out_shapes), []
        lb, le = self._range(len(lshape), 'lhs', self.lhs_begin, self.lhs_end)
        rb, re_ = self._range(len(rshape), 'rhs', self.rhs_begin, self.rhs_end)
        out = lshape[:lb] + rshape[rb:re_] + lshape[le:]
        if shape_is_known(lshape) and shape_is_known(out) and size_of(lshape) != size_of(out):
            raise ShapeError('reshape_like: cannot reshape lhs with shape %s to new shape %s '
                             'because they have different size' % (lshape, out))
        return [lshape, rshape], [unify(out, out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        return data_dtype(in_types, out_types)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        _grad_like(in_grad[0], out_grad[0], req[0])
        zero_grad(in_grad[1], req[1])


@register
class expand_dims(_Identity):
    """Inserts a new axis of size 1 at position ``axis`` (in ``[-ndim-1, ndim]``)."""
    name = 'expand_dims'
    params = (Param('axis', parse_int, doc='Position of the new axis.'),)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ishape, oshape = int_shape(in_shapes[0]), int_shape(out_shapes[0])
        if ishape is None and oshape is None:
            return [None], [None], []
        ndim = len(ishape) if ishape is not None else len(oshape) - 1
        axis = self.axis + ndim + 1 if self.axis < 0 else self.axis
        if not 0 <= axis <= ndim:
            raise ShapeError('expand_dims: axis must be in the range [%d, %d] (%d provided)'
                             % (-ndim - 1, ndim, self.axis))
        if ishape is not None:
            oshape = unify(ishape[:axis] + (1,) + ishape[axis:], oshape)
        ishape = unify(oshape[:axis] + oshape[axis + 1:], ishape)
        return [ishape], [oshape], []


@register
class squeeze(_Identity):
    """Removes axes of size 1 (all of them, or those in ``axis``); keeps at least one axis."""
    name = 'squeeze'
    params = (Param('axis', parse_optional(parse_tuple), None,
                    'The size-1 axes to remove (all when None).'),)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None or not shape_is_known(dshape):
            return [dshape], list(out_shapes), []
        ndim = len(dshape)
        if self.axis is None:
            drop = {i for i, d in enumerate(dshape) if d == 1}
        else:
            drop = set()
            for ax in self.axis:
                a = canonical_axis(ax, ndim, 'squeeze')
                if dshape[a] != 1:
                    raise ShapeError('squeeze: cannot select an axis to squeeze out which has '
                                     'size=%d not equal to one (axis %d of %s)'
                                     % (dshape[a], ax, dshape))
                if a in drop:
                    raise ShapeError('squeeze: duplicate value in axis %s' % (self.axis,))
                drop.add(a)
        out = tuple(d for i, d in enumerate(dshape) if i not in drop) or (1,)
        return [dshape], [unify(out, out_shapes[0])], []


class _ShapeInfo(Operator):
    """Base of shape_array / size_array: an int64 description of the input's shape."""
    zero_gradient = True
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_type(self, in_types, out_types, aux_types):
        return [in_types[0]], [np.dtype(np.int64)], []

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[0], req[0])


@register
class shape_array(_ShapeInfo):
    """Returns the shape of the input as a 1-D int64 array."""
    name = 'shape_array'

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        out = (len(shape),) if shape is not None else out_shapes[0]
        return [shape], [unify(out, out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        registry.assign(out_data[0], req[0], np.array(in_data[0].shape, dtype=np.int64))


@register
class size_array(_ShapeInfo):
    """Returns the number of elements of the input as an int64 array of shape (1,)."""
    name = 'size_array'

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        return [int_shape(in_shapes[0])], [unify((1,), out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        registry.assign(out_data[0], req[0], in_data[0].size)
