"""The translations from ONNX operators to symmod, one module per family.

Importing this package registers every translator (see ``..registry``).
"""
from . import math, nn, recurrent, shape, vision  # noqa: F401
