"""``mx.sym``: Symbol, variables, groups, JSON loading and one function per operator."""
import sys
import types

from .symbol import Symbol, var, Variable, Group, load, load_json
from .. import ops as _ops  # registers every operator
from . import register as _register

_internal = types.ModuleType(__name__ + '._internal', 'Internal operators (names starting with _).')
sys.modules[_internal.__name__] = _internal
_register.populate(globals(), _internal.__dict__)
_ops.fluent.attach(Symbol, _register._FUNCS)   # x.abs(), x.topk(), ... from the registry
op = sys.modules[__name__]


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros of ``shape`` (operator ``_zeros``)."""
    return _internal._zeros(shape=shape, dtype='float32' if dtype is None else dtype, **kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones of ``shape`` (operator ``_ones``)."""
    return _internal._ones(shape=shape, dtype='float32' if dtype is None else dtype, **kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol of ``shape`` filled with ``val`` (operator ``_full``)."""
    return _internal._full(shape=shape, value=val,
                           dtype='float32' if dtype is None else dtype, **kwargs)


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop) (operator ``_arange``)."""
    return _internal._arange(start=start, stop=stop, step=step, repeat=repeat,
                             infer_range=infer_range, name=name,
                             dtype='float32' if dtype is None else dtype)


from . import linalg, contrib, random  # noqa: E402,F401  (mx.sym.linalg.*, .contrib.*, .random.*)
from . import sparse  # noqa: E402,F401  (mx.sym.sparse.dot, .retain, .elemwise_add, ...)
from .functions import *  # noqa: E402,F401,F403  (power, maximum, eye, split_v2, ...)
from . import image  # noqa: E402,F401  (mx.sym.image.*: the _image_ operators)
from .._suggest import missing_attribute as _missing_attribute  # noqa: E402
__getattr__ = _missing_attribute(__name__)     # mx.sym.FullyConected: names FullyConnected
