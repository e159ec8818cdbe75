"""Signum and signSGD: steps along the sign of the momentum (or of the gradient)."""
from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch
from .optimizer import register

__all__ = ['Signum']


@register
class Signum(FusedOptimizer):
    """Signum (Bernstein et al.); with ``momentum=0`` it is signSGD.

    The update (MXNet's ``signum_update``)::

        state = momentum * state - (1 - momentum) * (wd * weight + clip(rescale_grad * grad))
        weight = (1 - lr * wd_lh) * weight + lr * sign(state)

    and with ``momentum=0`` (``signsgd_update``, where rescaling and clipping have no
    effect on the sign)::

        weight = (1 - lr * wd) * weight - lr * sign(grad)

    Parameters
    ----------
    momentum : float, optional, default 0.9
        The momentum value; 0 gives signSGD (no state).
    wd_lh : float, optional
        Decoupled weight decay (Loshchilov & Hutter).
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        if self.momentum != 0.0:
            return zeros(weight.shape, weight.context, dtype=weight.dtype)
        return None

    def _launch(self, weights, grads, states, hp, dtype, cache):
        has_mom = states[0] is not None
        moms = state_arrays(states) if has_mom else weights   # not read without momentum
        dispatch.run('signum', [weights, grads, moms], hp,
                     (self.momentum if self.momentum > 0 else 0.0, self.rescale_grad,
                      self._clip_arg(), self.wd_lh if self.wd_lh else 0.0, has_mom),
                     dtype, cache)
