"""2-bit gradient compression, as MXNet's ``'device'`` and ``dist`` KVStores apply it.

Each pushed gradient is added to a residual kept per (key, device). Every element of
the residual at or above ``threshold`` is sent as ``+threshold`` (and ``threshold`` is
taken off the residual), every element at or below ``-threshold`` as ``-threshold``,
everything else as 0. MXNet packs these three states into 2 bits (16 values per
float) to cut communication; inside one process there is nothing to communicate, so
symmod computes the same values without the packing. The store sums the dequantized
values of all devices.

A worker of a distributed job (:class:`WorkerCompression`) does send its values: it
quantizes its sum over its devices with one residual per key and sends the codes
packed as MXNet packs them, 16 per 4 bytes; receivers unpack and add them up.
"""
import numpy as np
from numba import njit

from ..base import MXNetError

__all__ = ['GradientCompression', 'WorkerCompression', 'parse_params', 'packed_nbytes']


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


class _TwoBit:
    """The threshold and the residuals of a 2-bit scheme (one residual per slot)."""

    def __init__(self, threshold):
        self.type = '2bit'
        self.threshold = np.float32(threshold)
        self._residuals = {}

    def _residual(self, slot, key, value):
        """The float32 residual of ``slot`` (zeros at first) for ``value``."""
        if value.dtype != np.float32:
            raise MXNetError('2bit gradient compression works on float32 gradients, '
                             'found %s for key %r' % (value.dtype, key))
        residual = self._residuals.get(slot)
        if residual is None or residual.size != value.size:
            residual = self._residuals[slot] = np.zeros(value.size, dtype=np.float32)
        return residual


class GradientCompression(_TwoBit):
    """2-bit quantization with per-(key, device) residuals.

    Parameters
    ----------
    threshold : float
        The quantization threshold (> 0).
    """

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
            residual = self._residual((key, position), key, value)
            if quantized is None:
                quantized = np.empty(value.shape, dtype=np.float32)
            _quantize_2bit(np.ascontiguousarray(value).reshape(-1), residual,
                           quantized.reshape(-1), self.threshold)
            if total is None:
                total = quantized.copy()
            else:
                total += quantized
        return total


# ---- the packed form a distributed worker sends ---------------------------------------------
# MXNet's layout: 16 values per float32 word, 4 per byte from the high bits down;
# 0b11 is +threshold, 0b10 is -threshold, anything else 0.
def packed_nbytes(size):
    """Bytes of the packed form of ``size`` values (whole float32 words, as MXNet)."""
    return ((size + 15) // 16) * 4


@njit(cache=True, error_model='numpy')
def quantize_pack(grad, residual, packed, threshold):
    """residual += grad; write the 2-bit codes of +-threshold / 0 into ``packed``."""
    pos_bits = np.array([0xc0, 0x30, 0x0c, 0x03], dtype=np.uint8)
    neg_bits = np.array([0x80, 0x20, 0x08, 0x02], dtype=np.uint8)
    packed[:] = 0
    neg = -threshold
    for i in range(grad.size):
        r = residual[i] + grad[i]
        if r >= threshold:
            packed[i >> 2] |= pos_bits[i & 3]
            r -= threshold
        elif r <= neg:
            packed[i >> 2] |= neg_bits[i & 3]
            r -= neg
        residual[i] = r


@njit(cache=True, error_model='numpy')
def unpack_add(packed, out, threshold):
    """out += the values the 2-bit codes in ``packed`` stand for."""
    pos_bits = np.array([0xc0, 0x30, 0x0c, 0x03], dtype=np.uint8)
    neg_bits = np.array([0x80, 0x20, 0x08, 0x02], dtype=np.uint8)
    for i in range(out.size):
        col = i & 3
        masked = packed[i >> 2] & pos_bits[col]
        if masked == pos_bits[col]:
            out[i] += threshold
        elif masked == neg_bits[col]:
            out[i] -= threshold


class WorkerCompression(_TwoBit):
    """2-bit compression of what one worker of a distributed job sends, as MXNet's
    ``KVStoreDist``: the worker's sum over its devices is quantized with one residual
    per key, and the receivers add up the dequantized values of all workers.

    Parameters
    ----------
    threshold : float
        The quantization threshold (> 0).
    """

    def encode(self, key, value, packed):
        """Quantize ``value`` (this worker's float32 sum for ``key``) into ``packed``."""
        residual = self._residual(key, key, value)
        quantize_pack(np.ascontiguousarray(value).reshape(-1), residual, packed,
                      self.threshold)

    def decode_sum(self, packed_rows, out):
        """``out`` = the sum, in row order, of the values each row of codes stands for."""
        flat = out.reshape(-1)
        flat[:] = 0
        for row in packed_rows:
            unpack_add(row, flat, self.threshold)
