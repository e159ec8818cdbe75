"""``mx.nd`` functions written over operators: eye, linspace, histogram, split_v2, and the
legacy reset_arrays and imdecode."""
import warnings

import numpy as np

from ..base import MXNetError, integer_types
from .ndarray import NDArray, array, mx_real_t, _op

__all__ = ['eye', 'linspace', 'histogram', 'split_v2', 'reset_arrays', 'imdecode']


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


def reset_arrays(*data, num_arrays=None, **kwargs):
    """Set every array of ``data`` to zero, in place; returns an empty list (the operator
    has no outputs)."""
    if num_arrays is not None and num_arrays != len(data):
        raise MXNetError('reset_arrays: num_arrays=%d but %d arrays given'
                         % (num_arrays, len(data)))
    for array in data:
        array[:] = 0
    return []


def imdecode(str_img, clip_rect=(0, 0, 0, 0), out=None, index=0, channels=3, mean=None):
    """Deprecated (use ``mx.img.imdecode``): decode an image to a (channels, height, width)
    float32 array in the decoder's BGR order, optionally clipped to
    ``clip_rect = (x0, y0, x1, y1)`` and minus ``mean`` (an array of the output's shape);
    with a 4-D ``out`` the image is written into ``out[index]``."""
    from ..image import imdecode as _decode
    image = _decode(str_img, flag=0 if channels == 1 else 1, to_rgb=False).asnumpy()
    image = image.reshape(image.shape[:2] + (-1,))[:, :, :channels]
    x0, y0, x1, y1 = clip_rect
    if y1 - y0 == 0:
        x0, y0, y1, x1 = 0, 0, image.shape[0], image.shape[1]
    if x1 > image.shape[1] or y1 > image.shape[0]:
        raise MXNetError('imdecode: clip_rect %s exceeds the image of %dx%d'
                         % (tuple(clip_rect), image.shape[1], image.shape[0]))
    chw = np.transpose(image[y0:y1, x0:x1], (2, 0, 1)).astype(np.float32)
    if mean is not None:
        if tuple(mean.shape) != chw.shape:
            raise MXNetError('imdecode: mean has shape %s, expected %s'
                             % (tuple(mean.shape), chw.shape))
        chw = chw - mean.asnumpy()
    if out is None:
        return array(chw)
    if out.ndim == 4:
        out[index] = chw
    else:
        out[:] = chw
    return out
