"""``mx.image`` functions: decode, resize, pad, crop and normalise single images.

Images are ``(height, width, channels)`` NDArrays, uint8 after decoding, in RGB
order unless asked otherwise, as MXNet's OpenCV-based functions give them.
Decoding and resizing are :mod:`symmod.image.opencv`'s re-implementations of
``cv2.imdecode`` and of OpenCV's nearest (0) and bilinear (1) filters; OpenCV's
bicubic (2), area (3) and Lanczos (4) filters are not available and raise an
MXNetError.

Random crops draw from Python's ``random`` module, as MXNet does, so seeding it
with ``random.seed`` repeats MXNet's crops.
"""
import random
import warnings

import numpy as np

from ..base import MXNetError, numeric_types
from .. import ndarray as nd
from . import opencv

__all__ = ['imread', 'imdecode', 'imresize', 'copyMakeBorder', 'scale_down', 'resize_short',
           'fixed_crop', 'random_crop', 'center_crop', 'color_normalize', 'random_size_crop']

# OpenCV's border codes (what cv::copyMakeBorder does, not MXNet's docstring) -> numpy.pad
_BORDER_MODES = {0: 'constant', 1: 'edge', 2: 'symmetric', 3: 'wrap', 4: 'reflect'}
_INTERP_NAMES = {3: 'area', 4: 'Lanczos'}


def _to_numpy(src, what):
    if isinstance(src, nd.NDArray):
        return src.asnumpy()
    if isinstance(src, np.ndarray):
        return src
    raise TypeError('%s expects an NDArray image, found %s' % (what, type(src).__name__))


def _output(result, out):
    """Wrap ``result`` in an NDArray, or write it into ``out``."""
    if out is None:
        return nd.array(result, dtype=result.dtype)
    if tuple(out.shape) != result.shape:
        raise MXNetError('the out array has shape %s but the result has shape %s'
                         % (tuple(out.shape), result.shape))
    out[:] = result
    return out


def _decode_bytes(raw, flag, to_rgb):
    """uint8 ``(h, w, 3)`` (RGB or BGR) or ``(h, w, 1)`` from encoded image bytes."""
    if flag < 0:
        raise MXNetError('imdecode: flag must be 0 (grayscale) or 1 (colour), found %d' % flag)
    if not raw:
        raise MXNetError('imdecode: input cannot be an empty buffer')
    return opencv.decode(raw, flag, to_rgb)


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """Decode an encoded image (JPEG, PNG, ...) to an NDArray.

    Parameters
    ----------
    buf : bytes, bytearray, numpy.ndarray or NDArray
        The encoded image (arrays must hold uint8 bytes).
    flag : int, optional, default 1
        1 for a three-channel colour image, 0 for grayscale ``(h, w, 1)``.
    to_rgb : bool, optional, default True
        Channels in RGB order (MXNet's default); False keeps OpenCV's BGR.
    out : NDArray, optional
        Array to write the image into.

    Returns
    -------
    NDArray
        uint8 image of shape ``(height, width, channels)``.

    Examples
    --------
    >>> with open('flower.png', 'rb') as f:
    ...     image = mx.image.imdecode(f.read())
    >>> image
    <NDArray 224x224x3 @cpu(0)>
    """
    if isinstance(buf, nd.NDArray):
        if buf.dtype != np.uint8:
            raise MXNetError('imdecode: input needs to be a uint8 buffer, found %s'
                             % np.dtype(buf.dtype).name)
        raw = buf.asnumpy().tobytes()
    elif isinstance(buf, (bytes, bytearray, np.ndarray)):
        raw = np.frombuffer(buf, dtype=np.uint8).tobytes()
    else:
        raise ValueError('buf must be of type bytes, bytearray or numpy.ndarray,if you would '
                         'like to input type str, please convert to bytes')
    return _output(_decode_bytes(raw, int(flag), bool(to_rgb)), out)


