"""``mx.contrib``: MXNet's experimental namespaces.

``mx.contrib.symbol`` / ``mx.contrib.ndarray`` (also ``sym`` / ``nd``) are the same modules
as ``mx.sym.contrib`` / ``mx.nd.contrib``: the operators registered as ``_contrib_<name>``.
``mx.contrib.autograd`` is MXNet's first, section-based autograd API; ``mx.contrib.amp``
automatic mixed precision.
``mx.contrib.onnx`` is MXNet's ONNX import API (:mod:`symmod.onnx`).
"""
import sys as _sys

from ..ndarray import contrib as ndarray
from ..symbol import contrib as symbol
from ..ndarray import contrib as nd
from ..symbol import contrib as sym

# `import mxnet.contrib.ndarray` must find the same module objects
_sys.modules[__name__ + '.ndarray'] = ndarray
_sys.modules[__name__ + '.symbol'] = symbol

from . import autograd  # noqa: E402
from . import onnx  # noqa: E402
from . import amp  # noqa: E402
from . import text  # noqa: E402
