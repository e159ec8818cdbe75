"""Matrix products (dot, batch_dot, linalg_gemm2, linalg_gemm), all through BLAS
(np.matmul), and the linalg operators that copy diagonals and triangles in and out of
matrices (linalg_extractdiag, linalg_makediag, linalg_extracttrian, linalg_maketrian).

MXNet's ``dot`` on N-d arrays is not numpy's: it contracts the LAST axis of ``lhs``
with the FIRST axis of ``rhs`` (``np.tensordot(lhs, rhs, 1)``). ``transpose_a`` views
``lhs`` as ``(lhs.shape[0], rest)`` and contracts its first axis; ``transpose_b``
views ``rhs`` as ``(rest, rhs.shape[-1])`` and contracts its last axis. So every
product is one 2-D matrix multiplication on reshaped views.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_optional
from .common import int_shape, matmul_into, size_of, store_from
from .registry import Operator, Param, register, ShapeError, dim_known, unify

__all__ = ['LinalgOperator', 'check_linalg_dtype', 'diag_indices', 'trian_indices']


def _parse_stype(value):
    text = str(value).strip()
    if text not in ('default', 'row_sparse', 'csr'):
        raise ValueError("expected 'default', 'row_sparse' or 'csr', found %r" % (value,))
    return text


_STYPE = Param('forward_stype', parse_optional(_parse_stype), None,
               "Desired output storage type ('default', 'row_sparse' or 'csr').")


class _Product(Operator):
    """Base of dot and batch_dot: inputs ``lhs`` and ``rhs``."""

    def check_params(self):
        self.makes_sparse = self.forward_stype not in (None, 'default')

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
    aliases = ('_sparse_dot',)
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
        if not (dim_known(lshape[-1]) and dim_known(rshape[-2])):
            # MXNet's rule: nothing is inferred until lhs's last and rhs's second-to-last
            # dims are known (whatever the transposes)
            return [lshape, rshape], list(out_shapes), []
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


def check_linalg_dtype(opname, dtype):
    """The linalg operators compute in float32 or float64 only, as MXNet's LAPACK calls do."""
    if dtype is not None and np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise MXNetError('%s: This operation only supports 32-bit and 64-bit floating point '
                         '(float32 and float64), found %s' % (opname, np.dtype(dtype).name))


class LinalgOperator(Operator):
    """Base of the linalg operators: inputs named A, B, ...; one common float dtype."""

    def list_arguments(self):
        return ['A']

    def infer_type(self, in_types, out_types, aux_types):
        types = super().infer_type(in_types, out_types, aux_types)
        check_linalg_dtype(self.name, types[1][0] if types[1] else types[0][0])
        return types


