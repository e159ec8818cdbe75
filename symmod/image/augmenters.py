"""Image augmenters: callable objects that transform one ``(h, w, c)`` NDArray.

``CreateAugmenter`` builds MXNet's standard list (resize, crop, mirror, cast,
colour jitter, PCA lighting noise, random gray, normalisation). Random choices
come from Python's ``random`` module (and ``numpy.random`` for the lighting
noise), as in MXNet, so the same seeds give MXNet's augmentations.
"""
import json
import random
import warnings

import numpy as np

from .. import ndarray as nd
from .image import (imresize, resize_short, random_crop, center_crop, random_size_crop,
                    color_normalize, _get_interp_method)

__all__ = ['Augmenter', 'SequentialAug', 'ResizeAug', 'ForceResizeAug', 'RandomCropAug',
           'RandomSizedCropAug', 'CenterCropAug', 'RandomOrderAug', 'BrightnessJitterAug',
           'ContrastJitterAug', 'SaturationJitterAug', 'HueJitterAug', 'ColorJitterAug',
           'LightingAug', 'ColorNormalizeAug', 'RandomGrayAug', 'HorizontalFlipAug',
           'CastAug', 'CreateAugmenter']

# ITU-R 601 luma weights (RGB), used by the contrast and saturation jitters
_LUMA = [[[0.299, 0.587, 0.114]]]


