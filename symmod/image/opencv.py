"""The OpenCV calls MXNet makes on images, re-implemented on Pillow and numpy.

One place decodes and resizes images for ``mx.image``, ``mx.io.ImageRecordIter``
and the gluon vision datasets and transforms (OpenCV itself is not used):

- decoding gives uint8 ``(h, w, c)`` arrays; grey images use the weights the
  decoder behind ``cv2.imdecode`` applies (libpng's for PNG, libjpeg's luma
  plane for JPEG, ``cv::cvtColor``'s otherwise);
- resizing follows ``cv2.resize``: nearest (0) takes ``floor(x * scale)``,
  bilinear (1) mixes the two nearest source pixels with OpenCV's 11-bit fixed
  point for uint8 (and its area filter for an exact halving), float32 otherwise;
  bicubic (2) uses OpenCV's A = -0.75 kernel with the edge pixels repeated, 11-bit
  integer weights for uint8 (the rows mixed as its SIMD code does: float32, rounded
  to nearest even; the last bytes of a row by its integer code).

Images are bounded before anything is allocated: a decoded image and a resize target
may have at most :func:`get_max_image_pixels` pixels (Pillow's bomb limit by default), so
a small file cannot ask for gigabytes; resizing and grey conversion work in bands of
rows, so their temporaries stay a small fraction of the output.

This module imports nothing from ``symmod.io`` or ``symmod.gluon``: both use it.
"""
import io
import struct

import numpy as np

from ..base import MXNetError

__all__ = ['open_image', 'gray_pixels', 'decode', 'resize', 'get_max_image_pixels',
           'set_max_image_pixels']

_COEF_SCALE = 1 << 11     # OpenCV's fixed-point weights for 8-bit bilinear resizing
_BAND = 1 << 16           # elements per band of rows in resize and grey conversion
_LIMIT = [89478485]       # Pillow's Image.MAX_IMAGE_PIXELS (decompression-bomb warning)


def get_max_image_pixels():
    """The most pixels a decoded image or a resize target may have."""
    return _LIMIT[0]


def set_max_image_pixels(pixels):
    """Set the most pixels a decoded image or a resize target may have.

    Parameters
    ----------
    pixels : int
        The new limit (default 89,478,485, Pillow's ``Image.MAX_IMAGE_PIXELS``).

    Returns
    -------
    int
        The previous limit.
    """
    if isinstance(pixels, bool) or not isinstance(pixels, int) or pixels < 1:
        raise MXNetError('set_max_image_pixels: expected a positive int, found %r' % (pixels,))
    previous, _LIMIT[0] = _LIMIT[0], pixels
    return previous


def _check_pixels(width, height, what):
    if width * height > _LIMIT[0]:
        raise MXNetError('%s too large (%d x %d, limit %d pixels; see '
                         'mx.image.set_max_image_pixels)' % (what, width, height, _LIMIT[0]))


def _read_header(raw):
    """A Pillow image for ``raw`` with its header read and nothing decoded.

    The format plugins are called directly, as ``Image.open`` does, but without Pillow's
    own decompression-bomb check, so that :func:`_check_pixels` reports the size.
    """
    from PIL import Image
    stream = io.BytesIO(raw)
    prefix = stream.read(16)
    Image.preinit()
    for attempt in range(2):
        for fmt in Image.ID:
            factory, accept = Image.OPEN[fmt]
            result = not accept or accept(prefix)
            if not result or isinstance(result, str):
                continue
            stream.seek(0)
            try:
                return factory(stream, '')
            except (SyntaxError, IndexError, TypeError, struct.error):
                continue
        if attempt == 0:
            Image.init()            # the less common plugins
    raise OSError('cannot identify image file')


def open_image(raw, gray=False):
    """Open and load encoded image bytes with Pillow.

    ``gray`` asks a JPEG decoder for its luma plane, as libjpeg hands it to
    OpenCV for a grey read. Pillow's own exception propagates for bad data.
    """
    img = _read_header(raw)
    _check_pixels(img.size[0], img.size[1], 'image')
    if gray and img.format == 'JPEG':
        img.draft('L', img.size)
    img.load()
    return img


