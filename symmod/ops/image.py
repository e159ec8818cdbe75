"""Image operators of ``mx.nd.image`` / ``mx.sym.image`` (registered as ``_image_<name>``):
to_tensor, normalize, crop, resize and the flips.

Images are ``(height, width, channels)`` or, batched, ``(N, height, width, channels)``;
``to_tensor`` turns them into ``(channels, height, width)`` float tensors, which
``normalize`` takes. ``resize`` is OpenCV's (``symmod.image.opencv``), as in MXNet.

Gradients: normalize, crop, the flips and to_tensor have their true gradients (MXNet
passes the head gradient through unchanged for the flips and to_tensor); resize, like
MXNet's, passes it through only where the shape is kept and is otherwise not
differentiable. The colour augmentations are in ``image_color.py``.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_int, parse_tuple
from .common import copy_into, int_shape, store_from
from .registry import Operator, Param, ShapeError, register

__all__ = ['saturate_cast']


def saturate_cast(values, dtype):
    """Float ``values`` as ``dtype`` the way MXNet's image operators store them: integers
    are clipped to the type's range and truncated toward zero (not rounded)."""
    dtype = np.dtype(dtype)
    if dtype.kind in 'iu':
        info = np.iinfo(dtype)
        return np.trunc(np.clip(values, info.min, info.max)).astype(dtype)
    return values.astype(dtype)


def _listed(values):
    """A shape or tuple as MXNet's messages print it: ``[3,2,2]``."""
    return '[%s]' % ','.join('%g' % v for v in values)


def _image_shape(shape):
    """Check an (H, W, C) / (N, H, W, C) shape (MXNet's message); returns it."""
    if len(shape) in (3, 4):
        return shape
    raise ShapeError('Input image must have shape (height, width, channels), or '
                     '(N, height, width, channels) but got %s' % _listed(shape))


class _ImageOp(Operator):
    """One image in, one out, same dtype unless ``infer_type`` says otherwise."""
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return list(in_shapes), list(out_shapes), []
        return [_image_shape(shape)], [self._out_shape(shape)], []

    def _out_shape(self, shape):
        return shape


