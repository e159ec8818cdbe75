"""The translations from symmod operators to ONNX, one module per operator family.

Importing this package registers every translator (see ``..registry``).
"""
from . import (activation, arrays, elemwise, nn, norm, recurrent, reduce,  # noqa: F401
               sequence, shape, vision)
