"""Colour augmentations of ``mx.nd.image`` / ``mx.sym.image``: random brightness,
contrast, saturation and hue, their random combination (color jitter), and AlexNet's
PCA lighting noise (fixed or random).

Images are ``(height, width, channels)`` with 1 or 3 (RGB) channels, computed in
float32 and stored back with OpenCV's saturate_cast, as MXNet 1.9.1 does. The random
factors come from symmod's generator (``mx.random.seed``). Two MXNet defects are not
copied: its saturation takes the grey level from the blue channel alone (here the
luma 0.299 R + 0.587 G + 0.114 B), and its hue and lighting leave a one-channel
output unwritten (here it is the input).

As in MXNet these operators pass the head gradient through unchanged.
"""
import numpy as np

from ..base import parse_float, parse_tuple
from .common import copy_into, int_shape, store_from
from .image import saturate_cast
from .registry import Operator, Param, ShapeError, register

__all__ = ['adjust_brightness', 'adjust_contrast', 'adjust_saturation', 'adjust_hue',
           'adjust_lighting']

_LUMA = np.array([0.299, 0.587, 0.114], np.float32)
# AlexNet's eigenvectors of the RGB covariance scaled by their eigenvalues (columns)
_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]], np.float32)


def _rng():
    from .. import random as _random
    return _random.get_rng()


def _uniform(low, high):
    return np.float32(_rng().uniform(low, high))


# ---- the adjustments (float32 images in, float32 out) ------------------------------------
def adjust_brightness(img, alpha):
    """``img * alpha``."""
    return img * np.float32(alpha)


def adjust_contrast(img, alpha):
    """Blend with the image's mean grey level: ``img * alpha + (1 - alpha) * mean``."""
    grey = img @ _LUMA if img.shape[-1] == 3 else img[..., 0]
    return img * np.float32(alpha) + (np.float32(1) - np.float32(alpha)) * np.float32(grey.mean())


def adjust_saturation(img, alpha):
    """Blend each pixel with its grey level: ``grey * (1 - alpha) + img * alpha``."""
    if img.shape[-1] == 1:
        return img
    grey = (img @ _LUMA)[..., None]
    return grey * (np.float32(1) - np.float32(alpha)) + img * np.float32(alpha)


def _rgb_to_hls(rgb):
    """Hue (degrees), lightness and saturation of float32 RGB pixels in [0, 255], with
    MXNet's float32 arithmetic."""
    f = np.float32
    r, g, b = [rgb[..., i] / f(255) for i in range(3)]
    vmax = np.maximum(np.maximum(r, g), b)
    vmin = np.minimum(np.minimum(r, g), b)
    diff = vmax - vmin
    light = (vmax + vmin) * f(0.5)
    chroma = diff > np.finfo(np.float32).eps
    with np.errstate(divide='ignore', invalid='ignore'):
        sat = np.where(light < f(0.5), diff / (vmax + vmin), diff / (f(2) - vmax - vmin))
        scale = f(60) / diff
        hue = np.where(vmax == r, (g - b) * scale,
                       np.where(vmax == g, (b - r) * scale + f(120), (r - g) * scale + f(240)))
    hue = np.where(hue < 0, hue + f(360), hue)
    return (np.where(chroma, hue, f(0)).astype(f), light.astype(f),
            np.where(chroma, sat, f(0)).astype(f))


def _hls_to_rgb(hue, light, sat):
    """RGB pixels in [0, 255] from hue (degrees), lightness and saturation (float32)."""
    f = np.float32
    p2 = np.where(light <= f(0.5), light * (f(1) + sat), light + sat - light * sat)
    p1 = f(2) * light - p2
    h = np.mod(hue * (f(1) / f(60)), f(6))             # MXNet multiplies by 1/60
    sector = np.minimum(h.astype(np.int64), 5)
    frac = h - sector.astype(f)
    tab = np.stack([p2, p1, p1 + (p2 - p1) * (f(1) - frac), p1 + (p2 - p1) * frac], axis=-1)
    # per sector, which entry of tab is (b, g, r)
    order = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])
    bgr = np.take_along_axis(tab, order[sector], axis=-1)
    rgb = np.where((sat != 0)[..., None], bgr[..., ::-1], light[..., None])
    return rgb.astype(f) * f(255)


def adjust_hue(img, alpha):
    """Rotate the hue by ``alpha * 360`` degrees (through HLS, as OpenCV)."""
    if img.shape[-1] == 1:
        return img
    hue, light, sat = _rgb_to_hls(img)
    return _hls_to_rgb(hue + np.float32(alpha) * np.float32(360), light, sat)