@register
class ImageToTensor(_ImageOp):
    """``(H, W, C)`` image (any dtype) to a float32 ``(C, H, W)`` tensor ``x / 255``
    (``(N, H, W, C)`` to ``(N, C, H, W)``)."""
    name = '_image_to_tensor'
    aliases = ('_npx__image_to_tensor',)
    backward_uses_inputs = False

    def _out_shape(self, shape):
        return shape[:-3] + (shape[-1], shape[-3], shape[-2])

    def infer_type(self, in_types, out_types, aux_types):
        return list(in_types), [np.dtype(np.float32)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        moved = np.moveaxis(x, -1, -3).astype(np.float32) / np.float32(255)
        store_from(out_data[0], req[0], moved)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        grad = np.moveaxis(out_grad[0], -3, -1) / np.float32(255)
        store_from(in_grad[0], req[0], grad.astype(in_grad[0].dtype))


@register
class ImageNormalize(Operator):
    """``(x[c] - mean[c]) / std[c]`` for a ``(C, H, W)`` or ``(N, C, H, W)`` tensor with
    1 or 3 channels; ``mean`` and ``std`` have one value or one per channel."""
    name = '_image_normalize'
    aliases = ('_npx__image_normalize',)
    params = (Param('mean', lambda v: parse_tuple(v, float), (0.0, 0.0, 0.0, 0.0),
                    'Mean of each channel.'),
              Param('std', lambda v: parse_tuple(v, float), (1.0, 1.0, 1.0, 1.0),
                    'Standard deviation of each channel.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return list(in_shapes), list(out_shapes), []
        # MXNet's messages, word for word
        if len(shape) not in (3, 4):
            raise ShapeError('Input tensor must have shape (channels, height, width), or '
                             '(N, channels, height, width), but got %s' % _listed(shape))
        channels = shape[-3]
        if channels not in (1, 3):
            raise ShapeError('The %s dimension of input tensor must be the channel dimension '
                             'with either 1 or 3 elements, but got input with shape %s'
                             % ('first' if len(shape) == 3 else 'second', _listed(shape)))
        for what, values in (('mean', self.mean), ('std', self.std)):
            if len(values) not in (1, channels):
                raise ShapeError('Invalid %s for input with shape %s. %s must have either 1 '
                                 'or %d elements, but got %s'
                                 % (what, _listed(shape), what, channels, _listed(values)))
        return [shape], [shape], []

    def _per_channel(self, values, x):
        return np.asarray(values, np.float32).reshape((-1, 1, 1)).astype(
            x.dtype if x.dtype.kind == 'f' else np.float32)

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        out = (x - self._per_channel(self.mean, x)) / self._per_channel(self.std, x)
        store_from(out_data[0], req[0], out.astype(out_data[0].dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        dy = out_grad[0]
        store_from(in_grad[0], req[0], (dy / self._per_channel(self.std, dy))
                   .astype(in_grad[0].dtype))


@register
class ImageCrop(_ImageOp):
    """The ``width x height`` region of an image whose top-left corner is (``x``,
    ``y``); the gradient is the head gradient placed back into that region."""
    name = '_image_crop'
    aliases = ('_npx__image_crop',)
    params = (Param('x', parse_int, doc='Left column of the region.'),
              Param('y', parse_int, doc='Top row of the region.'),
              Param('width', parse_int, doc='Width of the region.'),
              Param('height', parse_int, doc='Height of the region.'))
    backward_uses_inputs = False

    def _out_shape(self, shape):
        rows, cols = shape[-3], shape[-2]
        # MXNet's messages (no check of negative x / y there; numpy would wrap)
        if shape[-1] not in (1, 3):
            raise ShapeError('Expect channel of the input image is 1 or 3, but got %d'
                             % shape[-1])
        if self.width <= 0 or self.height <= 0:
            raise ShapeError('Input height and width must be greater than 0')
        if self.x < 0 or self.y < 0:
            raise ShapeError('x and y must not be negative, found x=%d, y=%d'
                             % (self.x, self.y))
        if self.x + self.width > cols:
            raise ShapeError('x + width should not be greater than input width')
        if self.y + self.height > rows:
            raise ShapeError('y + height should not be greater than input height')
        return shape[:-3] + (self.height, self.width, shape[-1])

    def _region(self, ndim):
        return (Ellipsis, slice(self.y, self.y + self.height),
                slice(self.x, self.x + self.width), slice(None))

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0][self._region(in_data[0].ndim)], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        grad = np.zeros(in_grad[0].shape, in_grad[0].dtype)
        grad[self._region(grad.ndim)] = out_grad[0]
        store_from(in_grad[0], req[0], grad)


def _parse_size(value):
    return parse_tuple(value, int) or ()


@register
class ImageResize(_ImageOp):
    """Resize images with OpenCV's interpolation (0 nearest, 1 bilinear, 2 bicubic).

    ``size`` is ``(width, height)``, or one number: both sides, or with ``keep_ratio``
    the shorter side (the other scaled, rounded down).
    """
    name = '_image_resize'
    aliases = ('_npx__image_resize',)
    params = (Param('size', _parse_size, (), '(width, height) or one size.'),
              Param('keep_ratio', parse_bool, False,
                    'With one size: resize the shorter side to it, keeping the ratio.'),
              Param('interp', parse_int, 1, 'OpenCV interpolation: 0, 1 or 2.'))
    backward_uses_inputs = False

    def _out_shape(self, shape):
        rows, cols = shape[-3], shape[-2]
        if len(self.size) not in (1, 2):
            raise ShapeError('Input size dimension must be 1 or 2, but got %d' % len(self.size))
        if any(s <= 0 for s in self.size):
            raise ShapeError('Input size should be greater than 0, but got %s'
                             % ','.join(str(s) for s in self.size))
        if len(self.size) == 2:
            width, height = self.size
        elif not self.keep_ratio:
            width = height = self.size[0]
        elif rows > cols:
            width = self.size[0]
            height = rows * width // cols
        else:
            height = self.size[0]
            width = cols * height // rows
        return shape[:-3] + (height, width, shape[-1])

    def forward(self, is_train, req, in_data, out_data, aux):
        from ..image import opencv     # here: symmod.image imports the ndarray package
        x, out = in_data[0], out_data[0]
        height, width = out.shape[-3], out.shape[-2]
        images = x.reshape((-1,) + x.shape[-3:])
        results = [opencv.resize(img, width, height, self.interp) for img in images]
        store_from(out, req[0], np.stack(results).reshape(out.shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if in_grad[0].shape != out_grad[0].shape:
            raise MXNetError('_image_resize: the resize has no gradient (MXNet passes the '
                             'head gradient through only where the size is kept)')
        copy_into(in_grad[0], out_grad[0], req[0])


class _Flip(_ImageOp):
    """Flip along the width (axis -2) or height (axis -3) axis."""
    axis = -2
    backward_uses_inputs = False

    def forward(self, is_train, req, in_data, out_data, aux):
        store_from(out_data[0], req[0], np.flip(in_data[0], self.axis))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] != 'null':
            store_from(in_grad[0], req[0], np.flip(out_grad[0], self.axis))


@register
class ImageFlipLeftRight(_Flip):
    """Mirror images left to right."""
    name = '_image_flip_left_right'
    aliases = ('_npx__image_flip_left_right',)


@register
class ImageFlipTopBottom(_Flip):
    """Mirror images top to bottom."""
    name = '_image_flip_top_bottom'
    aliases = ('_npx__image_flip_top_bottom',)
    axis = -3


def _coin():
    """Whether a random flip flips: one fair coin from symmod's generator."""
    from .. import random as _random
    return bool(_random.get_rng().random() < 0.5)


class _RandomFlip(_Flip):
    """Flip with probability 1/2. The gradient is the head gradient passed through, as
    in MXNet (it does not know whether the image was flipped)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        if _coin():
            super().forward(is_train, req, in_data, out_data, aux)
        else:
            copy_into(out_data[0], in_data[0], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        copy_into(in_grad[0], out_grad[0], req[0])


@register
class ImageRandomFlipLeftRight(_RandomFlip):
    """Mirror images left to right with probability 1/2."""
    name = '_image_random_flip_left_right'
    aliases = ('_npx__image_random_flip_left_right',)


@register
class ImageRandomFlipTopBottom(_RandomFlip):
    """Mirror images top to bottom with probability 1/2."""
    name = '_image_random_flip_top_bottom'
    aliases = ('_npx__image_random_flip_top_bottom',)
    axis = -3
