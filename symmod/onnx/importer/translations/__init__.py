"""The translations from ONNX operators to symmod, one module per family.

Importing this package registers every translator (see ``..registry``).
"""
from . import control_flow, math, nn, recurrent, shape, vision  # noqa: F401
