"""Random number generation: ``mx.random.seed`` and the samplers of ``mx.nd.random``.

One generator serves every consumer (the sampling operators in NDArray calls and bound
graphs, Dropout masks, initializers, SGLD noise, shuffling iterators), so
``mx.random.seed(n)`` makes a run repeatable. The functions here call the sampling
operators (``_random_uniform`` with number parameters, ``_sample_uniform`` with NDArray
parameters, as MXNet's do), the same ones ``mx.sym.random`` puts into graphs.
"""
import numpy as np

from .base import numeric_types
from .context import current_context  # noqa: F401  (mxnet.ndarray.random has the name)

__all__ = ['seed', 'get_rng', 'uniform', 'normal', 'randn', 'randint', 'poisson',
           'exponential', 'gamma', 'negative_binomial', 'generalized_negative_binomial',
           'multinomial', 'shuffle', 'uniform_like', 'normal_like', 'exponential_like',
           'gamma_like', 'poisson_like', 'negative_binomial_like',
           'generalized_negative_binomial_like']

_RNG = np.random.default_rng(0)


def seed(seed_state, ctx='all'):
    """Seed the generator used by every random operation in symmod.

    Parameters
    ----------
    seed_state : int
        The seed; as in MXNet (which passes it as a C int), only its low 32 bits count, so
        negative and large seeds are accepted.
    ctx : Context or 'all'
        Accepted for MXNet compatibility; all contexts share one generator.
    """
    global _RNG
    if isinstance(seed_state, (bool, np.bool_)) or not isinstance(seed_state,
                                                                  (int, np.integer)):
        raise ValueError('seed_state must be an integer, found %r' % (seed_state,))
    _RNG = np.random.default_rng(int(seed_state) & 0xFFFFFFFF)


def get_rng():
    """The numpy Generator behind symmod's random operations."""
    return _RNG


def __getattr__(name):
    # mxnet.ndarray.random exports NDArray; importing it eagerly would be circular (the
    # operators import this module for the generator)
    if name == 'NDArray':
        from .ndarray.ndarray import NDArray
        return NDArray
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def _op(name):
    from .ndarray.ndarray import _OPS
    return _OPS[name]


def _helper(distr, params, shape, dtype, ctx, out, kwargs):
    """MXNet's dispatch: all-NDArray parameters sample per element (``_sample_<distr>``),
    number parameters sample ``shape`` values (``_random_<distr>``)."""
    from .ndarray.ndarray import NDArray
    if isinstance(params[0], NDArray):
        if not all(isinstance(p, NDArray) for p in params[1:]):
            raise ValueError('distribution parameters must all be NDArrays or all be numbers')
        return _op('_sample_' + distr)(*params, shape=_shape(shape, ()), dtype=dtype, out=out,
                                       **kwargs)
    if isinstance(params[0], numeric_types):
        if not all(isinstance(p, numeric_types) for p in params[1:]):
            raise ValueError('distribution parameters must all be NDArrays or all be numbers')
        if shape is None and out is None:
            shape = (1,)
        shape = out.shape if shape is None else shape
        result = _op('_random_' + distr)(*params, shape=_shape(shape, (1,)), dtype=dtype,
                                         out=out, **kwargs)
        return result if out is not None or ctx is None else result.as_in_context(ctx)
    raise ValueError('distribution parameters must be NDArrays or numbers, found %s'
                     % type(params[0]).__name__)


def _shape(shape, default):
    if shape is None:
        return default
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the uniform distribution on [low, high).

    Parameters
    ----------
    low, high : float or NDArray
        Bounds; with NDArrays, ``shape`` samples are drawn for every element.
    shape : int or tuple, optional
        Sample shape (default (1,) for number parameters).
    dtype : str, optional
        float32 by default.
    ctx : Context, optional
    out : NDArray, optional
    """
    return _helper('uniform', [low, high], shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the normal distribution N(loc, scale**2)."""
    return _helper('normal', [loc, scale], shape, dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Normal samples of the given shape (``loc``/``scale`` keywords allowed)."""
    loc = kwargs.pop('loc', 0)
    scale = kwargs.pop('scale', 1)
    return normal(loc, scale, shape=shape or None, **kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the Poisson distribution with rate ``lam`` (as floats, like MXNet)."""
    return _helper('poisson', [lam], shape, dtype, ctx, out, kwargs)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution with the given scale (1 / rate)."""
    return _helper('exponential', [1.0 / scale], shape, dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the gamma distribution with shape ``alpha`` and scale ``beta``."""
    return _helper('gamma', [alpha, beta], shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the negative binomial distribution: failures before ``k`` successes
    of probability ``p``."""
    return _helper('negative_binomial', [k, p], shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None,
                                  **kwargs):
    """Samples from the negative binomial with mean ``mu`` and dispersion ``alpha``
    (a gamma-Poisson mixture; ``alpha`` 0 gives Poisson(mu))."""
    return _helper('generalized_negative_binomial', [mu, alpha], shape, dtype, ctx, out,
                   kwargs)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Integers from [low, high) (int32 unless ``dtype`` says int64)."""
    return _helper('randint', [low, high], shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=None, get_prob=False, out=None, dtype='int32', **kwargs):
    """Draw category indices from the distributions in the last axis of ``data``.

    Returns the indices (and, with ``get_prob``, the log-probability of each draw).
    """
    return _op('_sample_multinomial')(data, shape=_shape(shape, ()), get_prob=get_prob,
                                      out=out, dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis shuffled."""
    return _op('_shuffle')(data, **kwargs)


def _like(distr, data, params, out, kwargs):
    return _op('_random_%s_like' % distr)(data, out=out, **params, **kwargs)


def uniform_like(data=None, low=0, high=1, out=None, **kwargs):
    """Uniform samples of ``data``'s shape and dtype."""
    return _like('uniform', data, dict(low=low, high=high), out, kwargs)


def normal_like(data=None, loc=0, scale=1, out=None, **kwargs):
    """Normal samples of ``data``'s shape and dtype."""
    return _like('normal', data, dict(loc=loc, scale=scale), out, kwargs)


def exponential_like(data=None, lam=1, out=None, **kwargs):
    """Exponential samples (rate ``lam``) of ``data``'s shape and dtype."""
    return _like('exponential', data, dict(lam=lam), out, kwargs)


def gamma_like(data=None, alpha=1, beta=1, out=None, **kwargs):
    """Gamma samples (shape ``alpha``, scale ``beta``) of ``data``'s shape and dtype."""
    return _like('gamma', data, dict(alpha=alpha, beta=beta), out, kwargs)


def poisson_like(data=None, lam=1, out=None, **kwargs):
    """Poisson samples of ``data``'s shape and dtype."""
    return _like('poisson', data, dict(lam=lam), out, kwargs)


def negative_binomial_like(data=None, k=1, p=1, out=None, **kwargs):
    """Negative binomial samples of ``data``'s shape and dtype."""
    return _like('negative_binomial', data, dict(k=k, p=p), out, kwargs)


def generalized_negative_binomial_like(data=None, mu=1, alpha=1, out=None, **kwargs):
    """Generalized negative binomial samples of ``data``'s shape and dtype."""
    return _like('generalized_negative_binomial', data, dict(mu=mu, alpha=alpha), out, kwargs)

