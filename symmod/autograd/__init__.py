"""Imperative automatic differentiation: record ``nd`` operator calls, then backward.

While recording, every operator call made through ``mx.nd`` whose inputs depend on a
marked variable is appended to a tape: the operator instance, its input and output
arrays. ``backward`` walks the tape from the heads in reverse order and calls each
operator's own ``backward`` from the registry (``symmod.ops``), so imperative
gradients are computed by exactly the code the symbolic executor runs.

As in MXNet, ``backward`` frees the recorded graph unless ``retain_graph=True``;
differentiating it again then raises. Marked variables (``attach_grad``,
``mark_variables``, gluon Parameters) stay marked, and remember whether ``backward``
has written their gradient since the last optimizer step (the "fresh gradient" flag
``gluon.Trainer`` checks).

Files: ``state.py`` (recording / training scopes), ``tape.py`` (recording, backward,
grad), ``function.py`` (user-defined gradients), ``graph_symbol.py`` (the recorded
graph as a Symbol).
"""
from .state import (record, pause, train_mode, predict_mode, is_recording, is_training,
                    set_recording, set_training)
from .tape import mark_variables, backward, grad, _record_op, _get_fresh_grad, _set_fresh_grad
from .function import Function
from .graph_symbol import get_symbol

__all__ = ['record', 'pause', 'train_mode', 'predict_mode', 'is_recording', 'is_training',
           'set_recording', 'set_training', 'mark_variables', 'backward', 'grad', 'Function',
           'get_symbol', 'NDArray', 'Symbol']


def __getattr__(name):
    # MXNet's autograd module exports the array and symbol classes it uses (scripts do
    # ``from mxnet.autograd import *``); imported lazily, the packages import this one
    if name == 'NDArray':
        from ..ndarray.ndarray import NDArray
        return NDArray
    if name == 'Symbol':
        from ..symbol.symbol import Symbol
        return Symbol
    raise AttributeError('module %r has no attribute %r' % (__name__, name))