def imread(filename, flag=1, to_rgb=True, out=None):
    """Read and decode an image file to an NDArray.

    Parameters
    ----------
    filename : str
        Path of the image file.
    flag : int, optional, default 1
        1 for colour output, 0 for grayscale.
    to_rgb : bool, optional, default True
        RGB order (True) or OpenCV's BGR (False).
    out : NDArray, optional
        Array to write the image into.

    Returns
    -------
    NDArray
        uint8 image ``(height, width, channels)``.

    Examples
    --------
    >>> mx.image.imread('flower.png', flag=0)
    <NDArray 224x224x1 @cpu(0)>
    """
    try:
        with open(filename, 'rb') as f:
            raw = f.read()
    except OSError as err:
        raise MXNetError("Imread: '%s' couldn't open file: %s" % (filename, err.strerror)) \
            from None
    return _output(_decode_bytes(raw, int(flag), bool(to_rgb)), out)


def imresize(src, w, h, interp=1, out=None):
    """Resize an image to ``w`` x ``h`` as OpenCV's ``cv2.resize`` does.

    Parameters
    ----------
    src : NDArray
        ``(height, width, channels)`` image, uint8, float32 or float64.
    w, h : int
        Width and height of the result (at least 1).
    interp : int, optional, default 1
        0 nearest neighbour, 1 bilinear. OpenCV's 2 (bicubic), 3 (area) and
        4 (Lanczos) are not available in symmod and raise an MXNetError.
    out : NDArray, optional
        Array to write the result into.

    Returns
    -------
    NDArray
        ``(h, w, channels)`` image of the same type.

    Examples
    --------
    >>> img = mx.nd.zeros((240, 320, 3), dtype='uint8')
    >>> mx.image.imresize(img, 160, 120).shape
    (120, 160, 3)
    """
    img = _to_numpy(src, 'imresize')
    if img.ndim != 3:
        raise MXNetError('imresize expects an image of shape (height, width, channels), '
                         'found shape %s' % (img.shape,))
    if int(w) < 1 or int(h) < 1:
        raise MXNetError('imresize: w and h must be at least 1, found w=%d h=%d' % (w, h))
    if interp not in (0, 1, 2):
        name = _INTERP_NAMES.get(interp)
        if name is None:
            raise MXNetError('imresize: unknown interpolation method %r' % (interp,))
        raise MXNetError('imresize: OpenCV\'s %s interpolation (interp=%d) is not available '
                         'in symmod; use 0 (nearest), 1 (bilinear) or 2 (bicubic)'
                         % (name, interp))
    w, h = int(w), int(h)
    if interp == 0 or img.dtype in (np.uint8, np.float32, np.float64):
        result = opencv.resize(img, w, h, interp)
    else:
        raise MXNetError('imresize supports uint8, float32 and float64 images, found %s'
                         % img.dtype)
    return _output(np.ascontiguousarray(result), out)


