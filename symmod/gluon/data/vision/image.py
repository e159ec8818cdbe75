"""numpy image helpers for the vision datasets and transforms.

Images are ``(height, width, channels)`` arrays in RGB order, as ``mx.image`` hands
them out. Resizing follows OpenCV's ``cv2.resize`` (which MXNet calls): pixel centres
at +0.5, nearest (0) takes ``floor(x * scale)``, bilinear (1) mixes the two nearest
source pixels on each axis with the edges clamped; uint8 images use OpenCV's 11-bit
fixed-point arithmetic: on the test images most sizes agree with MXNet exactly, the rest
to within one grey level (on about 2% of the pixels). Other
OpenCV interpolations (area, cubic, Lanczos) are not available.
"""
import os

import numpy as np

from ....base import MXNetError
from .... import recordio

__all__ = ['resize', 'decode', 'read_image', 'size_after_resize']

_COEF_BITS = 11
_COEF_SCALE = 1 << _COEF_BITS


def _linear_taps(src_size, dst_size):
    """Left source index and right-neighbour weight for each output position."""
    scale = src_size / dst_size
    pos = ((np.arange(dst_size) + 0.5) * scale - 0.5).astype(np.float32)
    left = np.floor(pos).astype(np.int64)
    frac = pos - left
    frac[left < 0] = 0
    left[left < 0] = 0
    edge = left >= src_size - 1
    frac[edge] = 0
    left[edge] = src_size - 1
    right = np.minimum(left + 1, src_size - 1)
    return left, right, frac


def _resize_linear(img, height, width):
    src_h, src_w = img.shape[:2]
    top, bottom, fy = _linear_taps(src_h, height)
    left, right, fx = _linear_taps(src_w, width)
    if img.dtype == np.uint8:
        # OpenCV's fixed point: 11-bit weights, rows mixed as its vectorised kernel does
        # (drop 4 bits, 16-bit high product, round the sum by 2 bits)
        wx1 = np.rint(fx * _COEF_SCALE).astype(np.int64)
        wy1 = np.rint(fy * _COEF_SCALE).astype(np.int64)
        wx0, wy0 = _COEF_SCALE - wx1, _COEF_SCALE - wy1
        src = img.astype(np.int64)
        rows = src[:, left] * wx0[:, None] + src[:, right] * wx1[:, None]
        upper = ((rows[top] >> 4) * wy0[:, None, None]) >> 16
        lower = ((rows[bottom] >> 4) * wy1[:, None, None]) >> 16
        return np.clip((upper + lower + 2) >> 2, 0, 255).astype(np.uint8)
    src = img.astype(np.float32)
    fx, fy = fx[:, None], fy[:, None, None]
    rows = src[:, left] * (1 - fx) + src[:, right] * fx
    out = rows[top] * (1 - fy) + rows[bottom] * fy
    return out.astype(img.dtype)


def resize(img, width, height, interp=1):
    """Resize an ``(h, w, c)`` numpy image to ``(height, width, c)``.

    Parameters
    ----------
    img : numpy.ndarray
        The image (uint8 or float).
    width, height : int
        The output size.
    interp : int, default 1
        0 nearest neighbour, 1 bilinear (OpenCV's codes).

    Returns
    -------
    numpy.ndarray
    """
    if width <= 0 or height <= 0:
        raise MXNetError('resize: the output size must be positive, found %dx%d (w x h)'
                         % (width, height))
    src_h, src_w = img.shape[:2]
    if (src_h, src_w) == (height, width):
        return img.copy()
    if interp == 0:
        rows = np.minimum(np.floor(np.arange(height) * (src_h / height)).astype(np.int64),
                          src_h - 1)
        cols = np.minimum(np.floor(np.arange(width) * (src_w / width)).astype(np.int64),
                          src_w - 1)
        return img[rows][:, cols]
    if interp == 1:
        return _resize_linear(img, height, width)
    raise MXNetError('resize: interpolation %r is not available in symmod; use 0 (nearest) '
                     'or 1 (bilinear)' % (interp,))


def size_after_resize(src_h, src_w, size, keep_ratio):
    """``(height, width)`` that MXNet's image resize operator produces."""
    if isinstance(size, (tuple, list)):
        if len(size) == 1:
            size = size[0]
        elif len(size) == 2:
            if size[0] <= 0 or size[1] <= 0:
                raise MXNetError('Resize: width and height must be greater than 0, but got '
                                 '%s' % (tuple(size),))
            return int(size[1]), int(size[0])
        else:
            raise MXNetError('Resize: size must have 1 or 2 elements, but got %s'
                             % (tuple(size),))
    size = int(size)
    if size <= 0:
        raise MXNetError('Resize: size should be greater than 0, but got %d' % size)
    if not keep_ratio:
        return size, size
    if src_h > src_w:
        return src_h * size // src_w, size
    return size, src_w * size // src_h


def decode(buf, flag=1, to_rgb=True):
    """Decode image bytes like ``mx.image.imdecode``: ``(h, w, 3)`` colour or
    ``(h, w, 1)`` grey (``flag=0``), uint8, RGB unless ``to_rgb`` is False."""
    img = recordio.decode_image(buf, 1 if flag else 0)
    if img is None:
        raise MXNetError('imdecode: the buffer is not a readable image')
    if not flag:
        return img[:, :, None]
    return np.ascontiguousarray(img[:, :, ::-1]) if to_rgb else img


def read_image(path, flag=1):
    """Read and decode an image file like ``mx.image.imread``."""
    if not os.path.isfile(path):
        raise MXNetError('imread: cannot find the image file "%s"' % path)
    with open(path, 'rb') as f:
        return decode(f.read(), flag)
