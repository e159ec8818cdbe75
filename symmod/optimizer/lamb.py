"""LAMB: Adam with a layer-wise trust ratio (You et al.), MXNet's multi_lamb_update."""
import numpy

from .adam import MomentsOptimizer
from .fused import one_minus_pow
from .kernels import dispatch
from .optimizer import aggregation_size, register

__all__ = ['LAMB']


def trust_lrs(lrs, sums, lower_bound, upper_bound):
    """Per-tensor ``lr * r1 / r2`` from the squared norms (float32, as MXNet)."""
    f32 = numpy.float32
    r1 = numpy.sqrt(sums[:, 0].astype(f32))
    r2 = numpy.sqrt(sums[:, 1].astype(f32))
    if lower_bound >= 0:
        r1 = numpy.maximum(r1, f32(lower_bound))
    if upper_bound >= 0:
        r1 = numpy.minimum(r1, f32(upper_bound))
    with numpy.errstate(divide='ignore', invalid='ignore'):
        ratio = numpy.where((r1 == 0) | (r2 == 0), f32(1), r1 / r2)
    return numpy.asarray(lrs, dtype=f32) * ratio.astype(f32)


@register
class LAMB(MomentsOptimizer):
    """LAMB: layer-wise adaptive moments for large-batch training.

    The update at step ``t``::

        grad = clip(grad * rescale_grad, clip_gradient)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad**2
        g = m_hat / (sqrt(v_hat) + epsilon) + wd * weight     (m_hat = m / (1 - beta1**t) ...)
        r1 = min(max(|weight|, lower_bound), upper_bound);  r2 = |g|
        weight -= lr * (r1 / r2 if r1 and r2 else 1) * g

    It is two passes over memory: the norms must be known before the step.

    Parameters
    ----------
    beta1, beta2 : float, optional
        Decay rates of the moment estimates.
    epsilon : float, optional, default 1e-6
        Added to the denominator.
    lower_bound, upper_bound : float, optional
        Bounds of the weight norm in the trust ratio.
    bias_correction : bool, optional, default True
        Use the bias-corrected moments.
    """

    _mp_calls_update = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate, beta1, beta2, **kwargs)
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = aggregation_size(45, most=45)

    def _hyper_params(self, indices, weights):
        return [(lr, wd, one_minus_pow(self.beta1, t), one_minus_pow(self.beta2, t))
                for lr, wd, t in zip(*self._counted_rates(indices))]

    def _launch(self, weights, grads, states, hp, dtype, cache):
        hp = numpy.asarray(hp, dtype=numpy.float64)
        means, variances = self._moments(states)
        sums = dispatch.run('lamb1', [weights, grads, means, variances, grads], hp[:, 1:4],
                            (self.beta1, self.beta2, self.epsilon, self.rescale_grad,
                             self._clip_arg(), bool(self.bias_correction), False),
                            dtype, cache)
        lower = float(self.lower_bound) if self.lower_bound else -1.0
        upper = float(self.upper_bound) if self.upper_bound else -1.0
        step_lrs = trust_lrs(hp[:, 0], sums, lower, upper)
        dispatch.run('lamb2', [weights, means, variances],
                     numpy.column_stack([hp[:, 1:4], step_lrs]),
                     (self.epsilon, bool(self.bias_correction)), dtype, cache)
