"""The 'test' optimizer MXNet registers for debugging."""
from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch
from .optimizer import register

__all__ = ['Test']


@register
class Test(FusedOptimizer):
    """The Test optimizer: ``weight += rescale_grad * grad`` and ``state = weight``.

    It ignores the learning rate, weight decay and clipping, and counts no updates.
    """

    def create_state(self, index, weight):
        """A copy of the weight (float32), refreshed after every update."""
        return zeros(weight.shape, weight.context)

    def _hyper_params(self, indices, weights):
        return [(0.0,) for _ in indices]

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('plain', [weights, grads, state_arrays(states)], hp,
                     (self.rescale_grad,), dtype, cache)
