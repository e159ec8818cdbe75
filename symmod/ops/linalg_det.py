"""MXNet's determinant operators, det and slogdet, read from an LU factorization
(LAPACK's getrf, written here in numpy) that they also return as hidden outputs.

Both batch over the leading axes and compute in the input's dtype; their backward is
Jacobi's formula, zero for singular matrices.
"""
import numpy as np

from .common import int_shape, store_from
from .linalg import LinalgOperator, check_linalg_dtype
from .linalg_factor import _square, _t
from .registry import register, unify

__all__ = ['lu_factor']


def lu_factor(a):
    """LU factorization with partial pivoting (LAPACK getrf) of a stack of matrices.

    Returns ``(lu, pivot)``: ``lu`` holds the unit lower factor below the diagonal and
    the upper factor on and above it; ``pivot[..., k]`` is the 1-based row swapped with
    row k at step k. A zero pivot is left in place, as LAPACK does.
    """
    n = a.shape[-1]
    lu = np.array(a, copy=True).reshape(-1, n, n)
    pivot = np.empty(lu.shape[:2], np.int32)
    items = np.arange(lu.shape[0])
    for k in range(n):
        p = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
        pivot[:, k] = p + 1
        row_k = lu[items, k].copy()
        lu[items, k] = lu[items, p]
        lu[items, p] = row_k
        head = lu[:, k, k]
        safe = np.where(head == 0, 1, head)
        lu[:, k + 1:, k] /= safe[:, None]
        lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    return lu.reshape(a.shape), pivot.reshape(a.shape[:-1])


class _Determinant(LinalgOperator):
    """Base of det and slogdet: the visible outputs, then MXNet's hidden LU factors
    (A's shape) and 1-based pivots (int32), from which the determinant is read."""
    num_values = 1

    def list_outputs(self):
        return ['output%d' % i for i in range(self.num_values + 2)]

    def num_visible_outputs(self):
        return self.num_values

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return [shape], list(out_shapes), []
        _square(self.name, shape)
        values = shape[:-2] or (1,)
        outs = [unify(values, s) for s in out_shapes[:self.num_values]]
        outs += [unify(shape, out_shapes[-2]), unify(shape[:-1], out_shapes[-1])]
        return [shape], outs, []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        check_linalg_dtype(self.name, dtype)
        return [dtype], [dtype] * (self.num_values + 1) + [np.dtype(np.int32)], []

    def _sign_logdet(self, a, lu_out, pivot_out):
        """Factor A into the hidden outputs; return sign(det A) and log|det A|."""
        lu, pivot = lu_factor(a)
        lu_out[...] = lu
        pivot_out[...] = pivot
        diag = np.diagonal(lu, axis1=-2, axis2=-1)
        swaps = np.count_nonzero(pivot != np.arange(1, a.shape[-1] + 1, dtype=np.int32), axis=-1)
        sign = np.where(swaps % 2 == 1, -1, 1) * np.prod(np.sign(diag), axis=-1)
        with np.errstate(divide='ignore'):
            logdet = np.log(np.abs(diag)).sum(axis=-1)
        return sign.astype(a.dtype), logdet.astype(a.dtype, copy=False)

    def _jacobi(self, a, scale, singular):
        """``scale * A^-T`` per matrix, zero for the singular ones."""
        grad = np.zeros_like(a)
        ok = ~singular.reshape(a.shape[:-2])
        grad[ok] = _t(np.linalg.inv(a[ok])) * scale.reshape(a.shape[:-2] + (1, 1))[ok]
        return grad


@register
class _linalg_det(_Determinant):
    """Determinant of square matrices: shape ``A.shape[:-2]`` (``(1,)`` for one matrix),
    ``sign * exp(log|det|)`` from the LU factorization.

    Gradient (Jacobi's formula): ``dA = dOut * det * A^-T``, zero for singular A.

    Examples
    --------
    >>> mx.nd.linalg.det(mx.nd.array([[1, 2], [3, 4]])).asnumpy()
    array([-2.], dtype=float32)
    """
    name = '_linalg_det'
    aliases = ('linalg_det', '_npi_det')

    def forward(self, is_train, req, in_data, out_data, aux):
        sign, logdet = self._sign_logdet(in_data[0], out_data[1], out_data[2])
        store_from(out_data[0], req[0], (sign * np.exp(logdet)).reshape(out_data[0].shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        det = out_data[0]
        store_from(in_grad[0], req[0], self._jacobi(in_data[0], out_grad[0] * det, det == 0))


@register
class _linalg_slogdet(_Determinant):
    """Sign and natural log of the absolute value of the determinant of square matrices
    (two outputs of shape ``A.shape[:-2]``, ``(1,)`` for one matrix); a singular
    matrix gives sign 0 and ``-inf``.

    Gradient: ``dA = dLogabsdet * A^-T`` (the sign has none), zero for singular A.

    Examples
    --------
    >>> sign, logabsdet = mx.nd.linalg.slogdet(mx.nd.array([[1, 2], [3, 4]]))
    >>> sign.asnumpy(), logabsdet.asnumpy()
    (array([-1.], dtype=float32), array([0.6931472], dtype=float32))
    """
    name = '_linalg_slogdet'
    aliases = ('linalg_slogdet', '_npi_slogdet')
    num_values = 2

    def forward(self, is_train, req, in_data, out_data, aux):
        sign, logdet = self._sign_logdet(in_data[0], out_data[2], out_data[3])
        store_from(out_data[0], req[0], sign.reshape(out_data[0].shape))
        store_from(out_data[1], req[1], logdet.reshape(out_data[1].shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        logdet = out_data[1]
        store_from(in_grad[0], req[0],
                   self._jacobi(in_data[0], out_grad[1], logdet == -np.inf))
