"""Random number generation: ``mx.random.seed`` and samplers returning NDArrays.

One generator serves every consumer (Dropout masks, initializers, SGLD noise,
shuffling iterators), so ``mx.random.seed(n)`` makes a run repeatable.
"""
import numpy as np

from .context import current_context

__all__ = ['seed', 'get_rng', 'uniform', 'normal', 'randn', 'randint', 'poisson',
           'exponential', 'gamma', 'negative_binomial', 'generalized_negative_binomial',
           'multinomial', 'shuffle']

_RNG = np.random.default_rng(0)


def seed(seed_state, ctx='all'):
    """Seed the generator used by every random operation in symmod.

    Parameters
    ----------
    seed_state : int
        The seed.
    ctx : Context or 'all'
        Accepted for MXNet compatibility; all contexts share one generator.
    """
    global _RNG
    if not isinstance(seed_state, (int, np.integer)):
        raise ValueError('seed_state must be an integer, found %r' % (seed_state,))
    _RNG = np.random.default_rng(int(seed_state))


def get_rng():
    """The numpy Generator behind symmod's random operations."""
    return _RNG


def _params(values):
    """Distribution parameters as numpy values, and the batch shape they imply
    (MXNet samples ``shape`` values for every element of NDArray parameters)."""
    from .ndarray.ndarray import NDArray
    hosts = [v.asnumpy() if isinstance(v, NDArray) else v for v in values]
    arrays = [h for h in hosts if isinstance(h, np.ndarray)]
    if arrays and len(arrays) != len(hosts):
        raise ValueError('distribution parameters must all be NDArrays or all be scalars')
    if arrays and any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError('distribution parameters must have the same shape, found %s'
                         % [a.shape for a in arrays])
    return hosts, (arrays[0].shape if arrays else ())


def _sample(draw, values, shape, dtype, ctx, out, default_dtype='float32'):
    """Run ``draw(*params, size)`` with MXNet's shape rules and wrap the result."""
    from .ndarray import array
    from .ndarray.ndarray import NDArray
    hosts, batch = _params(values)
    if out is not None:
        size = out.shape
    else:
        extra = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
        size = batch + extra if (batch or extra) else (1,)
    if batch:      # broadcast each parameter over the trailing sample dims
        hosts = [h.reshape(h.shape + (1,) * (len(size) - len(batch))) for h in hosts]
    if dtype is None:
        first = next((v for v in values if isinstance(v, NDArray)), None)
        dtype = first.dtype if first is not None else default_dtype
    host = np.asarray(draw(*hosts, size=size)).astype(dtype)
    if out is not None:
        out[:] = host
        return out
    return array(host, ctx=ctx or current_context(), dtype=host.dtype)


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the uniform distribution on [low, high).

    Parameters
    ----------
    low, high : float or NDArray
        Bounds; with NDArrays, ``shape`` samples are drawn for every element.
    shape : int or tuple, optional
        Sample shape (default (1,) for scalar parameters).
    dtype : str, optional
        float32 by default.
    ctx : Context, optional
    out : NDArray, optional
    """
    return _sample(_RNG.uniform, [low, high], shape, dtype, ctx, out)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the normal distribution N(loc, scale**2)."""
    return _sample(_RNG.normal, [loc, scale], shape, dtype, ctx, out)


def randn(*shape, **kwargs):
    """Standard normal samples of the given shape (``loc``/``scale`` keywords allowed)."""
    loc = kwargs.pop('loc', 0)
    scale = kwargs.pop('scale', 1)
    return normal(loc, scale, shape=shape or None, **kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the Poisson distribution with rate ``lam`` (as floats, like MXNet)."""
    return _sample(_RNG.poisson, [lam], shape, dtype, ctx, out)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution with the given scale (1 / rate)."""
    return _sample(_RNG.exponential, [scale], shape, dtype, ctx, out)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the gamma distribution with shape ``alpha`` and scale ``beta``."""
    return _sample(_RNG.gamma, [alpha, beta], shape, dtype, ctx, out)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from the negative binomial distribution: failures before ``k`` successes
    of probability ``p``."""
    return _sample(_RNG.negative_binomial, [k, p], shape, dtype, ctx, out)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None,
                                  **kwargs):
    """Samples from the negative binomial with mean ``mu`` and dispersion ``alpha``
    (a gamma-Poisson mixture; ``alpha`` 0 gives Poisson(mu))."""
    def draw(mu, alpha, size):
        alpha = np.asarray(alpha, dtype=np.float64)
        rate = np.where(alpha > 0,
                        _RNG.gamma(1.0 / np.maximum(alpha, 1e-300), mu * alpha, size=size),
                        np.broadcast_to(mu, size))
        return _RNG.poisson(rate)
    return _sample(draw, [mu, alpha], shape, dtype, ctx, out)


def randint(low, high, shape=None, dtype='int32', ctx=None, out=None, **kwargs):
    """Integers from [low, high)."""
    return _sample(_RNG.integers, [low, high], shape, dtype, ctx, out, default_dtype='int32')


def multinomial(data, shape=None, get_prob=False, out=None, dtype='int32', **kwargs):
    """Draw category indices from the distributions in the last axis of ``data``.

    Returns the indices (and, with ``get_prob``, the log-probability of each draw).
    """
    from .ndarray import array
    probs = data.asnumpy().astype(np.float64)
    extra = () if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    flat = probs.reshape(-1, probs.shape[-1])
    count = int(np.prod(extra)) if extra else 1
    cumulative = np.cumsum(flat, axis=1)
    draws = _RNG.uniform(size=(flat.shape[0], count)) * cumulative[:, -1:]
    picks = np.stack([np.searchsorted(row, u, side='right') for row, u in
                      zip(cumulative, draws)])
    picks = np.minimum(picks, flat.shape[1] - 1)
    result_shape = probs.shape[:-1] + extra
    indices = picks.reshape(result_shape or (1,)).astype(dtype)
    result = array(indices, ctx=data.context, dtype=indices.dtype)
    if out is not None:
        out[:] = indices
        result = out
    if get_prob:
        chosen = np.take_along_axis(flat, picks, axis=1).reshape(result_shape or (1,))
        return [result, array(np.log(chosen), ctx=data.context, dtype=data.dtype)]
    return result


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis shuffled."""
    from .ndarray import array
    host = data.asnumpy()
    _RNG.shuffle(host)
    return array(host, ctx=data.context, dtype=host.dtype)