def copyMakeBorder(src, top, bot, left, right, type=0, value=0.0, values=(), out=None):
    # pylint: disable=redefined-builtin
    """Pad an image's borders as ``cv2.copyMakeBorder`` does.

    Parameters
    ----------
    src : NDArray
        ``(height, width, channels)`` image.
    top, bot, left, right : int
        Rows / columns added on each side.
    type : int, optional, default 0
        OpenCV's border codes: 0 constant, 1 replicate (``aaa|abc``), 2 reflect
        (``cba|abc``), 3 wrap (``abc|abc``), 4 reflect-101 (``cb|abc``).
        (MXNet's docstring lists them in another order; this is what it does.)
    value : float, optional
        Constant for the first three channels (deprecated in MXNet).
    values : tuple of float, optional
        Constant per channel (up to 4); overrides ``value``.
    out : NDArray, optional
        Array to write the result into.

    Returns
    -------
    NDArray
        ``(height + top + bot, width + left + right, channels)``.

    Examples
    --------
    >>> img = mx.nd.ones((4, 5, 3), dtype='uint8')
    >>> mx.image.copyMakeBorder(img, 1, 2, 3, 4, type=0).shape
    (7, 12, 3)
    """
    img = _to_numpy(src, 'copyMakeBorder')
    if img.ndim != 3:
        raise MXNetError('copyMakeBorder expects an image of shape (height, width, channels), '
                         'found shape %s' % (img.shape,))
    if type not in _BORDER_MODES:
        raise MXNetError('copyMakeBorder: border type must be 0-4, found %r' % (type,))
    if min(top, bot, left, right) < 0:
        raise MXNetError('copyMakeBorder: margins must not be negative, found %s'
                         % ((top, bot, left, right),))
    widths = ((top, bot), (left, right), (0, 0))
    if _BORDER_MODES[type] != 'constant':
        return _output(np.pad(img, widths, mode=_BORDER_MODES[type]), out)
    # OpenCV's colour: (value, value, value, 0) or the given values, missing ones 0
    colour = np.zeros(max(4, img.shape[2]))
    if len(values) > 0:
        colour[:min(len(values), 4)] = list(values)[:4]
    else:
        colour[:3] = value
    colour = colour[:img.shape[2]]
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        colour = np.clip(np.rint(colour), info.min, info.max)
    result = np.empty((img.shape[0] + top + bot, img.shape[1] + left + right, img.shape[2]),
                      dtype=img.dtype)
    result[...] = colour.astype(img.dtype)
    result[top:top + img.shape[0], left:left + img.shape[1]] = img
    return _output(result, out)


def scale_down(src_size, size):
    """Shrink a crop size ``(w, h)`` to fit in ``src_size``, keeping its aspect ratio.

    Parameters
    ----------
    src_size : tuple of int
        Image size ``(width, height)``.
    size : tuple of int
        Crop size ``(width, height)``.

    Returns
    -------
    tuple of int
        The crop size ``(width, height)`` that fits.

    Examples
    --------
    >>> mx.image.scale_down((640, 480), (720, 120))
    (640, 106)
    """
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def _get_interp_method(interp, sizes=()):
    """The OpenCV interpolation code for ``interp``: 9 picks one from the sizes
    ``(old_h, old_w, new_h, new_w)``, 10 a random one (Python's ``random``)."""
    if interp == 9:
        if not sizes:
            return 2
        assert len(sizes) == 4
        old_h, old_w, new_h, new_w = sizes
        if new_h > old_h and new_w > old_w:
            return 2
        if new_h < old_h and new_w < old_w:
            return 3
        return 1
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError('Unknown interp method %d' % interp)
    return interp


