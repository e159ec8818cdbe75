"""Matrix products: dot, batch_dot and linalg_gemm2, all through BLAS (np.matmul).

MXNet's ``dot`` on N-d arrays is not numpy's: it contracts the LAST axis of ``lhs``
with the FIRST axis of ``rhs`` (``np.tensordot(lhs, rhs, 1)``). ``transpose_a`` views
``lhs`` as ``(lhs.shape[0], rest)`` and contracts its first axis; ``transpose_b``
views ``rhs`` as ``(rest, rhs.shape[-1])`` and contracts its last axis. So every
product is one 2-D matrix multiplication on reshaped views.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_optional
from .common import int_shape, matmul_into, size_of
from .registry import Operator, Param, register, ShapeError, unify

__all__ = []


def _parse_stype(value):
    text = str(value).strip()
    if text not in ('default', 'row_sparse', 'csr'):
        raise ValueError("expected 'default', 'row_sparse' or 'csr', found %r" % (value,))
    return text


_STYPE = Param('forward_stype', parse_optional(_parse_stype), None,
               'Desired output storage type (only dense storage exists in symmod).')


class _Product(Operator):
    """Base of dot and batch_dot: inputs ``lhs`` and ``rhs``, dense output only."""

    def check_params(self):
        if self.forward_stype not in (None, 'default'):
            raise MXNetError("%s: forward_stype=%r is not supported; symmod stores every array "
                             "densely ('default')" % (self.name, self.forward_stype))

    def list_arguments(self):
        return ['lhs', 'rhs']


@register
class dot(_Product):
    """Dot product: matrix product for 2-D, inner product for 1-D, and for N-d the
    last axis of ``lhs`` contracted with the first axis of ``rhs``.

    Examples
    --------
    >>> mx.nd.dot(mx.nd.ones((2, 3, 4)), mx.nd.ones((4, 5, 6))).shape
    (2, 3, 5, 6)
    """
    name = 'dot'
    params = (Param('transpose_a', parse_bool, False, 'Transpose lhs before the product.'),
              Param('transpose_b', parse_bool, False, 'Transpose rhs before the product.'),
              _STYPE)

    def _parts(self, lshape, rshape):
        """(kept lhs dims, contracted lhs dims, contracted rhs dims, kept rhs dims)."""
        if self.transpose_a:
            l_keep, l_sum = lshape[1:], lshape[:1]
        else:
            l_keep, l_sum = lshape[:-1], lshape[-1:]
        if self.transpose_b:
            r_keep, r_sum = rshape[:-1], rshape[-1:]
        else:
            r_keep, r_sum = rshape[1:], rshape[:1]
        return l_keep, l_sum, r_sum, r_keep

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        lshape, rshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if lshape is None or rshape is None:
            return [lshape, rshape], list(out_shapes), []
        if not lshape or not rshape:
            raise ShapeError('dot: scalar tensors are not supported, found %s X %s'
                             % (lshape, rshape))
        if len(lshape) == 1 and len(rshape) == 1:
            if self.transpose_a or self.transpose_b:
                raise ShapeError('dot: cannot transpose vectors')
            if lshape[0] and rshape[0] and lshape[0] != rshape[0]:
                raise ShapeError('dot: shape error: %s X %s' % (lshape, rshape))
            return [lshape, rshape], [unify((1,), out_shapes[0])], []
        l_keep, l_sum, r_sum, r_keep = self._parts(lshape, rshape)
        k1 = size_of(l_sum) if all(l_sum) else 0
        k2 = size_of(r_sum) if all(r_sum) else 0
        if k1 and k2 and k1 != k2:
            raise ShapeError('dot: shape error: %s X %s (transpose_a=%s, transpose_b=%s)'
                             % (lshape, rshape, self.transpose_a, self.transpose_b))
        out = (l_keep if len(lshape) > 1 else ()) + (r_keep if len(rshape) > 1 else ())
        return [lshape, rshape], [unify(out, out_shapes[0])], []

    def _mats(self, a, b):
        """2-D views (as stored, before any transpose) of the operands."""
        a2 = a.reshape(a.shape[0], -1) if self.transpose_a else a.reshape(-1, a.shape[-1])
        b2 = b.reshape(-1, b.shape[-1]) if self.transpose_b else b.reshape(b.shape[0], -1)
        return a2, b2

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        a2, b2 = self._mats(a, b)
        op_a = a2.T if self.transpose_a else a2
        op_b = b2.T if self.transpose_b else b2
        matmul_into(out_data[0].reshape(op_a.shape[0], op_b.shape[1]), op_a, op_b, req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        a2, b2 = self._mats(a, b)
        op_a = a2.T if self.transpose_a else a2
        op_b = b2.T if self.transpose_b else b2
        g = out_grad[0].reshape(op_a.shape[0], op_b.shape[1])
        ga, gb = in_grad[0].reshape(a2.shape), in_grad[1].reshape(b2.shape)
        if self.transpose_a:                    # a2 = op_a^T: d a2 = op_b @ g^T
            matmul_into(ga, op_b, g.T, req[0])
        else:
            matmul_into(ga, g, op_b.T, req[0])
        if self.transpose_b:                    # b2 = op_b^T: d b2 = g^T @ op_a
            matmul_into(gb, g.T, op_a, req[1])
        else:
            matmul_into(gb, op_a.T, g, req[1])


@register
class batch_dot(_Product):
    """Batched matrix product of N-d arrays (N >= 3): the last two axes are matrices,
    the leading axes must be equal and index the batch."""
    name = 'batch_dot'
    params = (Param('transpose_a', parse_bool, False, 'Transpose each lhs matrix.'),
              Param('transpose_b', parse_bool, False, 'Transpose each rhs matrix.'),
              _STYPE)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        lshape, rshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if lshape is None or rshape is None:
            return [lshape, rshape], list(out_shapes), []
        if not (len(lshape) >= 3 and len(lshape) == len(rshape)):
            raise ShapeError('batch_dot: only supports N-D * N-D arrays (N >= 3), found %s X %s'
                             % (lshape, rshape))
        try:
            batch = unify(lshape[:-2], rshape[:-2])
        except ShapeError:
            raise ShapeError('batch_dot: shape error (the leading batch dimensions must be '
                             'equal): %s X %s' % (lshape, rshape)) from None
        m, k1 = (lshape[-1], lshape[-2]) if self.transpose_a else (lshape[-2], lshape[-1])
        k2, n = (rshape[-1], rshape[-2]) if self.transpose_b else (rshape[-2], rshape[-1])
        if k1 and k2 and k1 != k2:
            raise ShapeError('batch_dot: shape error (shape mismatch): %s X %s transpose_a=%s '
                             'transpose_b=%s' % (lshape, rshape, self.transpose_a,
                                                 self.transpose_b))
        lshape = unify(lshape, batch + lshape[-2:])
        rshape = unify(rshape, batch + rshape[-2:])
        return [lshape, rshape], [unify(batch + (m, n), out_shapes[0])], []

    def _ops(self, a, b):
        return (np.swapaxes(a, -1, -2) if self.transpose_a else a,
                np.swapaxes(b, -1, -2) if self.transpose_b else b)

    def forward(self, is_train, req, in_data, out_data, aux):
        op_a, op_b = self._ops(*in_data)
        matmul_into(out_data[0], op_a, op_b, req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        op_a, op_b = self._ops(*in_data)
        g = out_grad[0]
        gt = np.swapaxes(g, -1, -2)
        if self.transpose_a:
            matmul_into(in_grad[0], op_b, gt, req[0])
        else:
            matmul_into(in_grad[0], g, np.swapaxes(op_b, -1, -2), req[0])
        if self.transpose_b:
            matmul_into(in_grad[1], gt, op_a, req[1])
        else:
            matmul_into(in_grad[1], np.swapaxes(op_a, -1, -2), g, req[1])


@register
class _linalg_gemm2(Operator):
    """General matrix product ``alpha * op(A) @ op(B)`` on the trailing matrices.

    ``axis`` names the row axis of the matrices (default -2); the leading
    dimensions index a batch. float32 and float64 only.
    """
    name = '_linalg_gemm2'
    aliases = ('linalg_gemm2',)
    params = (Param('transpose_a', parse_bool, False, 'Use the transpose of A.'),
              Param('transpose_b', parse_bool, False, 'Use the transpose of B.'),
              Param('alpha', parse_float, 1.0, 'Scalar factor of the product.'),
              Param('axis', parse_int, -2, 'Axis of the matrix row indices.'))

    def list_arguments(self):
        return ['A', 'B']

    def _row_axis(self, ndim):
        axis = self.axis + ndim if self.axis < 0 else self.axis
        if not 0 <= axis < ndim - 1:
            raise ShapeError('linalg_gemm2: invalid row axis (%d) for %d dimensions'
                             % (self.axis, ndim))
        return axis

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ashape, bshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if ashape is None or bshape is None or not (len(ashape) >= 2
                                                    and len(ashape) == len(bshape)):
            return [ashape, bshape], list(out_shapes), []
        nd = len(ashape)
        axis = self._row_axis(nd)
        out = list(ashape)
        for i in range(nd - 1):
            if i != axis and ashape[i] != bshape[i]:
                raise ShapeError('linalg_gemm2: shapes of inputs 0, 1 must be the same, except '
                                 'on the row/col axis: %s vs %s' % (ashape, bshape))
        ka = ashape[axis] if self.transpose_a else ashape[-1]
        kb = bshape[-1] if self.transpose_b else bshape[axis]
        if ka != kb:
            raise ShapeError('linalg_gemm2: incompatible matrix dimensions for multiplication: '
                             '%s X %s (transpose_a=%s, transpose_b=%s)'
                             % (ashape, bshape, self.transpose_a, self.transpose_b))
        out[axis] = ashape[-1] if self.transpose_a else ashape[axis]
        out[-1] = bshape[axis] if self.transpose_b else bshape[-1]
        return [ashape, bshape], [unify(tuple(out), out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        types = super().infer_type(in_types, out_types, aux_types)
        dtype = types[1][0]
        if dtype is not None and dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise MXNetError('linalg_gemm2: supports float32 and float64 only, found %s'
                             % np.dtype(dtype).name)
        return types

    def _mat(self, x, transpose):
        """The operand as a stack of matrices (rows on axis -2), transposed if asked."""
        m = np.moveaxis(x, self._row_axis(x.ndim), -2)
        return np.swapaxes(m, -1, -2) if transpose else m

    def _scale(self, dtype):
        return None if self.alpha == 1.0 else dtype.type(self.alpha)

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        out = np.moveaxis(out_data[0], self._row_axis(a.ndim), -2)
        matmul_into(out, self._mat(a, self.transpose_a), self._mat(b, self.transpose_b),
                     req[0], self._scale(a.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        op_a, op_b = self._mat(a, self.transpose_a), self._mat(b, self.transpose_b)
        g = self._mat(out_grad[0], False)
        scale = self._scale(a.dtype)
        ga, gb = self._mat(in_grad[0], False), self._mat(in_grad[1], False)
        if self.transpose_a:
            matmul_into(ga, op_b, np.swapaxes(g, -1, -2), req[0], scale)
        else:
            matmul_into(ga, g, np.swapaxes(op_b, -1, -2), req[0], scale)
        if self.transpose_b:
            matmul_into(gb, np.swapaxes(g, -1, -2), op_a, req[1], scale)
        else:
            matmul_into(gb, np.swapaxes(op_a, -1, -2), g, req[1], scale)
