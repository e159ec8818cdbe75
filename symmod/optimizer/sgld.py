"""SGLD: stochastic gradient Langevin dynamics (a sampler rather than an optimizer)."""
import math

import numpy

from .. import random as _random
from .fused import FusedOptimizer
from .kernels import dispatch
from .optimizer import register

__all__ = ['SGLD']


@register
class SGLD(FusedOptimizer):
    """Stochastic Gradient Langevin Dynamics (Welling & Teh).

    The update::

        grad = clip(grad * rescale_grad, clip_gradient)
        weight += -lr / 2 * (grad + wd * weight) + normal(0, sqrt(lr))

    The noise is drawn from ``mx.random``'s generator, as MXNet draws it: after
    ``mx.random.seed(n)`` an update adds what ``mx.random.normal(0, sqrt(lr), shape)``
    would draw. The optimizer states (``Updater.get_states``, ``Trainer.save_states``)
    record that generator's state, and loading them puts it back, so a resumed run
    draws the same noise (and the same other random numbers) as one that never stopped.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._noise = {}

    def _extra_resume_state(self):
        return {'rng': _random.get_rng().bit_generator.state}

    def _load_extra_resume_state(self, extra):
        state = extra.get('rng')
        if state is None:
            return
        generator = _random.get_rng().bit_generator
        if not isinstance(state, dict) or state.get('bit_generator') != type(generator).__name__:
            raise ValueError('the SGLD noise generator state must be a %s state'
                             % type(generator).__name__)
        generator.state = state

    def create_state(self, index, weight):
        return None

    def _hyper_params(self, indices, weights):
        return [(lr / 2, wd, math.sqrt(lr)) for lr, wd, _ in zip(*self._counted_rates(indices))]

    def _noise_buffers(self, weights, dtype):
        """Standard-normal noise for raw weight arrays, one reused buffer per weight."""
        rng = _random.get_rng()
        buffers = []
        for weight in weights:
            key = (id(weight), numpy.dtype(dtype).name)
            entry = self._noise.get(key)
            if entry is None or entry[0] is not weight:
                host = numpy.empty(weight.shape, dtype=dtype)
                on_device = None
                if not isinstance(weight, numpy.ndarray):   # a device array: same device
                    from numba import cuda
                    on_device = cuda.device_array(weight.shape, dtype=dtype)
                entry = (weight, host, on_device)
                self._noise[key] = entry
            # float64 draws, as mx.random.normal makes them: after mx.random.seed(n) the
            # noise equals mx.random.normal(0, sqrt(lr), shape) (MXNet's seeding contract)
            entry[1][...] = rng.standard_normal(weight.shape)
            if entry[2] is None:
                buffers.append(entry[1])
            else:
                entry[2].copy_to_device(entry[1])
                buffers.append(entry[2])
        return buffers

    def _launch(self, weights, grads, states, hp, dtype, cache):
        noise = self._noise_buffers(weights, dtype)
        dispatch.run('sgld', [weights, grads, noise], hp,
                     (self.rescale_grad, self._clip_arg(truthy=False)), dtype, cache)

    def __getstate__(self):
        ret = super().__getstate__()
        ret['_noise'] = {}
        return ret
