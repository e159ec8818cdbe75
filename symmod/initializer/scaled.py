"""Initializers scaled to the layer's size: Xavier, MSRAPrelu and Orthogonal."""
import numpy as np

from .. import random
from .base import Initializer, register

__all__ = ['Xavier', 'MSRAPrelu', 'Orthogonal']


def fans(shape):
    """``(fan_in, fan_out)`` of a weight: ``shape[1]`` and ``shape[0]`` times the
    product of the remaining (kernel) axes."""
    receptive = float(np.prod(shape[2:])) if len(shape) > 2 else 1.
    return shape[1] * receptive, shape[0] * receptive


@register
class Xavier(Initializer):
    """"Xavier" (Glorot) initialization: keeps activation scale similar across layers.

    With ``c = sqrt(magnitude / factor)``, where ``factor`` is ``fan_in``,
    ``fan_out`` or their mean, weights are drawn from U[-c, c] (``rnd_type
    'uniform'``) or N(0, c**2) (``'gaussian'``). ``fan_in = shape[1] * k``,
    ``fan_out = shape[0] * k``, ``k`` the product of the kernel axes.

    Parameters
    ----------
    rnd_type : {'uniform', 'gaussian'}, optional
        The distribution (default 'uniform').
    factor_type : {'avg', 'in', 'out'}, optional
        Which fan divides the magnitude (default 'avg').
    magnitude : float, optional
        Scale of the random numbers (default 3).

    Examples
    --------
    >>> mx.init.Xavier(factor_type='in', magnitude=2.34).dumps()
    '["xavier", {"rnd_type": "uniform", "factor_type": "in", "magnitude": 2.34}]'
    """

    def __init__(self, rnd_type='uniform', factor_type='avg', magnitude=3):
        super(Xavier, self).__init__(rnd_type=rnd_type, factor_type=factor_type,
                                     magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def scale(self, shape, name=''):
        """The bound (uniform) or standard deviation (gaussian) used for ``shape``."""
        if len(shape) < 2:
            raise ValueError('Xavier initializer cannot be applied to vector {0}. It requires at'
                             ' least 2D.'.format(name))
        fan_in, fan_out = fans(shape)
        if self.factor_type == 'avg':
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == 'in':
            factor = fan_in
        elif self.factor_type == 'out':
            factor = fan_out
        else:
            raise ValueError('Incorrect factor type')
        return np.sqrt(self.magnitude / factor)

    def _init_weight(self, name, arr):
        scale = self.scale(arr.shape, name)
        if self.rnd_type == 'uniform':
            random.uniform(-scale, scale, arr.shape, dtype=arr.dtype, out=arr)
        elif self.rnd_type == 'gaussian':
            random.normal(0, scale, arr.shape, dtype=arr.dtype, out=arr)
        else:
            raise ValueError('Unknown random type')


@register
class MSRAPrelu(Xavier):
    """He / MSRA initialization for (P)ReLU networks: Gaussian Xavier with
    ``magnitude = 2 / (1 + slope**2)``.

    Parameters
    ----------
    factor_type : {'avg', 'in', 'out'}, optional
        Which fan divides the magnitude (default 'avg').
    slope : float, optional
        Initial negative slope of the PReLU units (default 0.25).

    Examples
    --------
    >>> mx.init.MSRAPrelu(factor_type='in', slope=0).dumps()
    '["msraprelu", {"factor_type": "in", "slope": 0}]'
    """

    def __init__(self, factor_type='avg', slope=0.25):
        magnitude = 2. / (1 + slope ** 2)
        super(MSRAPrelu, self).__init__('gaussian', factor_type, magnitude)
        self._kwargs = {'factor_type': factor_type, 'slope': slope}


@register
class Orthogonal(Initializer):
    """Orthogonal weights (Saxe et al., 2013): rows or columns of ``scale`` times an
    orthonormal matrix from the SVD of a random ``(shape[0], prod(shape[1:]))`` matrix.

    Parameters
    ----------
    scale : float, optional
        Scaling factor (default 1.414).
    rand_type : {'uniform', 'normal'}, optional
        Distribution of the random matrix (default 'uniform').

    Examples
    --------
    >>> init = mx.init.Orthogonal(scale=1.0)
    >>> module.init_params(init)
    """

    def __init__(self, scale=1.414, rand_type='uniform'):
        super(Orthogonal, self).__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == 'uniform':
            tmp = random.uniform(-1.0, 1.0, shape=(nout, nin)).asnumpy()
        elif self.rand_type == 'normal':
            tmp = random.normal(0.0, 1.0, shape=(nout, nin)).asnumpy()
        else:
            raise ValueError("Orthogonal: rand_type must be 'uniform' or 'normal', found %r"
                             % (self.rand_type,))
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        arr[:] = self.scale * res.reshape(arr.shape)
