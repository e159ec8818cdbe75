"""2-bit gradient compression, as MXNet's ``'device'`` KVStore applies it to pushes.

Each pushed gradient is added to a residual kept per (key, device). Every element of
the residual at or above ``threshold`` is sent as ``+threshold`` (and ``threshold`` is
taken off the residual), every element at or below ``-threshold`` as ``-threshold``,
everything else as 0. MXNet packs these three states into 2 bits (16 values per
float) to cut communication; inside one process there is nothing to communicate, so
symmod computes the same values without the packing. The store sums the dequantized
values of all devices.
"""
import numpy as np
from numba import njit

from ..base import MXNetError

__all__ = ['GradientCompression', 'parse_params']


@njit(cache=True, error_model='numpy')
def _quantize_2bit(grad, residual, out, threshold):
    """residual += grad; out = +-threshold where the residual reaches it, else 0."""
    neg = -threshold
    for i in range(grad.size):
        r = residual[i] + grad[i]
        if r >= threshold:
            out[i] = threshold
            r -= threshold
        elif r <= neg:
            out[i] = neg
            r -= neg
        else:
            out[i] = 0
        residual[i] = r


def parse_params(compression_params):
    """Check a compression dict as MXNet's ``GradientCompressionParam`` does.

    Returns ``(type, threshold)``. Keys other than ``type`` and ``threshold`` are
    ignored, as in MXNet.
    """
    assert isinstance(compression_params, dict), \
        'unexpected type for param_dict: ' + str(type(compression_params))
    if 'type' not in compression_params:
        raise MXNetError('Required parameter type of string is not presented')
    ctype = str(compression_params['type'])
    try:
        threshold = float(compression_params.get('threshold', 0.5))
    except (TypeError, ValueError):
        raise MXNetError('Invalid value for threshold: %r (expected a positive float)'
                         % (compression_params['threshold'],)) from None
    if not threshold > 0:
        raise MXNetError('Check failed: params.threshold > 0 (%s vs. 0) : '
                         'threshold must be greater than 0' % threshold)
    if ctype != '2bit':
        raise MXNetError('Unknown type for gradient compression %s' % ctype)
    return ctype, threshold


class GradientCompression:
    """2-bit quantization with per-(key, device) residuals.

    Parameters
    ----------
    threshold : float
        The quantization threshold (> 0).
    """

    def __init__(self, threshold):
        self.type = '2bit'
        self.threshold = np.float32(threshold)
        self._residuals = {}

    def reduce(self, key, values):
        """Quantize each device's value (updating its residual) and sum the results.

        Parameters
        ----------
        key : int or str
            The store key (residuals are kept per key and device position).
        values : list of numpy.ndarray
            One float32 gradient per device.

        Returns
        -------
        numpy.ndarray
            The sum of the dequantized values.
        """
        total = None
        quantized = None
        for position, value in enumerate(values):
            if value.dtype != np.float32:
                raise MXNetError('2bit gradient compression works on float32 gradients, '
                                 'found %s for key %r' % (value.dtype, key))
            residual = self._residuals.get((key, position))
            if residual is None or residual.shape != value.shape:
                residual = np.zeros(value.shape, dtype=np.float32)
                self._residuals[(key, position)] = residual
            if quantized is None:
                quantized = np.empty(value.shape, dtype=np.float32)
            _quantize_2bit(np.ascontiguousarray(value).reshape(-1), residual.reshape(-1),
                           quantized.reshape(-1), self.threshold)
            if total is None:
                total = quantized.copy()
            else:
                total += quantized
        return total
