"""DCASGD: asynchronous SGD with delay compensation (Zheng et al.)."""
from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch
from .optimizer import register

__all__ = ['DCASGD']


@register
class DCASGD(FusedOptimizer):
    """DCASGD (written as NDArray code in MXNet).

    The update, with ``previous`` the weight before the last update::

        grad = clip(grad * rescale_grad, clip_gradient)
        step = -lr * (grad + wd * weight + lamda * grad**2 * (weight - previous))
        previous = weight
        weight += step

    MXNet 1.9.1 tests its momentum state with ``if mom:``, so a non-zero momentum fails
    for any weight with more than one element (ValueError, the truth value of an NDArray
    is ambiguous). symmod keeps that behaviour.

    Parameters
    ----------
    momentum : float, optional
        The momentum value.
    lamda : float, optional
        Scale of the delay compensation.
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return (None, weight.copy())   # previous weight
        return (zeros(weight.shape, weight.context, dtype=weight.dtype),  # momentum
                weight.copy())

    def _launch(self, weights, grads, states, hp, dtype, cache):
        has_mom = False
        for mom, _ in states:
            if mom:     # MXNet's test: raises for multi-element NDArrays
                has_mom = True
            else:
                assert self.momentum == 0.0
        moms = state_arrays(states, 0) if has_mom else weights
        dispatch.run('dcasgd', [weights, grads, state_arrays(states, 1), moms], hp,
                     (self.momentum, self.lamda, self.rescale_grad,
                      self._clip_arg(truthy=False), has_mom), dtype, cache)
