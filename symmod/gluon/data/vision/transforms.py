"""Image transforms as gluon Blocks: ``transforms.Compose([Resize(32), ToTensor(), ...])``.

The HybridBlocks (Cast, ToTensor, Normalize, Resize, CropResize, the random flips and
colour augmentations) are made of operators (``F.image.*``), so they also run inside a
hybridized graph; CenterCrop, RandomResizedCrop, Rotate, RandomRotation and RandomApply
are plain Blocks, as in MXNet.
"""
import random

import numpy as np

from ....base import numeric_types
from .... import image
from ...block import Block
from ...hybrid_block import HybridBlock
from ...nn import Sequential, HybridSequential

__all__ = ['Compose', 'Cast', 'ToTensor', 'Normalize', 'Resize', 'CropResize', 'CenterCrop',
           'RandomResizedCrop', 'RandomFlipLeftRight', 'RandomFlipTopBottom',
           'RandomBrightness', 'RandomContrast', 'RandomSaturation', 'RandomHue',
           'RandomColorJitter', 'RandomLighting', 'RandomApply',
           'Rotate', 'RandomRotation']


class Compose(Sequential):
    """Apply several transforms one after the other.

    Runs of two or more consecutive graph-capable HybridBlocks are wrapped in a
    hybridized ``HybridSequential``, as MXNet does.

    Parameters
    ----------
    transforms : list of Blocks

    Examples
    --------
    >>> transformer = transforms.Compose([transforms.Resize(300),
    ...                                   transforms.CenterCrop(256),
    ...                                   transforms.ToTensor()])
    >>> img = mx.nd.random.uniform(0, 255, (224, 224, 3)).astype('uint8')
    >>> transformer(img).shape
    (3, 256, 256)
    """

    def __init__(self, transforms):
        super().__init__()
        run = []
        for block in list(transforms) + [None]:
            if isinstance(block, HybridBlock):
                run.append(block)
                continue
            if len(run) == 1:
                self.add(run[0])
            elif len(run) > 1:
                graph = HybridSequential()
                for item in run:
                    graph.add(item)
                graph.hybridize()
                self.add(graph)
            run = []
            if block is not None:
                self.add(block)


class Cast(HybridBlock):
    """Cast the input to ``dtype``.

    Parameters
    ----------
    dtype : str or numpy.dtype, default 'float32'
    """

    def __init__(self, dtype='float32'):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, dtype=self._dtype)


class ToTensor(HybridBlock):
    """``(H, W, C)`` (or ``(N, H, W, C)``) image in [0, 255] to a float32 ``(C, H, W)``
    (or ``(N, C, H, W)``) tensor in [0, 1]: ``x / 255`` with the channel axis moved.

    Examples
    --------
    >>> img = mx.nd.array([[[0, 255]]], dtype='uint8')       # 1 x 1 pixel, 2 channels
    >>> transforms.ToTensor()(img).asnumpy().ravel().tolist()
    [0.0, 1.0]
    """

    def hybrid_forward(self, F, x):
        return F.image.to_tensor(x)


class Normalize(HybridBlock):
    """``(x[c] - mean[c]) / std[c]`` for each channel ``c`` of a ``(C, H, W)`` or
    ``(N, C, H, W)`` tensor; a single mean or std applies to every channel.

    Parameters
    ----------
    mean : float or tuple of float, default 0.0
    std : float or tuple of float, default 1.0

    Examples
    --------
    >>> x = mx.nd.ones((3, 1, 1))
    >>> transforms.Normalize((0, 1, 2), (1, 2, 4))(x).asnumpy().ravel().tolist()
    [1.0, 0.0, -0.25]
    """

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return F.image.normalize(x, self._mean, self._std)


class Resize(HybridBlock):
    """Resize an ``(H, W, C)`` image or an ``(N, H, W, C)`` batch with OpenCV's
    interpolation.

    Parameters
    ----------
    size : int or tuple of (W, H)
        The output size; an int is used for both sides unless ``keep_ratio``.
    keep_ratio : bool, default False
        With an int ``size``: resize the shorter side to ``size`` and keep the aspect
        ratio.
    interpolation : int, default 1
        0 nearest neighbour, 1 bilinear, 2 bicubic (OpenCV's codes).

    Examples
    --------
    >>> img = mx.nd.zeros((224, 224, 3), dtype='uint8')
    >>> transforms.Resize(size=(1000, 500))(img).shape
    (500, 1000, 3)
    """

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return F.image.resize(x, self._size, self._keep, self._interpolation)


class CropResize(HybridBlock):
    """Crop the ``width x height`` region at (``x``, ``y``) of an ``(H, W, C)`` image or
    ``(N, H, W, C)`` batch, then resize it to ``size`` when given.

    Parameters
    ----------
    x, y : int
        Left column and top row of the region.
    width, height : int
        Size of the region.
    size : int or tuple of (W, H), optional
        Size of the output.
    interpolation : int, optional
        OpenCV interpolation of the resize (0, 1 or 2; bilinear when None).

    Examples
    --------
    >>> img = mx.nd.zeros((10, 8, 3), dtype='uint8')
    >>> transforms.CropResize(1, 2, 4, 3, size=(8, 6))(img).shape
    (6, 8, 3)
    """

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x = x
        self._y = y
        self._width = width
        self._height = height
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            interp = 1 if self._interpolation is None else self._interpolation
            out = F.image.resize(out, self._size, False, interp)
        return out


