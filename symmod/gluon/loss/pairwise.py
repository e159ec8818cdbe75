"""Losses over pairs and triplets of embeddings: TripletLoss, CosineEmbeddingLoss and
SDMLLoss (smoothed deep metric learning over a batch of aligned pairs)."""
import numpy as np

from ... import ndarray
from .base import Loss, _apply_weighting, _reshape_like
from .pointwise import KLDivLoss

__all__ = ['TripletLoss', 'CosineEmbeddingLoss', 'SDMLLoss']


class TripletLoss(Loss):
    r"""Triplet loss: :math:`L = \max(\Vert pos - pred \Vert^2 - \Vert neg - pred \Vert^2
    + margin, 0)`, the squared distances summed over the non-batch axes.

    Parameters
    ----------
    margin : float, default 1
        How much closer the positive must be than the negative.
    weight : float, optional
        Global scalar weight.
    batch_axis : int, default 0
        The sample axis.

    Inputs are ``pred``, ``positive`` and ``negative`` with the same number of elements;
    the output has shape (batch_size,).

    Examples
    --------
    >>> loss = mx.gluon.loss.TripletLoss(margin=1)
    >>> loss(mx.nd.array([[0., 0.]]), mx.nd.array([[1., 0.]]),
    ...      mx.nd.array([[0., 2.]])).asnumpy()          # max(1 - 4 + 1, 0)
    array([0.], dtype=float32)
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        gap = F.sum(F.square(positive - pred) - F.square(negative - pred),
                    axis=self._batch_axis, exclude=True)
        return _apply_weighting(F, F.relu(gap + self._margin), self._weight, None)


class CosineEmbeddingLoss(Loss):
    r"""Cosine embedding loss of pairs labelled similar (1) or dissimilar (-1):
    :math:`1 - \cos(x_1, x_2)` for similar pairs and :math:`\max(0, \cos(x_1, x_2) -
    margin)` for dissimilar ones, the cosine taken along the last axis.

    Parameters
    ----------
    weight : float, optional
        Global scalar weight.
    batch_axis : int, default 0
        The sample axis.
    margin : float, default 0
        Cosine below which dissimilar pairs cost nothing.

    Inputs are ``input1`` and ``input2`` (same number of elements), ``label`` (one value
    per pair) and an optional ``sample_weight``; the output has shape (batch_size, 1), as
    in MXNet.
    """

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos = self._cosine_similarity(F, input1, input2)
        similar = (1 - cos) * (label == 1)
        dissimilar = F.relu((label == -1) * (cos - self._margin))
        return _apply_weighting(F, similar + dissimilar, self._weight, sample_weight)

    @staticmethod
    def _cosine_similarity(F, x, y, axis=-1):
        norms = F.norm(x, axis=axis).reshape((-1, 1)) * F.norm(y, axis=axis).reshape((-1, 1))
        dot = F.sum(x * y, axis=axis).reshape((-1, 1))
        # a zero vector has cosine 0 with anything (the norm product is floored at 1e-12)
        return dot / F._maximum_scalar(norms, scalar=1e-12)


class SDMLLoss(Loss):
    r"""Batch-wise smoothed deep metric learning loss (Bonadiman et al., 2019).

    ``x1[i]`` and ``x2[i]`` form a positive pair and every other row of ``x2`` serves as
    a negative for ``x1[i]``: the loss is the KL divergence between the softmax of the
    negative squared distances of ``x1[i]`` to all rows of ``x2`` and a smoothed one-hot
    target (``1 - smoothing_parameter`` on the pair, the rest shared evenly). It needs
    the batch size, so it runs imperatively only (as in MXNet).

    Parameters
    ----------
    smoothing_parameter : float, default 0.3
        Probability mass spread over the negatives; below 1.
    weight : float, default 1
        Global scalar weight (MXNet 1.9.1 stores it but never applies it; here it is
        applied).
    batch_axis : int, default 0
        The sample axis.

    Inputs ``x1`` and ``x2`` have shape (batch_size, dim); the output has shape
    (batch_size,).
    """

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _targets(self, batch_size, ctx):
        smooth = self.smoothing_parameter
        off = smooth / (batch_size - 1) if batch_size > 1 else 0.0
        target = np.full((batch_size, batch_size), off, np.float32)
        np.fill_diagonal(target, 1 - smooth)
        return ndarray.array(target, ctx=ctx)

    def hybrid_forward(self, F, x1, x2):
        if x1.shape != x2.shape or len(x1.shape) != 2:
            raise ValueError('SDMLLoss: x1 and x2 must be (batch_size, dim) arrays of one '
                             'shape, found %s and %s' % (x1.shape, x2.shape))
        diffs = F.broadcast_sub(x1.expand_dims(1), x2.expand_dims(0))
        distances = F.sum(F.square(diffs), axis=2)
        log_probs = F.log_softmax(-distances, axis=1)
        loss = self.kl_loss(log_probs, self._targets(x1.shape[0], distances.context))
        return _apply_weighting(F, loss, self._weight, None)
