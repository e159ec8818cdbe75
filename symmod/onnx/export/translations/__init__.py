"""The translations from symmod operators to ONNX, one module per operator family.

Importing this package registers every translator (see ``..registry``).
"""
from . import (activation, arrays, attention, contrib, copying, elemwise,  # noqa: F401
               image, image_color, linalg, nn, norm, recurrent, reduce, sequence,
               shape, vision)
