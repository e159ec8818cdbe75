"""Image transforms as gluon Blocks: ``transforms.Compose([Resize(32), ToTensor(), ...])``.

``Cast``, ``ToTensor`` and ``Normalize`` are HybridBlocks built from ordinary operators,
so they also run inside a hybridized graph. ``Resize`` and ``RandomFlipLeftRight`` are
HybridBlocks as in MXNet but compute with numpy (see :mod:`.image` for how resizing
matches OpenCV): they run imperatively even when hybridized and cannot be part of a
symbolic graph. ``CenterCrop`` and ``RandomResizedCrop`` are plain Blocks, as in MXNet.
"""
import random

import numpy as np

from ....base import MXNetError, numeric_types
from ....image.image import scale_down
from .... import ndarray as nd
from .... import random as _mx_random
from ...block import Block
from ...hybrid_block import HybridBlock
from ...nn import Sequential, HybridSequential
from . import image

__all__ = ['Compose', 'Cast', 'ToTensor', 'Normalize', 'Resize', 'CenterCrop',
           'RandomResizedCrop', 'RandomFlipLeftRight']


class _NumpyHybridBlock(HybridBlock):
    """A HybridBlock computed with numpy: always imperative, never in a graph."""

    def forward(self, x, *args):
        if not isinstance(x, nd.NDArray):
            raise MXNetError('%s computes with numpy and cannot be part of a symbolic graph; '
                             'apply it to NDArrays outside hybridized blocks'
                             % type(self).__name__)
        return self.hybrid_forward(nd, x, *args)


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
            if isinstance(block, HybridBlock) and not isinstance(block, _NumpyHybridBlock):
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
        if isinstance(x, nd.NDArray) and x.ndim not in (3, 4):
            raise MXNetError('Input image must have shape (height, width, channels), or '
                             '(N, height, width, channels) but got %s' % _shape_text(x.shape))
        scaled = F.cast(x, dtype='float32') / 255.0
        # HWC -> CWH -> CHW (NHWC -> NCWH -> NCHW)
        return F.swapaxes(F.swapaxes(scaled, dim1=-1, dim2=-3), dim1=-1, dim2=-2)


def _shape_text(values):
    """A shape or tuple as MXNet's messages print it: ``[3,2,2]``."""
    return '[%s]' % ','.join('%g' % v for v in values)


def _as_tuple(value):
    return tuple(float(v) for v in value) if isinstance(value, (tuple, list)) \
        else (float(value),)


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

    def _check(self, shape, mean, std):
        if len(shape) not in (3, 4):
            raise MXNetError('Input tensor must have shape (channels, height, width), or '
                             '(N, channels, height, width), but got %s' % _shape_text(shape))
        channels = shape[0] if len(shape) == 3 else shape[1]
        if channels not in (1, 3):
            raise MXNetError('The %s dimension of input tensor must be the channel dimension '
                             'with either 1 or 3 elements, but got input with shape %s'
                             % ('first' if len(shape) == 3 else 'second', _shape_text(shape)))
        for name, values in (('mean', mean), ('std', std)):
            if len(values) not in (1, channels):
                raise MXNetError('Invalid %s for input with shape %s. %s must have either 1 '
                                 'or %d elements, but got %s'
                                 % (name, _shape_text(shape), name, channels,
                                    _shape_text(values)))

    def hybrid_forward(self, F, x):
        mean, std = _as_tuple(self._mean), _as_tuple(self._std)
        if isinstance(x, nd.NDArray):
            self._check(x.shape, mean, std)
        channels = max(len(mean), len(std))
        if channels == 1:
            return (x - mean[0]) / std[0]
        if len(mean) == 1:
            mean = mean * channels
        if len(std) == 1:
            std = std * channels
        parts = F.split(x, num_outputs=channels, axis=-3)
        return F.concat(*[(parts[c] - mean[c]) / std[c] for c in range(channels)], dim=-3)


