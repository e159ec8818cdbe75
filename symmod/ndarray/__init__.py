"""``mx.nd``: NDArray, creation functions, save/load and one function per operator."""
import sys
import types

from .ndarray import (NDArray, array, empty, zeros, ones, full, arange, concat, concatenate,
                      waitall, from_numpy, mx_real_t, moveaxis, onehot_encode)
from .legacy_shape import zeros, ones  # noqa: F811  (MXNet's legacy-shape rule)
from .utils import save, load, load_frombuffer
from .. import ops as _ops  # registers every operator
from . import register as _register

_internal = types.ModuleType(__name__ + '._internal', 'Internal operators (names starting with _).')
sys.modules[_internal.__name__] = _internal
from ..ops import fused_updates as _fused_updates  # noqa: E402,F401  (needs ndarray.ndarray)
_register.populate(globals(), _internal.__dict__)
_ops.fluent.attach(NDArray, _register._OPS)   # x.abs(), x.topk(), ... from the registry
op = sys.modules[__name__]
from ..optimizer.fused_ops import *  # noqa: E402,F401,F403  (sgd_update, adam_update, ...)
from . import contrib  # noqa: E402  (mx.nd.contrib.adamw_update, ...)
from .. import random  # noqa: E402  (mx.nd.random: the samplers of symmod.random)
from . import linalg  # noqa: E402  (mx.nd.linalg.potrf, ... : the _linalg_ operators)
from .binary import *  # noqa: E402,F401,F403  (add, subtract, ..., logical_xor)
from .functions import *  # noqa: E402,F401,F403  (eye, linspace, histogram, split_v2)
from .dlpack import to_dlpack_for_read, to_dlpack_for_write, from_dlpack  # noqa: E402,F401
from .cached_op import CachedOp  # noqa: E402,F401
from . import sparse  # noqa: E402  (mx.nd.sparse: CSRNDArray, RowSparseNDArray, ...)
from .sparse_array import CSRNDArray, RowSparseNDArray  # noqa: E402,F401
from .indexing import *  # noqa: E402,F401,F403  (MXNet's indexing helpers)
from . import image  # noqa: E402  (mx.nd.image.to_tensor, ... : the _image_ operators)
from .._suggest import missing_attribute as _missing_attribute  # noqa: E402
__getattr__ = _missing_attribute(__name__)     # mx.nd.FullyConected: names FullyConnected
