"""``mx.test_utils``: MXNet 1.9.1's testing helpers.

Tolerant comparison with per-dtype defaults (``assert_almost_equal``), random inputs
(``rand_ndarray``, ``rand_shape_nd``), symbol checks (``check_symbolic_forward/backward``,
``check_numeric_gradient``, ``check_consistency``), statistical tests of generators
(``verify_generator``), harness helpers (``environment``, ``retry``, ``discard_stderr``)
and data (``get_mnist``, ``download``).

MXNet's module has no ``__all__``: test files written for it do ``from mxnet.test_utils
import *`` and then use the modules it imported (``np``, ``mx``, ``os``, ...). Those names
are kept here for that reason.
"""
# modules and names MXNet's test_utils exposes through `import *`
import bz2  # noqa: F401
import errno  # noqa: F401
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os  # noqa: F401
import platform  # noqa: F401
import struct  # noqa: F401
import sys  # noqa: F401
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np  # noqa: F401
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

import symmod as mx  # noqa: F401
from ..context import Context, current_context  # noqa: F401
from ..ndarray import array  # noqa: F401
from ..ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID  # noqa: F401
from ..symbol import Symbol  # noqa: F401
from ..util import use_np, getenv, setenv, get_cuda_compute_capability  # noqa: F401
from ..runtime import Features  # noqa: F401

from .compare import *  # noqa: F401,F403
from .arrays import *  # noqa: F401,F403
from .symbolic import *  # noqa: F401,F403
from .symbolic import _parse_location, _parse_aux_states  # noqa: F401
from .stats import *  # noqa: F401,F403
from .environ import *  # noqa: F401,F403
from .datasets import *  # noqa: F401,F403
from .training import *  # noqa: F401,F403