class Resize(_NumpyHybridBlock):
    """Resize an ``(H, W, C)`` image or an ``(N, H, W, C)`` batch.

    Parameters
    ----------
    size : int or tuple of (W, H)
        The output size; an int is used for both sides unless ``keep_ratio``.
    keep_ratio : bool, default False
        With an int ``size``: resize the shorter side to ``size`` and keep the aspect
        ratio.
    interpolation : int, default 1
        0 nearest neighbour, 1 bilinear (OpenCV's codes; others are not available).

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
        data = x.asnumpy()
        if data.ndim not in (3, 4):
            raise MXNetError('Input image must have shape (height, width, channels), or '
                             '(N, height, width, channels) but got %s' % (data.shape,))
        batch = data if data.ndim == 4 else data[None]
        height, width = image.size_after_resize(batch.shape[1], batch.shape[2], self._size,
                                                self._keep)
        out = np.stack([image.resize(img, width, height, self._interpolation)
                        for img in batch])
        return nd.array(out if data.ndim == 4 else out[0], ctx=x.context, dtype=out.dtype)


def _fixed_crop(x, x0, y0, w, h, size, interp):
    """The ``w`` x ``h`` crop at ``(x0, y0)``, resized to ``size`` (w, h) if it differs."""
    out = x.asnumpy()[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        out = image.resize(out, size[0], size[1], interp)
    return nd.array(out, ctx=x.context, dtype=out.dtype)


def _center_crop(x, size, interp):
    src_h, src_w = x.shape[:2]
    new_w, new_h = scale_down((src_w, src_h), size)
    x0, y0 = int((src_w - new_w) / 2), int((src_h - new_h) / 2)
    return _fixed_crop(x, x0, y0, new_w, new_h, size, interp)


def _size_pair(size):
    return (size, size) if isinstance(size, numeric_types) else tuple(size)


class CenterCrop(Block):
    """Crop the centre of an ``(H, W, C)`` image to ``size``; an image smaller than
    ``size`` is cropped to the right aspect ratio and upsampled.

    Parameters
    ----------
    size : int or tuple of (W, H)
    interpolation : int, default 1
        0 nearest neighbour, 1 bilinear.

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
        return _center_crop(x, *self._args)


class RandomResizedCrop(Block):
    """Crop a random area (``scale`` of the image) with a random aspect ratio
    (``ratio``), then resize it to ``size``.

    Ten tries draw an area and a log-uniform ratio with Python's ``random`` module (as
    MXNet's ``image.random_size_crop``); if no crop fits, the centre crop is used.

    Parameters
    ----------
    size : int or tuple of (W, H)
    scale : tuple of two floats, default (0.08, 1.0)
    ratio : tuple of two floats, default (3/4, 4/3)
    interpolation : int, default 1
        0 nearest neighbour, 1 bilinear.
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=1):
        super().__init__()
        self._args = (_size_pair(size), scale, ratio, interpolation)

    def forward(self, x):
        size, area, ratio, interp = self._args
        src_h, src_w = x.shape[:2]
        if isinstance(area, numeric_types):
            area = (area, 1.0)
        for _ in range(10):
            target_area = random.uniform(area[0], area[1]) * src_h * src_w
            new_ratio = np.exp(random.uniform(np.log(ratio[0]), np.log(ratio[1])))
            new_w = int(round(np.sqrt(target_area * new_ratio)))
            new_h = int(round(np.sqrt(target_area / new_ratio)))
            if new_w <= src_w and new_h <= src_h:
                x0 = random.randint(0, src_w - new_w)
                y0 = random.randint(0, src_h - new_h)
                return _fixed_crop(x, x0, y0, new_w, new_h, size, interp)
        return _center_crop(x, size, interp)


class RandomFlipLeftRight(_NumpyHybridBlock):
    """Mirror an ``(H, W, C)`` image left to right with probability 0.5.

    The coin comes from symmod's generator (seed it with ``mx.random.seed``).
    """

    def hybrid_forward(self, F, x):
        data = x.asnumpy()
        if data.ndim != 3:
            raise MXNetError('Input image must have shape (height, width, channels), but got '
                             '%s' % (data.shape,))
        if _mx_random.get_rng().random() < 0.5:
            data = data[:, ::-1]
        return nd.array(data, ctx=x.context, dtype=data.dtype)
