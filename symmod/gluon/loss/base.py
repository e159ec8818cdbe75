"""The base of the gluon losses and the weighting they share.

Every loss takes its inputs and an optional ``sample_weight`` (broadcast against the
elementwise loss), multiplies by the global ``weight`` when given, and averages over
all axes except ``batch_axis``.
"""
from ... import ndarray
from ...base import numeric_types
from ..hybrid_block import HybridBlock

__all__ = ['Loss']


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


