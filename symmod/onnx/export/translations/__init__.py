"""The translations from symmod operators to ONNX, one module per operator family.

Importing this package registers every translator (see ``..registry``).
"""
from . import (activation, elemwise, nn, norm, recurrent, reduce, sequence,  # noqa: F401
               shape)
