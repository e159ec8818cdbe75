"""``mx.contrib.autograd``: MXNet's first imperative-gradient API (train/test sections).

Kept for old scripts; it records on the same tape as :mod:`symmod.autograd`.
"""
import functools

from .. import autograd as _autograd
from ..ndarray.ndarray import NDArray

__all__ = ['set_is_training', 'TrainingStateScope', 'train_section', 'test_section',
           'mark_variables', 'backward', 'compute_gradient', 'grad_and_loss', 'grad']


def set_is_training(is_train):
    """Turn training mode and recording on or off together; returns the previous state."""
    prev = _autograd.set_training(is_train)
    _autograd.set_recording(is_train)
    return prev


class TrainingStateScope:
    """``with`` scope that sets training+recording and restores the previous state."""

    def __init__(self, enter_state):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section():
    """A scope that records operations for gradients and runs them in training mode."""
    return TrainingStateScope(True)


def test_section():
    """A scope that neither records nor trains (inside a train section)."""
    return TrainingStateScope(False)


def mark_variables(variables, gradients, grad_reqs='write'):
    """Attach gradient buffers ``gradients`` to ``variables`` (see autograd.mark_variables)."""
    _autograd.mark_variables(variables, gradients, grad_reqs)


def backward(outputs, out_grads=None, retain_graph=False):
    """Back-propagate from ``outputs`` (a list of NDArrays) into the marked variables."""
    if not isinstance(outputs, (list, tuple)):
        raise TypeError('outputs must be a list or tuple of NDArrays')
    _autograd.backward(outputs, head_grads=out_grads, retain_graph=retain_graph)


def compute_gradient(outputs):
    """Deprecated spelling of :func:`backward`."""
    backward(outputs)


def grad_and_loss(func, argnum=None):
    """Wrap ``func`` so that it returns (gradients of the chosen arguments, outputs)."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = args
        if argnum is not None:
            variables = [args[i] for i in (argnum if isinstance(argnum, list) else [argnum])]
        for x in variables:
            if not isinstance(x, NDArray):
                raise TypeError('type of autograd input should NDArray, found %s'
                                % type(x).__name__)
        grads = [x.zeros_like() for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Wrap ``func`` so that it returns the gradients of the chosen arguments."""
    with_loss = grad_and_loss(func, argnum)

    @functools.wraps(with_loss)
    def wrapped(*args):
        return with_loss(*args)[0]
    return wrapped
