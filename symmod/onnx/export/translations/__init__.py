"""The translations from symmod operators to ONNX, one module per operator family.

Importing this package registers every translator (see ``..registry``).
"""
from . import (activation, arrays, contrib, elemwise, image, image_color,  # noqa: F401
               nn, norm, recurrent, reduce, sequence, shape, vision)
