"""The translations from symmod operators to ONNX, one module per operator family.

Importing this package registers every translator (see ``..registry``).
"""
from . import (activation, arrays, contrib, copying, elemwise, image,  # noqa: F401
               image_color, linalg, nn, norm, recurrent, reduce, sequence, shape,
               vision)