def resize_short(src, size, interp=2):
    """Resize so that the shorter edge is ``size``, keeping the aspect ratio.

    Parameters
    ----------
    src : NDArray
        ``(height, width, channels)`` image.
    size : int
        Length of the shorter edge after resizing.
    interp : int, optional, default 2
        Interpolation (see :func:`imresize`; 9 and 10 choose one).

    Returns
    -------
    NDArray
        The resized image.

    Examples
    --------
    >>> img = mx.nd.zeros((240, 320, 3), dtype='uint8')
    >>> mx.image.resize_short(img, 120, interp=1).shape
    (120, 160, 3)
    """
    h, w, _ = src.shape
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """Crop the ``w`` x ``h`` rectangle at ``(x0, y0)``, then resize it to ``size``.

    Parameters
    ----------
    src : NDArray
        ``(height, width, channels)`` image.
    x0, y0 : int
        Left and top edge of the crop.
    w, h : int
        Width and height of the crop.
    size : tuple of int, optional
        ``(width, height)`` to resize the crop to.
    interp : int, optional, default 2
        Interpolation of that resize (see :func:`imresize`).

    Returns
    -------
    NDArray
        The cropped image.

    Examples
    --------
    >>> img = mx.nd.zeros((240, 320, 3), dtype='uint8')
    >>> mx.image.fixed_crop(img, 10, 20, 100, 50).shape
    (50, 100, 3)
    """
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != size:
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def random_crop(src, size, interp=2):
    """Crop ``size`` = ``(width, height)`` at a random place (shrunk to fit first,
    then resized back to ``size``).

    Parameters
    ----------
    src : NDArray
        ``(height, width, channels)`` image.
    size : tuple of int
        ``(width, height)`` of the result.
    interp : int, optional, default 2
        Interpolation used when the image is smaller than ``size``.

    Returns
    -------
    NDArray
        The cropped image.
    tuple of int
        ``(x0, y0, width, height)`` of the crop in ``src``.

    Examples
    --------
    >>> img = mx.nd.zeros((240, 320, 3), dtype='uint8')
    >>> crop, (x0, y0, w, h) = mx.image.random_crop(img, (100, 100))
    >>> crop.shape
    (100, 100, 3)
    """
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = random.randint(0, w - new_w)
    y0 = random.randint(0, h - new_h)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """Crop ``size`` = ``(width, height)`` from the centre (shrunk to fit first,
    then resized back to ``size``).

    Parameters
    ----------
    src : NDArray
        ``(height, width, channels)`` image.
    size : tuple of int
        ``(width, height)`` of the result.
    interp : int, optional, default 2
        Interpolation used when the image is smaller than ``size``.

    Returns
    -------
    NDArray
        The cropped image.
    tuple of int
        ``(x0, y0, width, height)`` of the crop in ``src``.

    Examples
    --------
    >>> img = mx.nd.zeros((2321, 3482, 3), dtype='uint8')
    >>> crop, rect = mx.image.center_crop(img, (1000, 500))
    >>> rect
    (1241, 910, 1000, 500)
    """
    h, w, _ = src.shape
    new_w, new_h = scale_down((w, h), size)
    x0 = int((w - new_w) / 2)
    y0 = int((h - new_h) / 2)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def color_normalize(src, mean, std=None):
    """Subtract ``mean`` and divide by ``std``, in place.

    Parameters
    ----------
    src : NDArray
        Float image ``(height, width, channels)``; it is modified.
    mean : NDArray or None
        Per-channel mean (RGB).
    std : NDArray or None
        Per-channel standard deviation.

    Returns
    -------
    NDArray
        ``src``, normalised.

    Examples
    --------
    >>> img = mx.nd.ones((2, 2, 3)) * 128
    >>> mx.image.color_normalize(img, mx.nd.array([128, 0, 0]), mx.nd.array([1, 2, 4]))[0, 0]
    [ 0. 64. 32.]
    """
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src


def random_size_crop(src, size, area, ratio, interp=2, **kwargs):
    """Crop a random area and aspect ratio, then resize to ``size``.

    Up to 10 tries draw an area fraction uniformly in ``area`` and an aspect
    ratio log-uniformly in ``ratio``; when none fits, a centre crop is taken.

    Parameters
    ----------
    src : NDArray
        ``(height, width, channels)`` image.
    size : tuple of int
        ``(width, height)`` of the result.
    area : float or tuple of float
        Range of the crop's area as a fraction of the image (a float means
        ``(area, 1.0)``).
    ratio : tuple of float
        Range of the aspect ratio ``width / height``.
    interp : int, optional, default 2
        Interpolation of the final resize.

    Returns
    -------
    NDArray
        The cropped image.
    tuple of int
        ``(x0, y0, width, height)`` of the crop in ``src``.

    Examples
    --------
    >>> img = mx.nd.zeros((240, 320, 3), dtype='uint8')
    >>> crop, rect = mx.image.random_size_crop(img, (64, 64), 0.08, (3 / 4, 4 / 3), interp=1)
    >>> crop.shape
    (64, 64, 3)
    """
    h, w, _ = src.shape
    src_area = h * w
    if 'min_area' in kwargs:
        warnings.warn('`min_area` is deprecated. Please use `area` instead.',
                      DeprecationWarning)
        area = kwargs.pop('min_area')
    assert not kwargs, "unexpected keyword arguments for `random_size_crop`."
    if isinstance(area, numeric_types):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
            return out, (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)

