"""The translations from symmod operators to ONNX, one module per operator family.

Importing this package registers every translator (see ``..registry``).
"""
from . import (activation, arrays, elemwise, image, image_color, nn, norm,  # noqa: F401
               recurrent, reduce, sequence, shape, vision)
