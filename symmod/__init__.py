"""symmod: Apache MXNet 1.x's symbolic training API on numpy, numba and networkx.

Use it in place of MXNet: ``import symmod as mx``.
"""
__version__ = '0.1.0'

import os as _os

# numba's OpenMP threads otherwise spin for milliseconds after every parallel kernel and
# starve the BLAS threads of the next matrix product (10x slower training steps on 2
# cores). Sleeping at once costs a futex wake-up (40-60 us) per parallel region, so GNU
# OpenMP's threads spin 2000 times (some microseconds) first: enough to catch a region that
# follows right after. Must be set before the OpenMP runtime loads; a user's own wait
# policy (or spin count) wins.
if 'OMP_WAIT_POLICY' not in _os.environ:
    _os.environ['OMP_WAIT_POLICY'] = 'PASSIVE'
    _os.environ.setdefault('GOMP_SPINCOUNT', '2000')

from ._logging import quiet_numba as _quiet_numba
_quiet_numba()         # before any kernel compiles

from .base import MXNetError
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus
from . import base
from . import engine
from . import util
from .util import (is_np_shape, set_np_shape, np_shape, use_np_shape, is_np_array, np_array,
                   use_np_array, use_np)
from . import context
from . import ops
from . import ndarray
from . import ndarray as nd
from . import autograd
from . import random
from . import random as rnd
from . import name
from . import attribute
from .attribute import AttrScope
from . import symbol
from . import symbol as sym
from . import executor
from . import operator
from . import test_utils
from . import io
from . import recordio
from . import image
from . import image as img
from . import metric
from . import initializer
from . import initializer as init
from . import callback
from . import model
from . import monitor
from . import monitor as mon
from .monitor import Monitor
from . import module
from . import module as mod
from . import lr_scheduler
from . import optimizer
from . import optimizer as opt
from . import kvstore
from . import kvstore as kv
from . import gluon
from . import rnn
from . import visualization
from . import runtime
from . import executor_manager
from . import visualization as viz
from . import profiler
from . import threads
from . import contrib
from . import onnx

# in a job launched with dist_async servers, a server process serves here and never returns
from .kvstore.server import serve_if_server as _serve_if_server  # noqa: E402
_serve_if_server()
