"""AdaGrad and AdaDelta (both written as NDArray code in MXNet)."""
import numpy

from ..base import MXNetError
from ..ndarray import zeros
from .fused import FusedOptimizer, state_arrays
from .kernels import dispatch, sparse_rows
from .sparse import rows_view, row_sparse_parts, dense_fallback
from .optimizer import register

__all__ = ['AdaGrad', 'AdaDelta']


@register
class AdaGrad(FusedOptimizer):
    """AdaGrad: per-coordinate rates from the accumulated squared gradients.

    The update::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += grad**2
        weight += (grad / sqrt(history + eps) + weight * wd) * -lr

    Parameters
    ----------
    eps : float, optional, default 1e-7
        Added inside the square root.
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('adagrad', [weights, grads, state_arrays(states)], hp,
                     (self.float_stable_eps, self.rescale_grad, self._clip_arg(truthy=False)),
                     dtype, cache)

    def create_state(self, index, weight):
        return zeros(weight.shape, weight.context, stype=weight.stype)  # float32, as MXNet

    def _row_sparse_step(self, weight, grad, state, hp):
        """MXNet's sparse adagrad_update: the gradient's rows only, no weight decay."""
        if hp[1] != 0:
            raise MXNetError('sparse adagrad_update does not support wd.')
        w = rows_view(weight)
        if w.dtype != numpy.float32:
            return dense_fallback(self, weight, grad, state, hp)
        history = rows_view(state, 'state')
        rows, g = row_sparse_parts(grad, w.dtype)
        lr, eps, rescale, clip = self._sparse_scalars(
            w.dtype, hp[0], self.float_stable_eps, self.rescale_grad, self._clip_arg())
        sparse_rows.adagrad_rows(w, history, rows, g, lr, eps, rescale, clip)
        return None


@register
class AdaDelta(FusedOptimizer):
    """AdaDelta (Zeiler): no learning rate, step sizes from running averages.

    The update::

        grad = clip(grad * rescale_grad, clip_gradient)
        acc_g = rho * acc_g + (1 - rho) * grad**2
        delta = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * grad
        acc_delta = rho * acc_delta + (1 - rho) * delta**2
        weight -= delta + wd * weight

    Like MXNet, it multiplies the caller's gradient array by ``rescale_grad`` in place.

    Parameters
    ----------
    rho : float, optional
        Decay rate of both running averages.
    epsilon : float, optional
        Added inside the square roots.
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context),   # accumulated g
                zeros(weight.shape, weight.context))   # accumulated delta

    def _hyper_params(self, indices, weights):
        rows = []
        for index in indices:
            wd = self._get_wd(index)
            self._update_count(index)
            rows.append((wd,))
        return rows

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('adadelta', [weights, grads, state_arrays(states, 0),
                                  state_arrays(states, 1)], hp,
                     (self.rho, 1. - self.rho, self.epsilon, self.rescale_grad,
                      self._clip_arg(truthy=False)), dtype, cache)
