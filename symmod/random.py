"""Random number generation: ``mx.random.seed`` and samplers returning NDArrays.

One generator serves every consumer (Dropout masks, initializers, SGLD noise,
shuffling iterators), so ``mx.random.seed(n)`` makes a run repeatable.
"""
import numpy as np

from .context import current_context

__all__ = ['seed', 'get_rng', 'uniform', 'normal', 'randn', 'randint', 'shuffle']

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


def _wrap(host, ctx, out):
    from .ndarray import array
    if out is not None:
        out[:] = host
        return out
    return array(host, ctx=ctx or current_context(), dtype=host.dtype)


def uniform(low=0, high=1, shape=(1,), dtype='float32', ctx=None, out=None, **kwargs):
    """Samples from U[low, high)."""
    shape = out.shape if out is not None else shape
    return _wrap(_RNG.uniform(low, high, size=shape).astype(dtype), ctx, out)


def normal(loc=0, scale=1, shape=(1,), dtype='float32', ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale**2)."""
    shape = out.shape if out is not None else shape
    return _wrap(_RNG.normal(loc, scale, size=shape).astype(dtype), ctx, out)


def randn(*shape, **kwargs):
    """Standard normal samples of the given shape."""
    return normal(shape=shape or (1,), **kwargs)


def randint(low, high, shape=(1,), dtype='int32', ctx=None, out=None, **kwargs):
    """Integers from [low, high)."""
    shape = out.shape if out is not None else shape
    return _wrap(_RNG.integers(low, high, size=shape).astype(dtype), ctx, out)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis shuffled."""
    from .ndarray import array
    host = data.asnumpy()
    _RNG.shuffle(host)
    return array(host, ctx=data.context, dtype=host.dtype)
