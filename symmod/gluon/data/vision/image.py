"""numpy image helpers for the vision datasets and transforms.

Images are ``(height, width, channels)`` arrays in RGB order, as ``mx.image`` hands
them out. Decoding and resizing are :mod:`symmod.image.opencv`'s (MXNet's OpenCV
calls, nearest and bilinear only); this module adds the size rule of MXNet's image
resize operator and reading image files.
"""
import os

from ....base import MXNetError
from ....image.opencv import decode, resize

__all__ = ['resize', 'decode', 'read_image', 'size_after_resize']


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


def read_image(path, flag=1):
    """Read and decode an image file like ``mx.image.imread``."""
    if not os.path.isfile(path):
        raise MXNetError('imread: cannot find the image file "%s"' % path)
    with open(path, 'rb') as f:
        return decode(f.read(), flag)
