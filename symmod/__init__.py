"""symmod: Apache MXNet 1.x's symbolic training API on numpy, numba and networkx.

Use it in place of MXNet: ``import symmod as mx``.
"""
__version__ = '0.1.0'

from .base import MXNetError
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import base
from . import context
from . import ops
from . import ndarray
from . import ndarray as nd
from . import autograd