def gray_pixels(img):
    """uint8 ``(h, w, 1)`` grey pixels of a Pillow image opened with ``gray=True``."""
    if img.mode == 'L':
        return np.asarray(img)[:, :, None]
    rgb = np.asarray(img.convert('RGB'))
    if img.format == 'PNG':
        # libpng's png_set_rgb_to_gray(0.299, 0.587): 15-bit weights, truncated
        weights, bias, shift = (9797, 19234, 3737), 0, 15
    else:
        # cv::cvtColor(BGR2GRAY): 14-bit weights, rounded
        weights, bias, shift = (4899, 9617, 1868), 8192, 14
    gray = np.empty(rgb.shape[:2] + (1,), dtype=np.uint8)
    for top in range(0, rgb.shape[0], max(1, _BAND // max(1, rgb.shape[1]))):
        band = rgb[top:top + max(1, _BAND // max(1, rgb.shape[1]))].astype(np.int32)
        gray[top:top + band.shape[0], :, 0] = (
            band[..., 0] * weights[0] + band[..., 1] * weights[1] + band[..., 2] * weights[2]
            + bias) >> shift
    return gray


def decode(raw, flag=1, to_rgb=True):
    """Decode image bytes as ``cv2.imdecode`` does for MXNet's ``imdecode``.

    Parameters
    ----------
    raw : bytes
        The encoded image.
    flag : int, default 1
        Non-zero for a three-channel colour image, 0 for grey ``(h, w, 1)``.
    to_rgb : bool, default True
        RGB channel order; False keeps OpenCV's BGR.

    Returns
    -------
    numpy.ndarray
        uint8 ``(height, width, channels)``.
    """
    try:
        img = open_image(raw, gray=not flag)
    except MXNetError:
        raise
    except Exception:   # Pillow raises many types for bad data
        raise MXNetError('Decoding failed. Invalid image file.') from None
    if not flag:
        return gray_pixels(img)
    rgb = np.asarray(img.convert('RGB'))
    return rgb if to_rgb else np.ascontiguousarray(rgb[:, :, ::-1])


def _linear_taps(src_size, dst_size, clamp_weight):
    """Source indices and float32 weights of OpenCV's bilinear resize along one axis."""
    pos = ((np.arange(dst_size) + 0.5) * (src_size / dst_size) - 0.5).astype(np.float32)
    low = np.floor(pos).astype(np.int64)
    frac = pos - low.astype(np.float32)
    if clamp_weight:
        # columns: outside the image OpenCV takes the edge pixel with weight 1;
        # rows keep their weights and only the row index is clamped
        frac[low < 0] = 0
        frac[low >= src_size - 1] = 0
    return np.clip(low, 0, src_size - 1), np.clip(low + 1, 0, src_size - 1), frac


def _resize_linear(img, height, width):
    src_h, src_w = img.shape[:2]
    channels = img.shape[2:]
    out = np.empty((height, width) + channels, dtype=img.dtype)
    pix = img[:, :, None] if img.ndim == 2 else img
    dst = out[:, :, None] if img.ndim == 2 else out
    band = max(1, _BAND // max(1, width * pix.shape[2]))
    if img.dtype == np.uint8 and (src_h, src_w) == (2 * height, 2 * width):
        # OpenCV switches to its area filter for an exact halving
        for top in range(0, height, band):
            acc = pix[2 * top:2 * (top + band)].astype(np.int32)
            acc = acc[0::2, 0::2] + acc[0::2, 1::2] + acc[1::2, 0::2] + acc[1::2, 1::2]
            dst[top:top + band] = (acc + 2) >> 2
        return out
    left, right, fx = _linear_taps(src_w, width, True)
    top_rows, bottom_rows, fy = _linear_taps(src_h, height, False)
    if img.dtype == np.uint8:
        # 11-bit weights, rows mixed as OpenCV's vectorised kernel does
        # (drop 4 bits, 16-bit high product, round the sum by 2 bits)
        wx1 = np.round(fx * _COEF_SCALE).astype(np.int32)[None, :, None]
        wx0 = np.round((np.float32(1) - fx) * _COEF_SCALE).astype(np.int32)[None, :, None]
        wy1 = np.round(fy * _COEF_SCALE).astype(np.int32)[:, None, None]
        wy0 = np.round((np.float32(1) - fy) * _COEF_SCALE).astype(np.int32)[:, None, None]
    else:
        fx, fy = fx[None, :, None], fy[:, None, None]
    # one band of output rows at a time, over only the source rows that band reads
    for start in range(0, height, band):
        stop = min(height, start + band)
        needed = np.union1d(top_rows[start:stop], bottom_rows[start:stop])
        up_at = np.searchsorted(needed, top_rows[start:stop])
        down_at = np.searchsorted(needed, bottom_rows[start:stop])
        src = pix[needed]
        if img.dtype == np.uint8:
            src = src.astype(np.int32)
            rows = src[:, left] * wx0 + src[:, right] * wx1
            up, down = rows[up_at], rows[down_at]
            mixed = ((((up >> 4) * wy0[start:stop]) >> 16)
                     + (((down >> 4) * wy1[start:stop]) >> 16) + 2) >> 2
            dst[start:stop] = np.clip(mixed, 0, 255)
        else:
            src = src.astype(np.float32)
            rows = src[:, left] * (1 - fx) + src[:, right] * fx
            up, down = rows[up_at], rows[down_at]
            dst[start:stop] = up * (1 - fy[start:stop]) + down * fy[start:stop]
    return out


def _cubic_coeffs(frac):
    """OpenCV's interpolateCubic (A = -0.75) for float32 fractions: (n, 4) weights of
    the pixels at offsets -1, 0, 1, 2."""
    a = np.float32(-0.75)
    one = np.float32(1)
    x = frac.astype(np.float32)
    c0 = ((a * (x + one) - np.float32(5) * a) * (x + one) + np.float32(8) * a) * (x + one) \
        - np.float32(4) * a
    c1 = ((a + np.float32(2)) * x - (a + np.float32(3))) * x * x + one
    c2 = ((a + np.float32(2)) * (one - x) - (a + np.float32(3))) * (one - x) * (one - x) + one
    c3 = one - c0 - c1 - c2
    return np.stack([c0, c1, c2, c3], axis=1)


def _cubic_taps(src_size, dst_size):
    """Source indices (n, 4), clamped to the image as OpenCV's border, and float32
    weights (n, 4) of a bicubic resize along one axis."""
    pos = ((np.arange(dst_size) + 0.5) * (src_size / dst_size) - 0.5).astype(np.float32)
    low = np.floor(pos).astype(np.int64)
    weights = _cubic_coeffs(pos - low.astype(np.float32))
    taps = np.clip(low[:, None] + np.arange(-1, 3)[None, :], 0, src_size - 1)
    return taps, weights


# OpenCV's SIMD vertical pass for 8-bit results handles this many bytes at a time (8 in
# MXNet 1.9.1's build: its results match no other width); the remainder of a row goes
# through its (integer) scalar code
_U8_LANES = 8


def _resize_cubic(img, height, width):
    src_h, src_w = img.shape[:2]
    cols, wx = _cubic_taps(src_w, width)
    rows, wy = _cubic_taps(src_h, height)
    pix = img[:, :, None] if img.ndim == 2 else img
    out = np.empty((height, width, pix.shape[2]), dtype=img.dtype)
    row_len = width * pix.shape[2]
    band = max(1, _BAND // max(1, row_len))
    if img.dtype == np.uint8:
        # 11-bit integer weights; columns summed exactly in int32
        ax = np.rint(wx * _COEF_SCALE).astype(np.int32)
        by = np.rint(wy * _COEF_SCALE).astype(np.int32)
        # vector part: float32 products with beta / 2048^2, rounded to nearest even;
        # the last bytes of a row (past whole SIMD groups) by the integer code
        beta = by.astype(np.float32) * np.float32(1.0 / (_COEF_SCALE * _COEF_SCALE))
        tail = row_len - (row_len % _U8_LANES) if row_len >= _U8_LANES else 0
    else:
        work = np.float64 if img.dtype == np.float64 else np.float32
        wxw, wyw = wx.astype(work), wy.astype(work)
    # one band of output rows at a time, over only the source rows that band reads
    for start in range(0, height, band):
        stop = min(height, start + band)
        needed = np.unique(rows[start:stop])
        at = np.searchsorted(needed, rows[start:stop])             # (band, 4)
        if img.dtype == np.uint8:
            src = pix[needed].astype(np.int32)
            horiz = np.einsum('hwkc,wk->hwc', src[:, cols], ax)     # (needed, width, c)
            flat = horiz[at].reshape(stop - start, 4, row_len)
            acc = flat[:, 0].astype(np.float32) * beta[start:stop, 0:1]
            for k in range(1, 4):
                acc = acc + flat[:, k].astype(np.float32) * beta[start:stop, k:k + 1]
            mixed = np.rint(acc)
            if tail < row_len:
                exact = (flat[:, :, tail:]
                         * by[start:stop, :, None].astype(np.int64)).sum(axis=1)
                mixed[:, tail:] = (exact + (1 << 21)) >> 22
            out[start:stop] = np.clip(mixed, 0, 255).astype(np.uint8).reshape(
                stop - start, width, -1)
        else:
            src = pix[needed].astype(work)
            horiz = src[:, cols[:, 0]] * wxw[None, :, 0, None]
            for k in range(1, 4):
                horiz = horiz + src[:, cols[:, k]] * wxw[None, :, k, None]
            mixed = horiz[at[:, 0]] * wyw[start:stop, 0, None, None]
            for k in range(1, 4):
                mixed = mixed + horiz[at[:, k]] * wyw[start:stop, k, None, None]
            out[start:stop] = mixed
    return out.reshape((height, width) + img.shape[2:])


def resize(img, width, height, interp=1):
    """Resize an ``(h, w)`` or ``(h, w, c)`` numpy image as ``cv2.resize`` does.

    Parameters
    ----------
    img : numpy.ndarray
        The image (uint8 or float).
    width, height : int
        The output size.
    interp : int, default 1
        0 nearest neighbour, 1 bilinear, 2 bicubic (OpenCV's codes).

    Returns
    -------
    numpy.ndarray
        A new ``(height, width[, c])`` array of the same type.
    """
    if width <= 0 or height <= 0:
        raise MXNetError('resize: the output size must be positive, found %dx%d (w x h)'
                         % (width, height))
    _check_pixels(width, height, 'resize target')
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
    if interp == 2:
        return _resize_cubic(img, height, width)
    raise MXNetError('resize: interpolation %r is not available in symmod; use 0 (nearest), '
                     '1 (bilinear) or 2 (bicubic)' % (interp,))
