"""``mx.sym.random``: sampling operators in symbolic graphs, with ``mx.nd.random``'s
signatures.

Number parameters give ``_random_<distr>`` nodes drawing ``shape`` samples; symbol
parameters give ``_sample_<distr>`` nodes drawing ``shape`` samples per element. The
draws happen when the bound graph runs, from the generator ``mx.random.seed`` seeds.

Examples
--------
>>> x = mx.sym.var('x')
>>> y = mx.sym.random.normal(loc=0, scale=1) + x      # noise of x's shape
"""
import numbers

from ..base import numeric_types  # noqa: F401  (mxnet.symbol.random has the name)
from .symbol import Symbol, _FUNCS

__all__ = ['uniform', 'normal', 'randn', 'poisson', 'exponential', 'gamma', 'multinomial',
           'negative_binomial', 'generalized_negative_binomial', 'shuffle', 'randint',
           'uniform_like', 'normal_like', 'exponential_like', 'gamma_like', 'poisson_like',
           'negative_binomial_like', 'generalized_negative_binomial_like']


def _helper(distr, params, shape, dtype, kwargs):
    if isinstance(params[0], Symbol):
        if not all(isinstance(p, Symbol) for p in params[1:]):
            raise ValueError('distribution parameters must all be Symbols or all be numbers')
        return _FUNCS['_sample_' + distr](*params, shape=shape or (), dtype=dtype, **kwargs)
    if isinstance(params[0], numbers.Number):
        if not all(isinstance(p, numbers.Number) for p in params[1:]):
            raise ValueError('distribution parameters must all be Symbols or all be numbers')
        return _FUNCS['_random_' + distr](*params, shape=shape or (), dtype=dtype, **kwargs)
    raise ValueError('distribution parameters must be Symbols or numbers, found %s'
                     % type(params[0]).__name__)


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    """Uniform samples on [low, high)."""
    return _helper('uniform', [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    """Normal samples N(loc, scale**2)."""
    return _helper('normal', [loc, scale], shape, dtype, kwargs)


def randn(*shape, **kwargs):
    """Normal samples of the given shape (``loc``/``scale``/``dtype`` keywords)."""
    loc = kwargs.pop('loc', 0)
    scale = kwargs.pop('scale', 1)
    dtype = kwargs.pop('dtype', None)
    return _helper('normal', [loc, scale], shape, dtype, kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    """Poisson samples with rate ``lam``."""
    return _helper('poisson', [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    """Exponential samples with the given scale (1 / rate)."""
    return _helper('exponential', [1.0 / scale], shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    """Gamma samples with shape ``alpha`` and scale ``beta``."""
    return _helper('gamma', [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    """Negative binomial samples: failures before ``k`` successes of probability ``p``."""
    return _helper('negative_binomial', [k, p], shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
    """Negative binomial samples with mean ``mu`` and dispersion ``alpha``."""
    return _helper('generalized_negative_binomial', [mu, alpha], shape, dtype, kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    """Integers drawn uniformly from [low, high)."""
    return _FUNCS['_random_randint'](low=low, high=high, shape=shape or (), dtype=dtype,
                                     **kwargs)


def multinomial(data, shape=None, get_prob=True, dtype='int32', **kwargs):
    """Category indices drawn from the distributions in the last axis of ``data`` (and,
    with ``get_prob``, their log-probabilities)."""
    return _FUNCS['_sample_multinomial'](data, shape=shape or (), get_prob=get_prob,
                                         dtype=dtype, **kwargs)


def shuffle(data, **kwargs):
    """``data`` with its first axis randomly permuted."""
    return _FUNCS['_shuffle'](data, **kwargs)


def _like(distr, data, params, kwargs):
    return _FUNCS['_random_%s_like' % distr](data, **params, **kwargs)


def uniform_like(data=None, low=0, high=1, **kwargs):
    """Uniform samples of ``data``'s shape."""
    return _like('uniform', data, dict(low=low, high=high), kwargs)


def normal_like(data=None, loc=0, scale=1, **kwargs):
    """Normal samples of ``data``'s shape."""
    return _like('normal', data, dict(loc=loc, scale=scale), kwargs)


def exponential_like(data=None, lam=1, **kwargs):
    """Exponential samples (rate ``lam``) of ``data``'s shape."""
    return _like('exponential', data, dict(lam=lam), kwargs)


def gamma_like(data=None, alpha=1, beta=1, **kwargs):
    """Gamma samples of ``data``'s shape."""
    return _like('gamma', data, dict(alpha=alpha, beta=beta), kwargs)


def poisson_like(data=None, lam=1, **kwargs):
    """Poisson samples of ``data``'s shape."""
    return _like('poisson', data, dict(lam=lam), kwargs)


def negative_binomial_like(data=None, k=1, p=1, **kwargs):
    """Negative binomial samples of ``data``'s shape."""
    return _like('negative_binomial', data, dict(k=k, p=p), kwargs)


def generalized_negative_binomial_like(data=None, mu=1, alpha=1, **kwargs):
    """Generalized negative binomial samples of ``data``'s shape."""
    return _like('generalized_negative_binomial', data, dict(mu=mu, alpha=alpha), kwargs)
