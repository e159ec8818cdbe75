"""Losses comparing a prediction with a label element by element (L1, L2, cross-entropies,
Huber, hinges, logistic, KL divergence, Poisson): each returns one value per sample."""
import math

import numpy as np

from ..._labels import warn_out_of_range
from ... import ndarray
from ...ndarray import NDArray
from .base import Loss, _apply_weighting, _reshape_like

__all__ = ['L2Loss', 'L1Loss', 'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss',
           'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'KLDivLoss', 'PoissonNLLLoss']


class L2Loss(Loss):
    r"""Half the squared error: :math:`L = \frac{1}{2} \sum_i (label_i - pred_i)^2`,
    averaged over the non-batch axes.

    Parameters
    ----------
    weight : float, default 1.
        Global scalar weight (the 1/2 above is ``weight / 2``).
    batch_axis : int, default 0
        The sample axis.

    Examples
    --------
    >>> mx.gluon.loss.L2Loss()(mx.nd.array([[1, 2]]), mx.nd.array([[0, 0]])).asnumpy()
    array([1.25], dtype=float32)
    """

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return self._mean(F, loss)


class L1Loss(Loss):
    r"""Absolute error :math:`L = \sum_i |label_i - pred_i|`, averaged over the non-batch
    axes.

    Parameters
    ----------
    weight : float, optional
        Global scalar weight.
    batch_axis : int, default 0
        The sample axis.
    """

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        return self._weighted_mean(F, loss, sample_weight)


class SoftmaxCrossEntropyLoss(Loss):
    r"""Softmax cross-entropy: :math:`L = -\sum_j label_j \log softmax(pred)_j`.

    Parameters
    ----------
    axis : int, default -1
        The class axis.
    sparse_label : bool, default True
        ``label`` holds class indices (``pred``'s shape without ``axis``); else a
        probability distribution of ``pred``'s shape.
    from_logits : bool, default False
        ``pred`` already holds log-probabilities (log_softmax is not applied).
    weight : float, optional
        Global scalar weight.
    batch_axis : int, default 0
        The sample axis.

    Examples
    --------
    >>> loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    >>> loss(mx.nd.array([[0, 0]]), mx.nd.array([1])).asnumpy()   # log(2)
    array([0.6931472], dtype=float32)
    """

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if F is ndarray and self._fused(pred, label, sample_weight):
            self._check_labels(label, pred.shape[1])
            return F._internal._gluon_softmax_ce_loss(pred, label)
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            if isinstance(label, NDArray):
                self._check_labels(label, pred.shape[self._axis])
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        return self._weighted_mean(F, loss, sample_weight)


    def _check_labels(self, label, classes):
        if not getattr(self, '_labels_checked', False):
            # first imperative call only: pick clips an out-of-range label silently
            self._labels_checked = True
            warn_out_of_range('SoftmaxCrossEntropyLoss', label.asnumpy(), classes,
                              consequence='pick() clips them to the nearest class')

    def _fused(self, pred, label, sample_weight):
        """Whether an imperative call is the common case that one operator computes
        (:mod:`symmod.ops.loss_fused`): 2-D float predictions, class axis last, one
        class index per sample, no weights."""
        if (self._from_logits or not self._sparse_label or self._weight is not None
                or sample_weight is not None or self._batch_axis != 0
                or self._axis not in (-1, 1)):
            return False
        data, labels = pred._data, label._data
        if type(data) is np.ndarray and type(labels) is np.ndarray:    # dense, on the host
            return (data.ndim == 2 and labels.size == data.shape[0] and labels.ndim <= 2
                    and data.dtype.kind == 'f')
        return (pred.ndim == 2 and pred.stype == 'default' and label.stype == 'default'
                and label.size == pred.shape[0] and label.ndim <= 2
                and np.dtype(pred.dtype).kind == 'f')


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class SigmoidBinaryCrossEntropyLoss(Loss):
    r"""Binary cross-entropy of ``sigmoid(pred)`` (or of ``pred`` when ``from_sigmoid``)
    against labels in [0, 1], with an optional ``pos_weight`` on positive terms.

    Parameters
    ----------
    from_sigmoid : bool, default False
        ``pred`` is already a probability.
    weight : float, optional
        Global scalar weight.
    batch_axis : int, default 0
        The sample axis.
    """

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            if pos_weight is None:
                # max(x, 0) - x * z + log(1 + exp(-|x|)), the stable form
                loss = F.relu(pred) - pred * label + \
                    F.Activation(-F.abs(pred), act_type='softrelu')
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * \
                    (F.Activation(-F.abs(pred), act_type='softrelu') + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1. - pred + eps) * (1. - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight)
                         + F.log(1. - pred + eps) * (1. - label))
        return self._weighted_mean(F, loss, sample_weight)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class KLDivLoss(Loss):
    r"""Kullback-Leibler divergence :math:`L = \sum_i label_i (\log label_i - pred_i)`,
    with ``pred`` log-probabilities (``from_logits=True``) or logits (log_softmax is
    applied along ``axis``). Summed (not averaged) over the non-batch axes, as MXNet."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class HuberLoss(Loss):
    r"""Smoothed L1: :math:`\frac{1}{2\rho}(label-pred)^2` where :math:`|label-pred|<\rho`,
    else :math:`|label-pred| - \rho/2`.

    Parameters
    ----------
    rho : float, default 1
        Where the quadratic part ends.
    """

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = F.where(loss > self._rho, loss - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(loss))
        return self._weighted_mean(F, loss, sample_weight)


class HingeLoss(Loss):
    r"""Hinge loss :math:`\max(0, margin - pred \cdot label)` for labels in {-1, 1}."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        return self._weighted_mean(F, loss, sample_weight)


