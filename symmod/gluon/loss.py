"""Loss functions as HybridBlocks: each returns one loss value per sample.

Every loss takes ``pred``, ``label`` and an optional ``sample_weight`` (broadcast
against the elementwise loss), multiplies by the global ``weight`` when given, and
averages over all axes except ``batch_axis``.
"""
from .. import ndarray
from ..base import numeric_types
from .hybrid_block import HybridBlock

__all__ = ['Loss', 'L2Loss', 'L1Loss', 'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss',
           'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'KLDivLoss']


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """Multiply by ``sample_weight`` (broadcast) and the scalar ``weight``."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        assert isinstance(weight, numeric_types), 'weight must be a number'
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` reshaped to ``y``'s shape."""
    if F is ndarray:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class of the losses.

    Parameters
    ----------
    weight : float or None
        Global scalar weight of the loss.
    batch_axis : int
        The axis of the samples (kept; the others are averaged).
    """

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return '{name}(batch_axis={axis}, w={weight})'.format(
            name=self.__class__.__name__, axis=self._batch_axis, weight=self._weight)

    def _mean(self, F, loss):
        return F.mean(loss, axis=self._batch_axis, exclude=True)

    def _weighted_mean(self, F, loss, sample_weight):
        """The elementwise ``loss`` weighted, then averaged over the non-batch axes."""
        return self._mean(F, _apply_weighting(F, loss, self._weight, sample_weight))


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
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        return self._weighted_mean(F, loss, sample_weight)


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