@register
class _linalg_gemm2(LinalgOperator):
    """General matrix product ``alpha * op(A) @ op(B)`` on the trailing matrices.

    ``axis`` names the row axis of the matrices (default -2); the leading
    dimensions index a batch. float32 and float64 only.

    Examples
    --------
    >>> mx.nd.linalg.gemm2(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)), transpose_b=True).shape
    (2, 2)
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
            raise ShapeError('%s: invalid row axis (%d) for %d dimensions'
                             % (self.name, self.axis, ndim))
        return axis

    def _product_shape(self, ashape, bshape):
        """The output shape, or None while A or B is unknown."""
        if ashape is None or bshape is None or not (len(ashape) >= 2
                                                    and len(ashape) == len(bshape)):
            return None
        nd = len(ashape)
        axis = self._row_axis(nd)
        out = list(ashape)
        for i in range(nd - 1):
            if i != axis and ashape[i] != bshape[i]:
                raise ShapeError('%s: shapes of inputs 0, 1 must be the same, except on the '
                                 'row/col axis: %s vs %s' % (self.name, ashape, bshape))
        ka = ashape[axis] if self.transpose_a else ashape[-1]
        kb = bshape[-1] if self.transpose_b else bshape[axis]
        if ka != kb:
            raise ShapeError('%s: incompatible matrix dimensions for multiplication: %s X %s '
                             '(transpose_a=%s, transpose_b=%s)'
                             % (self.name, ashape, bshape, self.transpose_a, self.transpose_b))
        out[axis] = ashape[-1] if self.transpose_a else ashape[axis]
        out[-1] = bshape[axis] if self.transpose_b else bshape[-1]
        return tuple(out)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ashape, bshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        out = self._product_shape(ashape, bshape)
        return [ashape, bshape], [unify(out, out_shapes[0])], []

    def _mat(self, x, transpose):
        """The operand as a stack of matrices (rows on axis -2), transposed if asked."""
        m = np.moveaxis(x, self._row_axis(x.ndim), -2)
        return np.swapaxes(m, -1, -2) if transpose else m

    def _scale(self, dtype):
        return None if self.alpha == 1.0 else dtype.type(self.alpha)

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data[:2]
        out = np.moveaxis(out_data[0], self._row_axis(a.ndim), -2)
        matmul_into(out, self._mat(a, self.transpose_a), self._mat(b, self.transpose_b),
                    req[0], self._scale(a.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data[:2]
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


@register
class _linalg_gemm(_linalg_gemm2):
    """Matrix multiply-accumulate ``alpha * op(A) @ op(B) + beta * C`` on the trailing
    matrices (``axis`` is the row axis, as in linalg_gemm2).

    Gradients: A and B as in linalg_gemm2, ``dC = beta * dOut``.

    Examples
    --------
    >>> a, c = mx.nd.ones((2, 2)), mx.nd.ones((2, 3))
    >>> mx.nd.linalg.gemm(a, mx.nd.ones((2, 3)), c, alpha=2.0, beta=10.0).asnumpy()[0, 0]
    14.0
    """
    name = '_linalg_gemm'
    aliases = ('linalg_gemm',)
    params = (Param('transpose_a', parse_bool, False, 'Use the transpose of A.'),
              Param('transpose_b', parse_bool, False, 'Use the transpose of B.'),
              Param('alpha', parse_float, 1.0, 'Scalar factor of the product A*B.'),
              Param('beta', parse_float, 1.0, 'Scalar factor of C.'),
              Param('axis', parse_int, -2, 'Axis of the matrix row indices.'))
    inplace = ((2, 0),)

    def list_arguments(self):
        return ['A', 'B', 'C']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ashape, bshape, cshape = (int_shape(s) for s in in_shapes)
        out = self._product_shape(ashape, bshape)
        if out is not None:
            try:
                cshape = unify(cshape, out)
            except ShapeError:
                raise ShapeError('%s: C has shape %s, expected the product shape %s'
                                 % (self.name, cshape, out)) from None
        return [ashape, bshape, cshape], [unify(out, out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b, c = in_data
        dtype = a.dtype.type
        product = np.matmul(self._mat(a, self.transpose_a), self._mat(b, self.transpose_b))
        product *= dtype(self.alpha)
        product += dtype(self.beta) * self._mat(c, False)
        out = np.moveaxis(out_data[0], self._row_axis(a.ndim), -2)
        store_from(out, req[0], product)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        super().backward(req[:2], out_grad, in_data, out_data, in_grad[:2], aux)
        store_from(in_grad[2], req[2], out_grad[0] * in_grad[2].dtype.type(self.beta))


# ---- diagonals and triangles ---------------------------------------------------------------
def diag_indices(n, offset):
    """Row and column indices of diagonal ``offset`` of an n x n matrix."""
    k = np.arange(n - abs(offset))
    return k + max(-offset, 0), k + max(offset, 0)


def trian_indices(n, offset, lower):
    """Row and column indices of the triangle MXNet packs into a vector, in its order.

    The lower triangle (offset < 0, or offset 0 and ``lower``) goes row by row; the
    upper triangle (offset > 0, or offset 0 and not ``lower``) column by column;
    ``|offset|`` diagonals next to the main one are left out beyond the first.
    """
    m = n - abs(offset)
    r, c = np.tril_indices(m)
    if offset > 0 or (offset == 0 and not lower):
        return c, r + abs(offset)
    return r + abs(offset), c


def _square_matrices(opname, shape):
    if len(shape) < 2:
        raise ShapeError('%s: input operand must be a tensor of matrices, found shape %s'
                         % (opname, shape))
    if shape[-1] != shape[-2]:
        raise ShapeError('%s: input operand must be a tensor of square matrices, found shape %s'
                         % (opname, shape))


class _DiagTrian(LinalgOperator):
    """Base of the four copy operators: ``extract`` reads entries of square matrices into
    vectors, the others write vectors into zero matrices; their gradients are each
    other's copies. Subclasses give ``_indices(n)`` (the entries of an n x n matrix they
    copy) and, for the writing ones, ``_matrix_size(length)``."""
    extract = True

    def _packed(self, n):
        """Length of the vector holding the entries of an n x n matrix."""
        return len(self._indices(n)[0])

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if not shape:
            return [shape], list(out_shapes), []
        if self.extract:
            _square_matrices(self.name, shape)
            if shape[-1] - abs(self.offset) <= 0:
                raise ShapeError('%s: illegal offset %d for diag/trian extraction of matrices '
                                 'of size %d' % (self.name, self.offset, shape[-1]))
            out = shape[:-2] + (self._packed(shape[-1]),)
        else:
            n = self._matrix_size(shape[-1])
            out = shape[:-1] + (n, n)
        return [shape], [unify(out, out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        self._copy(in_data[0], out_data[0], req[0], self.extract)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._copy(out_grad[0], in_grad[0], req[0], not self.extract)

    def _copy(self, src, dst, req, gather):
        if req == 'null':
            return
        if gather:          # matrices -> vectors
            rows, cols = self._indices(src.shape[-1])
            store_from(dst, req, src[..., rows, cols])
            return
        rows, cols = self._indices(dst.shape[-1])
        if req == 'write':
            dst.fill(0)
        dst[..., rows, cols] += src


@register
class _linalg_extractdiag(_DiagTrian):
    """Extracts diagonal ``offset`` of each trailing square matrix of A.

    Examples
    --------
    >>> mx.nd.linalg.extractdiag(mx.nd.array([[1, 2], [3, 4]]), offset=1).asnumpy()
    array([2.], dtype=float32)
    """
    name = '_linalg_extractdiag'
    aliases = ('linalg_extractdiag',)
    params = (Param('offset', parse_int, 0, 'Diagonal: 0 main, < 0 below, > 0 above.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _indices(self, n):
        return diag_indices(n, self.offset)


@register
class _linalg_makediag(_linalg_extractdiag):
    """Builds square matrices with the trailing vectors of A on diagonal ``offset``
    and zeros elsewhere.

    Examples
    --------
    >>> mx.nd.linalg.makediag(mx.nd.array([1, 2])).asnumpy()
    array([[1., 0.],
           [0., 2.]], dtype=float32)
    """
    name = '_linalg_makediag'
    aliases = ('linalg_makediag',)
    extract = False

    def _matrix_size(self, length):
        return length + abs(self.offset)


@register
class _linalg_extracttrian(_DiagTrian):
    """Packs a triangle of each trailing square matrix of A into a vector: the lower
    one row by row, the upper one column by column (``offset`` picks the first
    diagonal; ``lower`` only matters for offset 0).

    Examples
    --------
    >>> mx.nd.linalg.extracttrian(mx.nd.array([[1, 2], [3, 4]])).asnumpy()
    array([1., 3., 4.], dtype=float32)
    """
    name = '_linalg_extracttrian'
    aliases = ('linalg_extracttrian',)
    params = (Param('offset', parse_int, 0, 'First diagonal: 0 main, < 0 below, > 0 above.'),
              Param('lower', parse_bool, True, 'Lower (True) or upper triangle, for offset 0.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _indices(self, n):
        return trian_indices(n, self.offset, self.lower)


@register
class _linalg_maketrian(_linalg_extracttrian):
    """Unpacks the trailing vectors of A (as linalg_extracttrian packs them) into
    triangular square matrices, zero elsewhere.

    Examples
    --------
    >>> mx.nd.linalg.maketrian(mx.nd.array([1, 2, 3])).asnumpy()
    array([[1., 0.],
           [2., 3.]], dtype=float32)
    """
    name = '_linalg_maketrian'
    aliases = ('linalg_maketrian',)
    extract = False

    def _matrix_size(self, length):
        m = int(np.floor(0.5 + (np.sqrt(8 * length + 1) - 1.0) * 0.5))
        if m * (m + 1) // 2 != length:
            raise ShapeError('%s: input tensor has an invalid dimension for the last axis: %d '
                             'is not a triangular number m*(m+1)/2' % (self.name, length))
        return m + abs(self.offset)