def adjust_lighting(img, alpha):
    """Add the PCA colour shift ``eig @ alpha`` (AlexNet) to every RGB pixel."""
    if img.shape[-1] == 1:
        return img
    return img + _EIG @ np.asarray(alpha, np.float32)


# ---- the operators -----------------------------------------------------------------------
class _ColourOp(Operator):
    """An (H, W, C) image (C = 1 or 3) transformed pixel-wise in float32."""
    backward_uses_inputs = False
    backward_uses_outputs = False

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = int_shape(in_shapes[0])
        if shape is None:
            return list(in_shapes), list(out_shapes), []
        # MXNet's messages
        if len(shape) != 3:
            raise ShapeError('Input image must have shape (height, width, channels), but got '
                             '[%s]' % ','.join(str(d) for d in shape))
        if shape[-1] not in (1, 3):
            raise ShapeError('The last dimension of input image must be the channel dimension '
                             'with either 1 or 3 elements, but got input with shape [%s]'
                             % ','.join(str(d) for d in shape))
        return [shape], [shape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        out = self._apply(x.astype(np.float32))
        store_from(out_data[0], req[0], saturate_cast(out, x.dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        copy_into(in_grad[0], out_grad[0], req[0])


_FACTORS = (Param('min_factor', parse_float, doc='Smallest factor.'),
            Param('max_factor', parse_float, doc='Largest factor.'))


class _RandomEnhance(_ColourOp):
    params = _FACTORS
    adjust = None

    def _apply(self, img):
        return type(self).adjust(img, _uniform(self.min_factor, self.max_factor))


@register
class ImageRandomBrightness(_RandomEnhance):
    """Scale the image by a factor drawn from [min_factor, max_factor]."""
    name = '_image_random_brightness'
    aliases = ('_npx__image_random_brightness',)
    adjust = staticmethod(adjust_brightness)


@register
class ImageRandomContrast(_RandomEnhance):
    """Blend with the mean grey level by a factor drawn from [min_factor, max_factor]."""
    name = '_image_random_contrast'
    aliases = ('_npx__image_random_contrast',)
    adjust = staticmethod(adjust_contrast)


@register
class ImageRandomSaturation(_RandomEnhance):
    """Blend each pixel with its grey level by a factor drawn from [min_factor,
    max_factor]."""
    name = '_image_random_saturation'
    aliases = ('_npx__image_random_saturation',)
    adjust = staticmethod(adjust_saturation)


@register
class ImageRandomHue(_RandomEnhance):
    """Rotate the hue by ``alpha * 360`` degrees, alpha drawn from [min_factor,
    max_factor]."""
    name = '_image_random_hue'
    aliases = ('_npx__image_random_hue',)
    adjust = staticmethod(adjust_hue)


@register
class ImageRandomColorJitter(_ColourOp):
    """Brightness, contrast, saturation and hue jitter in a random order; each factor is
    ``1 + u`` (hue: ``u``) with ``u`` uniform in [-amount, amount]; an amount of 0
    skips that adjustment."""
    name = '_image_random_color_jitter'
    aliases = ('_npx__image_random_color_jitter',)
    params = (Param('brightness', parse_float, doc='Brightness jitter.'),
              Param('contrast', parse_float, doc='Contrast jitter.'),
              Param('saturation', parse_float, doc='Saturation jitter.'),
              Param('hue', parse_float, doc='Hue jitter.'))

    def _apply(self, img):
        steps = [(self.brightness, adjust_brightness, 1), (self.contrast, adjust_contrast, 1),
                 (self.saturation, adjust_saturation, 1), (self.hue, adjust_hue, 0)]
        for index in _rng().permutation(4):
            amount, adjust, base = steps[index]
            if amount > 0:
                img = adjust(img, base + _uniform(-amount, amount))
        return img


@register
class ImageAdjustLighting(_ColourOp):
    """Add AlexNet's PCA lighting shift for the given ``alpha`` (one per eigenvector)."""
    name = '_image_adjust_lighting'
    aliases = ('_npx__image_adjust_lighting',)
    params = (Param('alpha', lambda v: parse_tuple(v, float),
                    doc='The lighting alphas for the R, G, B channels.'),)

    def _apply(self, img):
        return adjust_lighting(img, self.alpha)


@register
class ImageRandomLighting(_ColourOp):
    """Add AlexNet's PCA lighting shift with alphas drawn from N(0, alpha_std)."""
    name = '_image_random_lighting'
    aliases = ('_npx__image_random_lighting',)
    params = (Param('alpha_std', parse_float, 0.05, 'Standard deviation of the alphas.'),)

    def _apply(self, img):
        return adjust_lighting(img, _rng().normal(0, self.alpha_std, 3).astype(np.float32))
