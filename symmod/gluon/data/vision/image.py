"""numpy image helpers for the vision datasets: decoding (:mod:`symmod.image.opencv`,
MXNet's OpenCV calls) and reading image files. Images are ``(height, width, channels)``
arrays in RGB order, as ``mx.image`` hands them out.
"""
import os

from ....base import MXNetError
from ....image.opencv import decode

__all__ = ['decode', 'read_image']


def read_image(path, flag=1):
    """Read and decode an image file like ``mx.image.imread``."""
    if not os.path.isfile(path):
        raise MXNetError('imread: cannot find the image file "%s"' % path)
    with open(path, 'rb') as f:
        return decode(f.read(), flag)
