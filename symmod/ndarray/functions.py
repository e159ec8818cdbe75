"""``mx.nd`` functions written over operators: eye, linspace, histogram and split_v2."""
import warnings

import numpy as np

from ..base import integer_types
from .ndarray import NDArray, array, mx_real_t, _op

__all__ = ['eye', 'linspace', 'histogram', 'split_v2']


def _on(result, ctx):
    return result if ctx is None else result.as_in_context(ctx)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """A 2-D array with ones on diagonal ``k`` and zeros elsewhere.

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns (0: N).
    k : int, optional
        Diagonal: 0 main, > 0 above, < 0 below.
    ctx : Context, optional
    dtype : str or numpy dtype, optional
        float32 by default.
    """
    return _on(_op('_eye')(N=N, M=M, k=k, dtype=dtype or mx_real_t, **kwargs), ctx)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=mx_real_t):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included if ``endpoint``).

    Examples
    --------
    >>> mx.nd.linspace(0, 1, 5).asnumpy()
    array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    return _on(_op('_linspace')(start=start, stop=stop, num=num, endpoint=endpoint,
                                dtype=dtype), ctx)


def histogram(a, bins=10, range=None):  # noqa: A002  (MXNet's and numpy's name)
    """Histogram of ``a``: (counts, bin edges).

    Parameters
    ----------
    a : NDArray
    bins : int or NDArray
        Number of equal bins over ``range``, or the bin edges.
    range : (float, float), optional
        Lower and upper edge; without it numpy computes the histogram (as MXNet does).
    """
    if isinstance(bins, NDArray):
        return _op('_histogram')(a, bins)
    if isinstance(bins, integer_types):
        if range is None:
            warnings.warn("range is not specified, using numpy's result to ensure consistency "
                          "with numpy")
            counts, edges = np.histogram(a.asnumpy(), bins=bins)
            return array(counts), array(edges)
        return _op('_histogram')(a, bin_cnt=bins, range=range)
    raise ValueError('bins argument should be either an integer or an NDArray')


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ``ary`` along ``axis`` into equal sections (an int) or at indices (a tuple).

    Returns
    -------
    list of NDArray (one NDArray for one part)
    """
    if isinstance(indices_or_sections, integer_types):
        size = ary.shape[axis]
        if size % indices_or_sections:
            raise ValueError('array split does not result in an equal division')
        step = size // indices_or_sections
        indices = [i * step for i in range(indices_or_sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError('indices_or_sections must either int or tuple of ints')
    return _op('_split_v2')(ary, indices=tuple(indices), axis=axis, squeeze_axis=squeeze_axis)
