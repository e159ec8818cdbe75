"""Follow-the-regularized-leader optimizers: Ftrl and FTML."""
import numpy

from ..ndarray import zeros
from .fused import FusedOptimizer, one_minus_pow, state_arrays
from .kernels import dispatch, sparse_rows
from .sparse import rows_view, row_sparse_parts, dense_fallback
from .optimizer import register

__all__ = ['Ftrl', 'FTML']


@register
class Ftrl(FusedOptimizer):
    """FTRL-Proximal (McMahan et al.), MXNet's ``ftrl_update``.

    The update::

        grad = clip(grad * rescale_grad, clip_gradient)
        z += grad - (sqrt(n + grad**2) - sqrt(n)) * weight / lr
        n += grad**2
        weight = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (abs(z) > lamda1)

    Parameters
    ----------
    lamda1 : float, optional
        L1 regularization strength.
    learning_rate : float, optional, default 0.1
        The learning rate.
    beta : float, optional
        Per-coordinate learning-rate offset.
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context, stype=weight.stype),   # z
                zeros(weight.shape, weight.context, stype=weight.stype))   # n

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('ftrl', [weights, grads, state_arrays(states, 0), state_arrays(states, 1)],
                     hp, (self.lamda1, self.beta, self.rescale_grad, self._clip_arg()),
                     dtype, cache)

    def _row_sparse_step(self, weight, grad, state, hp):
        """ftrl_update with a row_sparse gradient: the gradient's rows only when the weight
        (and so its states) are row_sparse too; a dense weight is updated densely, every
        row, as MXNet's storage fallback does."""
        if weight.stype != 'row_sparse' or weight.dtype not in (numpy.float32, numpy.float64):
            return dense_fallback(self, weight, grad, state, hp)
        w = rows_view(weight)
        z, n = rows_view(state[0], 'state'), rows_view(state[1], 'state')
        rows, g = row_sparse_parts(grad, w.dtype)
        scalars = self._sparse_scalars(w.dtype, self.lamda1, self.beta, hp[0], hp[1],
                                       self.rescale_grad, self._clip_arg())
        sparse_rows.ftrl_rows(w, z, n, rows, g, *scalars)
        return None


@register
class FTML(FusedOptimizer):
    """Follow the Moving Leader (Zheng & Kwok), MXNet's ``ftml_update``.

    The update at step ``t``::

        grad = clip(grad * rescale_grad + wd * weight, clip_gradient)
        v = beta2 * v + (1 - beta2) * grad**2
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z = beta1 * z + (1 - beta1) * grad - (d_t - beta1 * d_(t-1)) * weight
        weight = -z / d_t

    Parameters
    ----------
    beta1, beta2 : float, optional
        Decay rates.
    epsilon : float, optional
        Added to the denominator.
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (zeros(weight.shape, weight.context, dtype=weight.dtype),   # d
                zeros(weight.shape, weight.context, dtype=weight.dtype),   # v
                zeros(weight.shape, weight.context, dtype=weight.dtype))   # z

    def _hyper_params(self, indices, weights):
        return [(lr, wd, one_minus_pow(self.beta1, t), one_minus_pow(self.beta2, t))
                for lr, wd, t in zip(*self._counted_rates(indices))]

    def _launch(self, weights, grads, states, hp, dtype, cache):
        dispatch.run('ftml', [weights, grads, state_arrays(states, 0), state_arrays(states, 1),
                              state_arrays(states, 2)], hp,
                     (self.beta1, self.beta2, self.epsilon, self.rescale_grad,
                      self._clip_arg()), dtype, cache)
