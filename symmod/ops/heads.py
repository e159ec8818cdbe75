"""Layers that inject a gradient of their own: SVMOutput and IdentityAttachKLSparseReg.

SVMOutput is a loss head: identity in forward, and in backward the gradient of the
one-vs-rest hinge loss (L1-SVM with ``use_linear``, squared hinge L2-SVM otherwise) for
``label``, whatever gradient arrives at its output. IdentityAttachKLSparseReg is
identity in forward; in backward it adds to the incoming gradient the derivative of a
KL-divergence sparseness penalty on each unit's running mean activation, which it
keeps (and updates in backward) as the auxiliary state ``moving_avg``.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float
from .common import copy_into, int_shape, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register, unify

__all__ = []


def _rows(array):
    """``array`` as MXNet's FlatTo2D: (everything but the last axis, last axis)."""
    return array.reshape(-1, array.shape[-1]) if array.ndim else array.reshape(1, 1)


@register
class SVMOutput(Operator):
    """Support vector machine output layer for classification.

    ``label`` holds class indices, one per row of ``data`` (the data's shape without its
    last axis). With margin ``m`` and coefficient ``c``, the gradient for row ``y`` is
    ``-c * [m > x_k]`` at the label's column ``k`` and ``c * [m > -x_j]`` elsewhere
    (``use_linear``), or ``-2c * max(m - x_k, 0)`` and ``2c * max(m + x_j, 0)`` (L2).
    """
    name = 'SVMOutput'
    params = (Param('margin', parse_float, 1.0, 'Margin the loss demands.'),
              Param('regularization_coefficient', parse_float, 1.0,
                    'Scales the gradient.'),
              Param('use_linear', parse_bool, False, 'L1-SVM (True) or L2-SVM (False).'))
    is_loss = True
    backward_uses_inputs = True
    inplace = ((0, 0),)

    def list_arguments(self):
        return ['data', 'label']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = unify(int_shape(in_shapes[0]), int_shape(out_shapes[0]))
        lshape = int_shape(in_shapes[1])
        if dshape is None:
            return [None, lshape], [None], []
        try:
            lshape = unify(lshape, dshape[:-1])
        except ShapeError:
            raise ShapeError('SVMOutput: label shape %s does not match data %s: expected %s'
                             % (lshape, dshape, dshape[:-1])) from None
        return [dshape, lshape], [dshape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        zero_grad(in_grad[1], req[1])
        if req[0] == 'null':
            return
        out = _rows(out_data[0])
        label = in_data[1].reshape(-1).astype(np.int64)
        dtype = out.dtype.type
        margin, coef = dtype(self.margin), dtype(self.regularization_coefficient)
        is_label = np.arange(out.shape[1])[None, :] == label[:, None]
        if self.use_linear:
            grad = np.where(is_label, -(margin > out).astype(out.dtype) * coef,
                            (margin > -out).astype(out.dtype) * coef)
        else:
            grad = np.where(is_label,
                            np.where(margin > out, 2 * (margin - out), 0) * -coef,
                            np.where(margin > -out, -2 * (margin + out), 0) * -coef)
        store_from(_rows(in_grad[0]), req[0], grad.astype(out.dtype))


@register
class IdentityAttachKLSparseReg(Operator):
    """Identity that pulls each unit's mean activation towards ``sparseness_target``.

    In backward the mean of ``data`` (N, D) over the batch updates ``moving_avg`` (D,)
    with ``momentum``, and the gradient becomes
    ``dy + penalty * (-rho / moving_avg + (1 - rho) / (1 - moving_avg))``.
    """
    name = 'IdentityAttachKLSparseReg'
    params = (Param('sparseness_target', parse_float, 0.1, 'Target mean activation rho.'),
              Param('penalty', parse_float, 0.001, 'Weight of the sparseness penalty.'),
              Param('momentum', parse_float, 0.9, 'Momentum of the running mean.'))
    inplace = ((0, 0),)
    backward_uses_outputs = False

    def check_params(self):
        for name in ('sparseness_target', 'momentum'):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise MXNetError('IdentityAttachKLSparseReg: %s must be in [0, 1], found %s'
                                 % (name, getattr(self, name)))

    def list_auxiliary_states(self):
        return ['moving_avg']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = unify(int_shape(in_shapes[0]), int_shape(out_shapes[0]))
        if dshape is None:
            return [None], [None], list(aux_shapes)
        if len(dshape) < 2 or dshape[1] != dshape[-1]:
            raise ShapeError('IdentityAttachKLSparseReg: data must be (batch, units), '
                             'found %s' % (dshape,))
        return [dshape], [dshape], [(dshape[1],)]

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        data = _rows(in_data[0])
        moving = aux[0]
        dtype = moving.dtype.type
        avg = data.sum(axis=0, dtype=moving.dtype) / dtype(data.shape[0])
        moving *= dtype(self.momentum)
        moving += dtype(1 - self.momentum) * avg
        if req[0] == 'null':
            return
        rho = dtype(self.sparseness_target)
        penalty = dtype(self.penalty) * (-rho / moving + (1 - rho) / (1 - moving))
        store_from(_rows(in_grad[0]), req[0], _rows(out_grad[0]) + penalty)