class SquaredHingeLoss(Loss):
    r"""Squared hinge loss :math:`\max(0, margin - pred \cdot label)^2`."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(F.relu(self._margin - pred * label))
        return self._weighted_mean(F, loss, sample_weight)


class LogisticLoss(Loss):
    r"""Logistic loss :math:`\log(1 + \exp(-pred \cdot label))` for labels in {-1, 1}
    (``label_format='signed'``) or {0, 1} (``'binary'``)."""

    def __init__(self, weight=None, batch_axis=0, label_format='signed', **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if self._label_format not in ['signed', 'binary']:
            raise ValueError('label_format can only be signed or binary, recieved %s.'
                             % label_format)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == 'signed':
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + \
            F.Activation(-F.abs(pred), act_type='softrelu')
        return self._weighted_mean(F, loss, sample_weight)


class PoissonNLLLoss(Loss):
    r"""Negative log-likelihood of ``target`` counts under a Poisson distribution whose
    rate is ``pred``: :math:`L = pred - target \log(pred + \epsilon)`, or
    :math:`\exp(pred) - target \cdot pred` when ``pred`` is the log-rate
    (``from_logits``). Unlike the other losses it returns the mean over *all* elements,
    shape (1,).

    Parameters
    ----------
    weight : float, optional
        Global scalar weight.
    from_logits : bool, default True
        ``pred`` holds the log of the rate.
    batch_axis : int, default 0
        The sample axis (kept for the signature; the result is one number).
    compute_full : bool, default False
        Add Stirling's approximation of :math:`\log(target!)`,
        :math:`target \log(target) - target + \frac{1}{2}\log(2\pi \cdot target)`, for
        targets above 1 (MXNet's result for a zero target is NaN; here the term is 0).

    Examples
    --------
    >>> loss = mx.gluon.loss.PoissonNLLLoss()
    >>> loss(mx.nd.array([[0., 0.]]), mx.nd.array([[1., 3.]])).asnumpy()   # exp(0) - t * 0
    array([1.], dtype=float32)
    """

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False,
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            above_one = target > 1
            safe = F.where(above_one, target, F.ones_like(target))
            stirling = safe * F.log(safe) - safe + 0.5 * F.log(2 * math.pi * safe)
            loss = loss + stirling * above_one
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)
