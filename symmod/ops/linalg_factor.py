"""MXNet's LAPACK-backed linalg operators: Cholesky (potrf, potri), triangular products
and solves (trmm, trsm), syrk, sumlogdiag, the LQ (gelqf) and symmetric eigen (syevd)
factorizations and inverse (det and slogdet are in :mod:`linalg_det`).

Every operator works on the trailing two axes and batches over the leading ones,
computes with numpy.linalg in the input's dtype (float32 or float64), and its
backward is the formula MXNet 1.9.1 implements (written out in each class).
Factorizations that read one triangle of their input (potrf, syevd) return MXNet's
symmetric gradient, so a finite-difference check must perturb a symmetric input.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float
from .common import int_shape, store_from
from .linalg import LinalgOperator
from .registry import Param, ShapeError, register, unify


def _t(x):
    """The transposes of a stack of matrices."""
    return np.swapaxes(x, -1, -2)


def _triangle(x, lower):
    return np.tril(x) if lower else np.triu(x)


def _symmetric_from(x, lower):
    """The symmetric matrices whose ``lower`` (or upper) triangle is that of ``x``."""
    tri = _triangle(x, lower)
    return tri + _t(np.tril(x, -1) if lower else np.triu(x, 1))


def _lapack_name(dtype, routine):
    return ('s' if dtype == np.float32 else 'd') + routine


def _square(opname, shape, message='last two dimensions must be equal'):
    if len(shape) < 2:
        raise ShapeError("%s: input A's dimension must be >= 2, found shape %s"
                         % (opname, shape))
    if shape[-1] != shape[-2]:
        raise ShapeError('%s: input A shape wrong: %s, found %s' % (opname, message, shape))


class _OneMatrixOp(LinalgOperator):
    """Operators taking one stack of square matrices A to one of the same shape."""
    inplace = ((0, 0),)
    square_message = 'last two dimensions must be equal'

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = unify(int_shape(in_shapes[0]), int_shape(out_shapes[0]))
        if shape is not None and len(shape) >= 2 and all(shape[-2:]):
            _square(self.name, shape, self.square_message)
        return [shape], [shape], []


@register
class _linalg_potrf(_OneMatrixOp):
    """Cholesky factor of symmetric positive definite matrices: ``A = B B^T`` with B
    lower triangular (``lower=False``: ``A = B^T B``, B upper). Only that triangle
    of A is read.

    Gradient: ``dA = 0.5 B^-T copyLTU(B^T dB) B^-1`` (copyLTU mirrors the lower
    triangle to the upper; transposed for ``lower=False``).

    Examples
    --------
    >>> mx.nd.linalg.potrf(mx.nd.array([[4, 2], [2, 5]])).asnumpy()
    array([[2., 0.],
           [1., 2.]], dtype=float32)
    """
    name = '_linalg_potrf'
    aliases = ('linalg_potrf',)
    params = (Param('lower', parse_bool, True, 'Return a lower (True) or upper factor.'),)
    backward_uses_inputs = False
    square_message = 'no square matrix as input to potrf'

    def forward(self, is_train, req, in_data, out_data, aux):
        a = in_data[0]
        sym = _symmetric_from(a, self.lower)
        try:
            factor = np.linalg.cholesky(sym if self.lower else _t(sym))
        except np.linalg.LinAlgError:
            raise MXNetError('%s failed in lapack on cpu. This may happen when the input '
                             'matrix is either not symmetric or not positive definite.'
                             % _lapack_name(a.dtype, 'potrf')) from None
        store_from(out_data[0], req[0], factor if self.lower else _t(factor))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        b, db = out_data[0], out_grad[0]
        b_inv = np.linalg.inv(b)
        if self.lower:
            m = _symmetric_from(_t(b) @ db, True)
            grad = _t(b_inv) @ m @ b_inv
        else:
            m = _symmetric_from(db @ _t(b), False)
            grad = b_inv @ m @ _t(b_inv)
        grad *= b.dtype.type(0.5)
        store_from(in_grad[0], req[0], grad)


@register
class _linalg_potri(_OneMatrixOp):
    """Inverse of ``B B^T`` (``lower=False``: ``B^T B``) from its triangular Cholesky
    factor B, as linalg_potrf returns it; only that triangle of B is read.

    Gradient: ``dB = -tril(A (dA + dA^T) B^-T)`` with A the output (for
    ``lower=False``: ``-triu(B^-T (dA + dA^T) A)``).

    Examples
    --------
    >>> mx.nd.linalg.potri(mx.nd.array([[2, 0], [0, 4]])).asnumpy()
    array([[0.25  , 0.    ],
           [0.    , 0.0625]], dtype=float32)
    """
    name = '_linalg_potri'
    aliases = ('linalg_potri',)
    params = (Param('lower', parse_bool, True, 'B is lower (True) or upper triangular.'),)
    square_message = 'no square matrix as input to potri'

    def _inverse_factor(self, b):
        try:
            return np.linalg.inv(_triangle(b, self.lower))
        except np.linalg.LinAlgError:
            raise MXNetError('%s failed in lapack on cpu. This may happen when the input '
                             'matrix is not a Cholesky factorization obtained by a prior call '
                             'of the potrf-operator.' % _lapack_name(b.dtype, 'potri')) from None

    def forward(self, is_train, req, in_data, out_data, aux):
        b_inv = self._inverse_factor(in_data[0])
        result = _t(b_inv) @ b_inv if self.lower else b_inv @ _t(b_inv)
        store_from(out_data[0], req[0], result)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        b_inv = self._inverse_factor(in_data[0])
        a, da = out_data[0], out_grad[0]
        sym = da + _t(da)
        grad = -(a @ sym @ _t(b_inv)) if self.lower else -(_t(b_inv) @ sym @ a)
        store_from(in_grad[0], req[0], _triangle(grad, self.lower))


class _Triangular(LinalgOperator):
    """Base of trmm and trsm: A triangular (only its ``lower`` or upper triangle is
    read), used as ``op(A) = A`` or ``A^T`` on the left of B, or on the right."""
    params = (Param('transpose', parse_bool, False, 'Use the transpose of A.'),
              Param('rightside', parse_bool, False, 'Multiply A from the right of B.'),
              Param('lower', parse_bool, True, 'A is lower (True) or upper triangular.'),
              Param('alpha', parse_float, 1.0, 'Scalar factor of the result.'))
    inplace = ((1, 0),)

    def list_arguments(self):
        return ['A', 'B']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        ashape, bshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        oshape = int_shape(out_shapes[0])
        if ashape and bshape and len(ashape) >= 2 and len(ashape) == len(bshape):
            _square(self.name, ashape, 'first operand must be a tensor of square matrices')
            if ashape[:-2] != bshape[:-2]:
                raise ShapeError('%s: shapes of inputs 0, 1 must be the same, except on the '
                                 'last two dimensions: %s vs %s' % (self.name, ashape, bshape))
            k = bshape[-1] if self.rightside else bshape[-2]
            if k != ashape[-1]:
                raise ShapeError('%s: incompatible matrix dimensions for multiplication: '
                                 '%s and %s (rightside=%s)'
                                 % (self.name, ashape, bshape, self.rightside))
            return [ashape, bshape], [unify(bshape, oshape)], []
        if oshape and len(oshape) >= 2:
            n = oshape[-1] if self.rightside else oshape[-2]
            ashape = unify(ashape, oshape[:-2] + (n, n))
            bshape = unify(bshape, oshape)
        return [ashape, bshape], [oshape], []

    def _op(self, a):
        tri = _triangle(a, self.lower)
        return _t(tri) if self.transpose else tri

    def _scalar(self, x, value):
        return x.dtype.type(value)

    def _op_grad(self, left, right):
        """Store-ready gradient of A from the gradient of op(A), ``left @ right``."""
        g = _t(right) @ _t(left) if self.transpose else left @ right
        return _triangle(g, self.lower)


@register
class _linalg_trmm(_Triangular):
    """Triangular matrix product: ``alpha * op(A) @ B`` (``rightside``: ``alpha * B @ op(A)``).

    Gradients: ``dB = alpha * op(A)^T @ dC`` (or ``dC @ op(A)^T``); dA is
    ``alpha * dC @ B^T`` (or ``B^T @ dC``) mapped through op, restricted to A's triangle.

    Examples
    --------
    >>> mx.nd.linalg.trmm(mx.nd.array([[1, 0], [1, 1]]), mx.nd.ones((2, 2))).asnumpy()
    array([[1., 1.],
           [2., 2.]], dtype=float32)
    """
    name = '_linalg_trmm'
    aliases = ('linalg_trmm',)
    backward_uses_outputs = False

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        x = self._op(a)
        result = b @ x if self.rightside else x @ b
        result *= self._scalar(b, self.alpha)
        store_from(out_data[0], req[0], result)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, b = in_data
        dc = out_grad[0]
        alpha = self._scalar(b, self.alpha)
        x = self._op(a)
        if req[0] != 'null':
            dx = self._op_grad(_t(b), dc) if self.rightside else self._op_grad(dc, _t(b))
            store_from(in_grad[0], req[0], dx * alpha)
        if req[1] != 'null':
            db = dc @ _t(x) if self.rightside else _t(x) @ dc
            store_from(in_grad[1], req[1], db * alpha)


@register
class _linalg_trsm(_Triangular):
    """Triangular solve: ``alpha * op(A)^-1 @ B`` (``rightside``: ``alpha * B @ op(A)^-1``).

    Gradients, with C the output: ``dB = alpha * op(A)^-T @ dC`` (or ``dC @ op(A)^-T``);
    ``d op(A) = -dB @ C^T / alpha`` (or ``-C^T @ dB / alpha``), restricted to A's triangle.

    Examples
    --------
    >>> mx.nd.linalg.trsm(mx.nd.array([[2, 0], [0, 4]]), mx.nd.ones((2, 2))).asnumpy()
    array([[0.5 , 0.5 ],
           [0.25, 0.25]], dtype=float32)
    """
    name = '_linalg_trsm'
    aliases = ('linalg_trsm',)

    def _solve(self, x, b):
        """``op(A)^-1 @ b`` or ``b @ op(A)^-1`` for ``x = op(A)``."""
        if self.rightside:
            return _t(np.linalg.solve(_t(x), _t(b)))
        return np.linalg.solve(x, b)

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        try:
            result = self._solve(self._op(a), b)
        except np.linalg.LinAlgError:
            raise MXNetError('%s: the triangular matrix A is singular' % self.name) from None
        result *= self._scalar(b, self.alpha)
        store_from(out_data[0], req[0], result)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, c, dc = in_data[0], out_data[0], out_grad[0]
        x = self._op(a)
        db = self._solve(_t(x), dc) * self._scalar(dc, self.alpha)
        if req[0] != 'null':
            scale = self._scalar(dc, -1.0 / self.alpha)
            dx = self._op_grad(_t(c), db) if self.rightside else self._op_grad(db, _t(c))
            store_from(in_grad[0], req[0], dx * scale)
        store_from(in_grad[1], req[1], db)


@register
class _linalg_sumlogdiag(LinalgOperator):
    """Sum of the logarithms of the diagonal of each square matrix: shape ``A.shape[:-2]``
    (``(1,)`` for one matrix). Gradient: ``dA = diag(dOut / A_ii)``.

    Examples
    --------
    >>> mx.nd.linalg.sumlogdiag(mx.nd.array([[1, 0], [0, 7]])).asnumpy()
    array([1.9459101], dtype=float32)
    """
    name = '_linalg_sumlogdiag'
    aliases = ('linalg_sumlogdiag',)
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None or len(shape) < 2:
            return [shape], list(out_shapes), []
        if shape[-1] != shape[-2]:
            raise ShapeError('%s: sumlogdiag operator requires square matrices as input, '
                             'found shape %s' % (self.name, shape))
        return [shape], [unify(shape[:-2] or (1,), out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        diag = np.diagonal(in_data[0], axis1=-2, axis2=-1)
        store_from(out_data[0], req[0], np.log(diag).sum(axis=-1).reshape(out_data[0].shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a = in_data[0]
        n = a.shape[-1]
        grad = np.zeros_like(a)
        g = out_grad[0].reshape(a.shape[:-2] + (1,))
        grad[..., np.arange(n), np.arange(n)] = g / np.diagonal(a, axis1=-2, axis2=-1)
        store_from(in_grad[0], req[0], grad)


@register
class _linalg_syrk(LinalgOperator):
    """Symmetric rank-k product: ``alpha * A @ A^T`` (``transpose``: ``alpha * A^T @ A``).

    Gradient: ``dA = alpha * (dB + dB^T) @ A`` (``transpose``: ``alpha * A @ (dB + dB^T)``).

    Examples
    --------
    >>> mx.nd.linalg.syrk(mx.nd.array([[1, 2]])).asnumpy()
    array([[5.]], dtype=float32)
    """
    name = '_linalg_syrk'
    aliases = ('linalg_syrk',)
    params = (Param('transpose', parse_bool, False, 'Use A^T @ A.'),
              Param('alpha', parse_float, 1.0, 'Scalar factor of the result.'))
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None or len(shape) < 2:
            return [shape], list(out_shapes), []
        n = shape[-1] if self.transpose else shape[-2]
        return [shape], [unify(shape[:-2] + (n, n), out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        a = in_data[0]
        result = _t(a) @ a if self.transpose else a @ _t(a)
        result *= a.dtype.type(self.alpha)
        store_from(out_data[0], req[0], result)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        a, db = in_data[0], out_grad[0]
        sym = db + _t(db)
        grad = a @ sym if self.transpose else sym @ a
        grad *= a.dtype.type(self.alpha)
        store_from(in_grad[0], req[0], grad)


@register
class _linalg_gelqf(LinalgOperator):
    """LQ factorization ``A = L @ Q`` of m x n matrices (m <= n): Q has orthonormal rows,
    L is lower triangular, with LAPACK's signs (``L^T``, ``Q^T`` are numpy's
    ``qr(A^T)``). Outputs Q, then L.

    Gradient: ``dA = L^-T (dQ + copyLTU(M) Q)``, ``M = L^T dL - dQ Q^T``.

    Examples
    --------
    >>> q, l = mx.nd.linalg.gelqf(mx.nd.array([[3, 4]]))
    >>> q.asnumpy(), l.asnumpy()
    (array([[-0.6, -0.8]], dtype=float32), array([[-5.]], dtype=float32))
    """
    name = '_linalg_gelqf'
    aliases = ('linalg_gelqf',)
    backward_uses_inputs = False

    def list_outputs(self):
        return ['output0', 'output1']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None or len(shape) < 2:
            qshape = int_shape(out_shapes[0])
            return [qshape if shape is None else shape], list(out_shapes), []
        if shape[-2] > shape[-1]:
            raise ShapeError('%s: input A shape wrong: last dimension must be >= than second '
                             'to last, found %s' % (self.name, shape))
        lshape = shape[:-1] + (shape[-2],)
        return [shape], [unify(shape, out_shapes[0]), unify(lshape, out_shapes[1])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        q, r = np.linalg.qr(_t(in_data[0]))
        store_from(out_data[0], req[0], _t(q))
        store_from(out_data[1], req[1], _t(r))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        q, l_ = out_data
        dq, dl = out_grad
        m = _t(l_) @ dl - dq @ _t(q)
        rhs = dq + _symmetric_from(m, True) @ q
        store_from(in_grad[0], req[0], np.linalg.solve(_t(l_), rhs))


@register
class _linalg_syevd(LinalgOperator):
    """Eigendecomposition of symmetric matrices (only the lower triangle is read):
    ``A = U^T diag(L) U``, eigenvalues L ascending, eigenvectors in the rows of U,
    each signed so that its largest-magnitude entry (the first on ties) is positive.
    Outputs U, then L.

    Gradient: ``dA = U^T Y U`` with ``Y_ii = dL_i`` and, off the diagonal,
    ``Y_ij = Y_ji = (X_ij - X_ji) / (2 max(L_i - L_j, eps))`` for i > j, ``X = dU U^T``.

    Examples
    --------
    >>> u, l = mx.nd.linalg.syevd(mx.nd.array([[2, 0], [0, 1]]))
    >>> l.asnumpy()
    array([1., 2.], dtype=float32)
    """
    name = '_linalg_syevd'
    backward_uses_inputs = False

    def list_outputs(self):
        return ['output0', 'output1']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None or len(shape) < 2:
            ushape = int_shape(out_shapes[0])
            return [ushape if shape is None else shape], list(out_shapes), []
        _square(self.name, shape)
        return [shape], [unify(shape, out_shapes[0]), unify(shape[:-1], out_shapes[1])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        w, v = np.linalg.eigh(in_data[0], UPLO='L')
        u = _t(v)
        biggest = np.argmax(np.abs(u), axis=-1)[..., None]
        signs = np.where(np.take_along_axis(u, biggest, axis=-1) < 0, -1, 1).astype(u.dtype)
        store_from(out_data[0], req[0], u * signs)
        store_from(out_data[1], req[1], w)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        u, w = out_data
        du, dw = out_grad
        x = du @ _t(u)
        eps = 1e-30 if u.dtype == np.float32 else 1e-100
        gap = np.maximum(w[..., :, None] - w[..., None, :], u.dtype.type(eps)) * 2
        with np.errstate(over='ignore'):    # the upper half (i < j) is dropped
            y = np.tril((x - _t(x)) / gap, -1)
        y = y + _t(y)
        n = u.shape[-1]
        y[..., np.arange(n), np.arange(n)] = dw
        store_from(in_grad[0], req[0], _t(u) @ y @ u)


@register
class _linalg_inverse(_OneMatrixOp):
    """Inverse of square matrices. Gradient: ``dA = -B^T dB B^T`` with B the output.

    Examples
    --------
    >>> mx.nd.linalg.inverse(mx.nd.array([[2, 0], [0, 4]])).asnumpy()
    array([[0.5 , 0.  ],
           [0.  , 0.25]], dtype=float32)
    """
    name = '_linalg_inverse'
    aliases = ('linalg_inverse', '_npi_inv')
    backward_uses_inputs = False

    def forward(self, is_train, req, in_data, out_data, aux):
        try:
            store_from(out_data[0], req[0], np.linalg.inv(in_data[0]))
        except np.linalg.LinAlgError:
            raise MXNetError('%s: the input matrix is non-convertible (singular)'
                             % self.name) from None

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        b_t = _t(out_data[0])
        store_from(in_grad[0], req[0], -(b_t @ out_grad[0] @ b_t))
