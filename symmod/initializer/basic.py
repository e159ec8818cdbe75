"""Constant and simple random initializers: Zero, One, Constant, Uniform, Normal."""
import numpy as np

from .. import random
from .base import Initializer, alias, register

__all__ = ['Zero', 'One', 'Constant', 'Uniform', 'Normal']


@register
@alias('zeros')
class Zero(Initializer):
    """Fill weights with 0.

    Examples
    --------
    >>> init = mx.init.Zero()
    >>> module.init_params(init)
    """

    def __init__(self):
        super(Zero, self).__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias('ones')
class One(Initializer):
    """Fill weights with 1.

    Examples
    --------
    >>> init = mx.init.One()
    >>> module.init_params(init)
    """

    def __init__(self):
        super(One, self).__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    """Fill weights with a value: a scalar, or an array of the parameter's shape.

    Parameters
    ----------
    value : float, numpy.ndarray or NDArray
        The value.

    Examples
    --------
    >>> mx.init.Constant(0.25).dumps()
    '["constant", {"value": 0.25}]'
    """

    def __init__(self, value):
        super(Constant, self).__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        arr[:] = self.value

    def dumps(self):
        value = self._kwargs['value']
        if not np.isscalar(value):
            self._kwargs['value'] = np.asarray(value).tolist()
        return super(Constant, self).dumps()


@register
class Uniform(Initializer):
    """Fill weights with samples from U[-scale, scale).

    Parameters
    ----------
    scale : float, optional
        Bound of the range (default 0.07).

    Examples
    --------
    >>> mx.random.seed(0)
    >>> init = mx.init.Uniform(0.1)
    >>> module.init_params(init)
    """

    def __init__(self, scale=0.07):
        super(Uniform, self).__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        random.uniform(-self.scale, self.scale, arr.shape, dtype=arr.dtype, out=arr)


@register
class Normal(Initializer):
    """Fill weights with samples from N(0, sigma**2).

    Parameters
    ----------
    sigma : float, optional
        Standard deviation (default 0.01).

    Examples
    --------
    >>> init = mx.init.Normal(0.5)
    >>> init.dumps()
    '["normal", {"sigma": 0.5}]'
    """

    def __init__(self, sigma=0.01):
        super(Normal, self).__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        random.normal(0, self.sigma, arr.shape, dtype=arr.dtype, out=arr)