def _size_pair(size):
    return (size, size) if isinstance(size, numeric_types) else tuple(size)


class CenterCrop(Block):
    """Crop the centre of an ``(H, W, C)`` image to ``size``; an image smaller than
    ``size`` is cropped to the right aspect ratio and upsampled
    (``mx.image.center_crop``).

    Parameters
    ----------
    size : int or tuple of (W, H)
    interpolation : int, default 1
        OpenCV interpolation (0, 1 or 2).

    Examples
    --------
    >>> img = mx.nd.zeros((2321, 3482, 3), dtype='uint8')
    >>> transforms.CenterCrop(size=(1000, 500))(img).shape
    (500, 1000, 3)
    """

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._args = (_size_pair(size), interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class RandomResizedCrop(Block):
    """Crop a random area (``scale`` of the image) with a random aspect ratio
    (``ratio``), then resize it to ``size`` (``mx.image.random_size_crop``: ten tries
    with Python's ``random``, then the centre crop).

    Parameters
    ----------
    size : int or tuple of (W, H)
    scale : tuple of two floats, default (0.08, 1.0)
    ratio : tuple of two floats, default (3/4, 4/3)
    interpolation : int, default 1
        OpenCV interpolation (0, 1 or 2).
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=1):
        super().__init__()
        self._args = (_size_pair(size), scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class RandomFlipLeftRight(HybridBlock):
    """Mirror an ``(H, W, C)`` image left to right with probability 0.5 (the coin comes
    from symmod's generator: ``mx.random.seed``)."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Mirror an ``(H, W, C)`` image top to bottom with probability 0.5."""

    def hybrid_forward(self, F, x):
        return F.image.random_flip_top_bottom(x)


class _RandomEnhance(HybridBlock):
    """A colour augmentation with a factor drawn from ``[max(0, 1 - amount), 1 + amount]``."""
    op = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F, x):
        return getattr(F.image, self.op)(x, *self._args)


class RandomBrightness(_RandomEnhance):
    """Scale an ``(H, W, C)`` image by a factor drawn from ``[max(0, 1 - brightness),
    1 + brightness]``.

    Parameters
    ----------
    brightness : float
        How much to jitter the brightness.
    """
    op = 'random_brightness'


class RandomContrast(_RandomEnhance):
    """Blend an ``(H, W, C)`` image with its mean grey level by a factor drawn from
    ``[max(0, 1 - contrast), 1 + contrast]``.

    Parameters
    ----------
    contrast : float
        How much to jitter the contrast.
    """
    op = 'random_contrast'


class RandomSaturation(_RandomEnhance):
    """Blend each pixel with its grey level by a factor drawn from
    ``[max(0, 1 - saturation), 1 + saturation]``.

    Parameters
    ----------
    saturation : float
        How much to jitter the saturation.
    """
    op = 'random_saturation'


class RandomHue(_RandomEnhance):
    """Rotate the hue by ``alpha * 360`` degrees, alpha drawn from ``[max(0, 1 - hue),
    1 + hue]`` (MXNet's range: a full turn plus up to ``hue`` of one).

    Parameters
    ----------
    hue : float
        How much to jitter the hue.
    """
    op = 'random_hue'


class RandomColorJitter(HybridBlock):
    """Jitter brightness, contrast, saturation and hue, in a random order.

    Parameters
    ----------
    brightness, contrast, saturation : float, default 0
        Each factor is drawn from ``[1 - amount, 1 + amount]`` (0 skips it).
    hue : float, default 0
        The hue turns by up to ``hue * 360`` degrees either way (0 skips it).
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        return F.image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """AlexNet's PCA lighting noise with alphas drawn from N(0, ``alpha``).

    Parameters
    ----------
    alpha : float
        Standard deviation of the noise.
    """

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.image.random_lighting(x, self._alpha)


class RandomApply(Sequential):
    """Apply ``transforms`` with probability ``p`` (Python's ``random``), else pass the
    input through.

    Parameters
    ----------
    transforms : Block
        The transform (e.g. a :class:`Compose`).
    p : float, default 0.5
        Probability of applying it.
    """

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)


class Rotate(Block):
    """Rotate a float32 ``(C, H, W)`` image or ``(N, C, H, W)`` batch by a fixed angle
    (``mx.image.imrotate``; apply it after :class:`ToTensor`).

    Parameters
    ----------
    rotation_degrees : float
        Counter-clockwise angle.
    zoom_in : bool, default False
        Zoom so that no empty corner shows.
    zoom_out : bool, default False
        Zoom so that the whole rotated image shows.
    """

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        if x.dtype is not np.float32:
            raise TypeError('This transformation only supports float32. '
                            'Consider calling it after ToTensor')
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate by an angle drawn from ``angle_limits`` (numpy's generator), with
    probability ``rotate_with_proba`` (``mx.image.random_rotate``).

    Parameters
    ----------
    angle_limits : tuple of two floats
        Lowest and highest angle, in degrees.
    zoom_in, zoom_out : bool, default False
        As for :class:`Rotate`.
    rotate_with_proba : float, default 1.0
        Probability of rotating.
    """

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError('`angle_limits` must be an ordered tuple')
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError('Probability of rotating the image should be between 0 and 1')
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        if x.dtype is not np.float32:
            raise TypeError('This transformation only supports float32. '
                            'Consider calling it after ToTensor')
        return image.random_rotate(x, *self._args)
