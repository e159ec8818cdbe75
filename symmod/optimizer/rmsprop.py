"""RMSProp, plain (Tieleman & Hinton) and centered (Graves)."""
from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch
from .optimizer import register

__all__ = ['RMSProp']


@register
class RMSProp(FusedOptimizer):
    """RMSProp (MXNet's ``rmsprop_update`` / ``rmspropalex_update``).

    Plain (``centered=False``)::

        grad = clip(rescale_grad * grad + wd * weight, clip_gradient)
        n = (1 - gamma1) * grad**2 + gamma1 * n
        weight = weight - lr * grad / sqrt(n + epsilon)

    Centered additionally tracks the mean gradient ``g`` and a momentum ``delta``::

        g = (1 - gamma1) * grad + gamma1 * g
        delta = gamma2 * delta - lr * grad / sqrt(n - g**2 + epsilon)
        weight = weight + delta

    Parameters
    ----------
    gamma1 : float, optional
        Decay of the moving average of squared gradients.
    gamma2 : float, optional
        Momentum factor (centered only).
    epsilon : float, optional
        Added inside the square root.
    centered : bool, optional
        Use Graves' centered version.
    clip_weights : float, optional
        Clip weights into ``[-clip_weights, clip_weights]`` after each update.
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9,
                 epsilon=1e-8, centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        # MXNet creates these without a dtype: they are float32 whatever the weight
        if self.centered:
            return (zeros(weight.shape, weight.context),   # n
                    zeros(weight.shape, weight.context),   # g
                    zeros(weight.shape, weight.context))   # delta
        return (zeros(weight.shape, weight.context),)      # n

    def _launch(self, weights, grads, states, hp, dtype, cache):
        clip_weights = float(self.clip_weights) if self.clip_weights else -1.0
        if self.centered:
            dispatch.run('rmspropalex', [weights, grads, state_arrays(states, 0),
                                         state_arrays(states, 1), state_arrays(states, 2)], hp,
                         (self.gamma1, self.gamma2, self.epsilon, self.rescale_grad,
                          self._clip_arg(), clip_weights), dtype, cache)
        else:
            dispatch.run('rmsprop', [weights, grads, state_arrays(states, 0)], hp,
                         (self.gamma1, self.epsilon, self.rescale_grad, self._clip_arg(),
                          clip_weights), dtype, cache)
