"""``mx.image.imrotate`` and ``random_rotate``: rotate float32 ``(C, H, W)`` images (or
``(N, C, H, W)`` batches) about their centre with bilinear sampling.

The sampling grid is MXNet 1.9.1's (normalised pixel coordinates rotated by the angle,
optionally scaled to zoom in or out) and the sampling is the ``BilinearSampler``
operator, so pixels outside the source read as 0, as in MXNet.
"""
from numbers import Number

import numpy as np

from .. import ndarray as nd

__all__ = ['imrotate', 'random_rotate']


def _zoom(height, width, radians, zoom_in):
    """Per-image scale of the grid: shrink it so that the rotated image covers the whole
    output (``zoom_in``) or grow it so that the output shows all of the image."""
    rho = np.sqrt(np.float32(height * height + width * width))
    corner = np.arctan(np.float32(height) / np.float32(width))
    spin = np.abs(radians)
    max_x = np.maximum(np.abs(rho * np.cos(corner + spin)), np.abs(rho * np.cos(corner - spin)))
    max_y = np.maximum(np.abs(rho * np.sin(corner + spin)), np.abs(rho * np.sin(corner - spin)))
    if zoom_in:
        return np.minimum(width / max_x, height / max_y)
    return np.maximum(max_x / width, max_y / height)


def imrotate(src, rotation_degrees, zoom_in=False, zoom_out=False):
    """Rotate an image (or each image of a batch) counter-clockwise by degrees.

    Parameters
    ----------
    src : NDArray
        float32 ``(C, H, W)`` image or ``(N, C, H, W)`` batch.
    rotation_degrees : float or NDArray
        The angle; for a batch a number (every image) or one angle per image.
    zoom_in : bool, default False
        Scale up so that no empty (zero) corner shows.
    zoom_out : bool, default False
        Scale down so that the whole rotated image shows.

    Returns
    -------
    NDArray
        The rotated image(s), same shape.

    Raises
    ------
    TypeError
        When the image is not float32 (apply ``ToTensor`` first) or a single image gets
        several angles.
    ValueError
        When both zooms are asked, the image is not 3-D or 4-D, or the angles do not
        match the batch.
    """
    if zoom_in and zoom_out:
        raise ValueError('`zoom_in` and `zoom_out` cannot be both True')
    if src.dtype is not np.float32:
        raise TypeError('Only `float32` images are supported by this function')
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, Number):
            raise TypeError('When a single image is passed the rotation angle is required to '
                            'be a scalar.')
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError('Only 3D and 4D are supported by this function')
    batch, _, height, width = src.shape
    if isinstance(rotation_degrees, Number):
        degrees = np.full(batch, rotation_degrees, np.float32)
    else:
        degrees = np.asarray(rotation_degrees.asnumpy() if isinstance(rotation_degrees, nd.NDArray)
                             else rotation_degrees, np.float32).reshape(-1)
    if degrees.shape[0] != batch:
        raise ValueError('The number of images must be equal to the number of rotation angles')
    radians = (np.float32(np.pi) * degrees / np.float32(180)).reshape(-1, 1, 1)
    half_h, half_w = np.float32(height - 1) / 2, np.float32(width - 1) / 2
    rows = np.arange(height, dtype=np.float32)[:, None] - half_h
    cols = np.arange(width, dtype=np.float32)[None, :] - half_w
    cos, sin = np.cos(radians), np.sin(radians)
    grid_x = (cols * cos - rows * sin) / half_w
    grid_y = (cols * sin + rows * cos) / half_h
    grid = np.stack([grid_x, grid_y], axis=1)                       # (N, 2, H, W)
    if zoom_in or zoom_out:
        grid = grid * _zoom(height, width, radians, zoom_in)[:, :, :, None]
    out = nd.BilinearSampler(src, nd.array(grid.astype(np.float32), ctx=src.context))
    return out[0] if single else out


def random_rotate(src, angle_limits, zoom_in=False, zoom_out=False):
    """Rotate by an angle drawn uniformly from ``angle_limits`` (one per image of a batch),
    with numpy's global generator as MXNet does; other arguments as for
    :func:`imrotate`."""
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)