class Augmenter:
    """Base class of the image augmenters.

    Parameters
    ----------
    **kwargs
        The augmenter's parameters, kept for :meth:`dumps` (arrays become lists).
    """

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        for key, value in self._kwargs.items():
            if isinstance(value, nd.NDArray):
                value = value.asnumpy()
            if isinstance(value, np.ndarray):
                self._kwargs[key] = value.tolist()

    def dumps(self):
        """The augmenter as a JSON string: ``["<class name in lower case>", {params}]``.

        Returns
        -------
        str
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src):
        """Transform ``src`` (an ``(h, w, c)`` NDArray) and return the result."""
        raise TypeError('%s is the abstract Augmenter base class; use a subclass that '
                        'defines __call__' % type(self).__name__)


class SequentialAug(Augmenter):
    """Apply a list of augmenters in order.

    Parameters
    ----------
    ts : list of Augmenter

    Examples
    --------
    >>> aug = mx.image.SequentialAug([mx.image.CenterCropAug((4, 4)), mx.image.CastAug()])
    >>> aug(mx.nd.zeros((6, 6, 3), dtype='uint8')).dtype
    <class 'numpy.float32'>
    """

    def __init__(self, ts):
        super(SequentialAug, self).__init__()
        self.ts = ts

    def dumps(self):
        """``[name, [each augmenter's dumps()]]`` (a list, as in MXNet)."""
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class ResizeAug(Augmenter):
    """Resize the shorter edge to ``size`` (see :func:`resize_short`).

    Parameters
    ----------
    size : int
    interp : int, optional, default 2
    """

    def __init__(self, size, interp=2):
        super(ResizeAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resize to exactly ``size`` = ``(width, height)``, ignoring the aspect ratio.

    Parameters
    ----------
    size : tuple of int
    interp : int, optional, default 2
    """

    def __init__(self, size, interp=2):
        super(ForceResizeAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=_get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """Crop ``size`` = ``(width, height)`` at a random place (see :func:`random_crop`).

    Parameters
    ----------
    size : tuple of int
    interp : int, optional, default 2
    """

    def __init__(self, size, interp=2):
        super(RandomCropAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Crop a random area and aspect ratio, resized to ``size`` (see :func:`random_size_crop`).

    Parameters
    ----------
    size : tuple of int
        ``(width, height)`` of the result.
    area : float or tuple of float
        Range of the area fraction (a float means ``(area, 1.0)``).
    ratio : tuple of float
        Range of the aspect ratio.
    interp : int, optional, default 2
    """

    def __init__(self, size, area, ratio, interp=2, **kwargs):
        super(RandomSizedCropAug, self).__init__(size=size, area=area, ratio=ratio,
                                                 interp=interp)
        self.size = size
        if 'min_area' in kwargs:
            warnings.warn('`min_area` is deprecated. Please use `area` instead.',
                          DeprecationWarning)
            self.area = kwargs.pop('min_area')
        else:
            self.area = area
        self.ratio = ratio
        self.interp = interp
        assert not kwargs, "unexpected keyword arguments for `RandomSizedCropAug`."

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """Crop ``size`` = ``(width, height)`` from the centre (see :func:`center_crop`).

    Parameters
    ----------
    size : tuple of int
    interp : int, optional, default 2
    """

    def __init__(self, size, interp=2):
        super(CenterCropAug, self).__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(Augmenter):
    """Apply a list of augmenters in a random order (the list is shuffled in place).

    Parameters
    ----------
    ts : list of Augmenter
    """

    def __init__(self, ts):
        super(RandomOrderAug, self).__init__()
        self.ts = ts

    def dumps(self):
        """``[name, [each augmenter's dumps()]]`` (a list, as in MXNet)."""
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]

    def __call__(self, src):
        random.shuffle(self.ts)
        for aug in self.ts:
            src = aug(src)
        return src


class BrightnessJitterAug(Augmenter):
    """Scale a float image by ``1 + U(-brightness, brightness)``, in place.

    Parameters
    ----------
    brightness : float
    """

    def __init__(self, brightness):
        super(BrightnessJitterAug, self).__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


class ContrastJitterAug(Augmenter):
    """Blend a float image with its mean luma: ``alpha * src + (1 - alpha) * mean gray``,
    ``alpha = 1 + U(-contrast, contrast)``; in place.

    Parameters
    ----------
    contrast : float
    """

    def __init__(self, contrast):
        super(ContrastJitterAug, self).__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array(_LUMA)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        gray = src * self.coef
        gray = (3.0 * (1.0 - alpha) / gray.size) * nd.sum(gray)
        src *= alpha
        src += gray
        return src


class SaturationJitterAug(Augmenter):
    """Blend every pixel with its own luma: ``alpha * src + (1 - alpha) * gray``,
    ``alpha = 1 + U(-saturation, saturation)``; in place.

    Parameters
    ----------
    saturation : float
    """

    def __init__(self, saturation):
        super(SaturationJitterAug, self).__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array(_LUMA)

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        gray = src * self.coef
        gray = nd.sum(gray, axis=2, keepdims=True)
        gray *= (1.0 - alpha)
        src *= alpha
        src += gray
        return src


class HueJitterAug(Augmenter):
    """Rotate the hue by ``U(-hue, hue) * 180`` degrees in YIQ space.

    Parameters
    ----------
    hue : float
    """

    def __init__(self, hue):
        super(HueJitterAug, self).__init__(hue=hue)
        self.hue = hue
        self.tyiq = np.array([[0.299, 0.587, 0.114],
                              [0.596, -0.274, -0.321],
                              [0.211, -0.523, 0.311]])
        self.ityiq = np.array([[1.0, 0.956, 0.621],
                               [1.0, -0.272, -0.647],
                               [1.0, -1.107, 1.705]])

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        u = np.cos(alpha * np.pi)
        w = np.sin(alpha * np.pi)
        rotation = np.array([[1.0, 0.0, 0.0],
                             [0.0, u, -w],
                             [0.0, w, u]])
        t = np.dot(np.dot(self.ityiq, rotation), self.tyiq).T
        return nd.dot(src, nd.array(t))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter (those > 0) in a random order.

    Parameters
    ----------
    brightness, contrast, saturation : float

    Examples
    --------
    >>> aug = mx.image.ColorJitterAug(0.1, 0.1, 0)
    >>> len(aug.ts)
    2
    """

    def __init__(self, brightness, contrast, saturation):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super(ColorJitterAug, self).__init__(ts)


class LightingAug(Augmenter):
    """AlexNet-style PCA lighting noise: add ``eigvec @ (alpha * eigval)`` with
    ``alpha ~ N(0, alphastd)`` (``numpy.random``); in place.

    Parameters
    ----------
    alphastd : float
    eigval : numpy.ndarray, shape (3,)
    eigvec : numpy.ndarray, shape (3, 3)
    """

    def __init__(self, alphastd, eigval, eigvec):
        super(LightingAug, self).__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += nd.array(rgb)
        return src


class ColorNormalizeAug(Augmenter):
    """Subtract ``mean`` and divide by ``std`` (see :func:`color_normalize`).

    Parameters
    ----------
    mean : NDArray, array-like or None
    std : NDArray, array-like or None
    """

    def __init__(self, mean, std):
        super(ColorNormalizeAug, self).__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, nd.NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, nd.NDArray) else nd.array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, replace every channel by the gray value
    ``0.21 R + 0.72 G + 0.07 B``.

    Parameters
    ----------
    p : float
    """

    def __init__(self, p):
        super(RandomGrayAug, self).__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21, 0.21, 0.21],
                             [0.72, 0.72, 0.72],
                             [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.dot(src, self.mat)
        return src


class HorizontalFlipAug(Augmenter):
    """Mirror the image left-right with probability ``p``.

    Parameters
    ----------
    p : float
    """

    def __init__(self, p):
        super(HorizontalFlipAug, self).__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """Cast the image to ``typ``.

    Parameters
    ----------
    typ : str, optional, default 'float32'
    """

    def __init__(self, typ='float32'):
        super(CastAug, self).__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False, rand_mirror=False,
                    mean=None, std=None, brightness=0, contrast=0, saturation=0, hue=0,
                    pca_noise=0, rand_gray=0, inter_method=2):
    """MXNet's standard augmenter list for images of ``data_shape``.

    In order: ``ResizeAug`` (if ``resize > 0``); a crop to ``data_shape``
    (``RandomSizedCropAug`` with area 0.08-1 and ratio 3/4-4/3 if
    ``rand_resize``, ``RandomCropAug`` if ``rand_crop``, else
    ``CenterCropAug``); ``HorizontalFlipAug(0.5)`` if ``rand_mirror``;
    ``CastAug``; ``ColorJitterAug``, ``HueJitterAug``, ``LightingAug`` (ImageNet
    eigen-decomposition), ``RandomGrayAug`` when their parameter is set; and
    ``ColorNormalizeAug`` when ``mean`` or ``std`` is given (True means the
    ImageNet values).

    Parameters
    ----------
    data_shape : tuple of int
        ``(channels, height, width)`` of the output.
    resize : int, optional
        Shorter-edge size to resize to first (0: no resize).
    rand_crop, rand_resize, rand_mirror : bool, optional
        Random crop position, random area/ratio crop (needs ``rand_crop``),
        random left-right flip.
    mean, std : numpy.ndarray, NDArray or True, optional
        Normalisation, 1 or 3 values.
    brightness, contrast, saturation, hue, pca_noise, rand_gray : float, optional
        Strengths of the colour augmentations (0: off).
    inter_method : int, optional, default 2
        Interpolation for the resizes (symmod implements 0 and 1).

    Returns
    -------
    list of Augmenter

    Examples
    --------
    >>> augs = mx.image.CreateAugmenter((3, 224, 224), resize=256, rand_mirror=True)
    >>> [type(a).__name__ for a in augs]
    ['ResizeAug', 'CenterCropAug', 'HorizontalFlipAug', 'CastAug']
    """
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))

    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        assert rand_crop
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))

    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))

    auglist.append(CastAug())

    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array([[-0.5675, 0.7192, 0.4009],
                           [-0.5808, -0.0045, -0.8140],
                           [-0.5836, -0.6948, 0.4203]])
        auglist.append(LightingAug(pca_noise, eigval, eigvec))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))

    if mean is True:
        mean = nd.array([123.68, 116.28, 103.53])
    elif mean is not None:
        assert isinstance(mean, (np.ndarray, nd.NDArray)) and mean.shape[0] in [1, 3]
    if std is True:
        std = nd.array([58.395, 57.12, 57.375])
    elif std is not None:
        assert isinstance(std, (np.ndarray, nd.NDArray)) and std.shape[0] in [1, 3]
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist
