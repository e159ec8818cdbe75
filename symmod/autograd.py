"""Imperative automatic differentiation: record ``nd`` operator calls, then backward.

While recording, every operator call made through ``mx.nd`` is appended to a tape
with its operator instance, inputs and outputs. ``backward`` walks the tape in
reverse and calls each operator's own ``backward`` from the registry, so the
gradients are the same code the symbolic executor runs.
"""
import threading

import numpy as np

from .base import MXNetError

__all__ = ['record', 'pause', 'train_mode', 'predict_mode', 'is_recording', 'is_training',
           'set_recording', 'set_training', 'mark_variables', 'backward', 'grad']


class _State(threading.local):
    def __init__(self):
        super().__init__()
        self.recording = False
        self.training = False


_STATE = _State()


def is_recording():
    """Whether operator calls are being recorded for gradient computation."""
    return _STATE.recording


def is_training():
    """Whether operators run in training mode (Dropout active, BatchNorm batch stats)."""
    return _STATE.training


def set_recording(is_recording):  # pylint: disable=redefined-outer-name
    """Set recording on or off; returns the previous state."""
    prev = _STATE.recording
    _STATE.recording = bool(is_recording)
    return prev


def set_training(train_mode):  # pylint: disable=redefined-outer-name
    """Set training mode on or off; returns the previous state."""
    prev = _STATE.training
    _STATE.training = bool(train_mode)
    return prev


class _RecordingStateScope:
    """Scope that sets recording / training state and restores it on exit."""

    def __init__(self, is_record, train_mode):  # pylint: disable=redefined-outer-name
        self._enter_is_record = is_record
        self._enter_train_mode = train_mode
        self._prev_is_record = None
        self._prev_train_mode = None

    def __enter__(self):
        if self._enter_is_record is not None:
            self._prev_is_record = set_recording(self._enter_is_record)
        if self._enter_train_mode is not None:
            self._prev_train_mode = set_training(self._enter_train_mode)

    def __exit__(self, ptype, value, trace):
        if self._enter_is_record is not None:
            set_recording(self._prev_is_record)
        if self._enter_train_mode is not None:
            set_training(self._prev_train_mode)


def record(train_mode=True):  # pylint: disable=redefined-outer-name
    """Scope in which operator calls are recorded for ``backward``.

    Examples
    --------
    >>> x = mx.nd.array([1, 2]); x.attach_grad()
    >>> with mx.autograd.record():
    ...     y = x * x
    >>> y.backward(); x.grad
    """
    return _RecordingStateScope(True, train_mode)


def pause(train_mode=False):  # pylint: disable=redefined-outer-name
    """Scope in which recording is off (e.g. for metric computation inside record)."""
    return _RecordingStateScope(False, train_mode)


def train_mode():
    """Scope forcing training-mode operator behaviour without changing recording."""
    return _RecordingStateScope(None, True)


def predict_mode():
    """Scope forcing inference-mode operator behaviour without changing recording."""
    return _RecordingStateScope(None, False)


# ---- the tape -----------------------------------------------------------------------
class _TapeNode:
    """One recorded operator call: enough to run its backward later."""
    __slots__ = ('seq', 'op', 'in_entries', 'in_data', 'aux', 'out_data', 'n_visible')
    _counter = 0

    def __init__(self, op, inputs, outputs):
        _TapeNode._counter += 1
        self.seq = _TapeNode._counter
        self.op = op
        n_args = len(op.list_arguments())
        self.in_entries = [x._ag_entry for x in inputs[:n_args]]
        self.in_data = [x._host() for x in inputs[:n_args]]
        self.aux = [x._host() for x in inputs[n_args:]]
        self.out_data = [y._host() for y in outputs]
        self.n_visible = op.num_visible_outputs()


class _Variable:
    """A leaf marked by ``mark_variables``: where its gradient goes."""
    __slots__ = ('array', 'grad', 'req')

    def __init__(self, array, grad, req):
        self.array = array
        self.grad = grad
        self.req = req


def _record_op(op, inputs, outputs):
    """Append an operator call to the tape if any input depends on a variable."""
    if not any(x._ag_entry is not None for x in inputs):
        return
    node = _TapeNode(op, inputs, outputs)
    for i, y in enumerate(outputs):
        y._ag_entry = (node, i)


def mark_variables(variables, gradients, grad_reqs='write'):
    """Mark NDArrays as variables whose gradients ``backward`` computes.

    Parameters
    ----------
    variables : NDArray or list of NDArray
    gradients : NDArray or list of NDArray
        Buffers receiving the gradients.
    grad_reqs : str or list of str
        'write', 'add' or 'null' for each variable.
    """
    from .ndarray.ndarray import NDArray
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    for var, grad, req in zip(variables, gradients, grad_reqs):
        if req not in ('write', 'add', 'null'):
            raise ValueError("grad_req must be 'write', 'add' or 'null', found %r" % req)
        var._grad = grad
        var._grad_req = req
        var._ag_entry = (_Variable(var, grad, req), 0)


def _collect(heads):
    """All tape nodes the heads depend on, newest first."""
    seen = {}
    stack = [h._ag_entry[0] for h in heads if h._ag_entry is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, _Variable) or id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(e[0] for e in node.in_entries if e is not None)
    return sorted(seen.values(), key=lambda n: n.seq, reverse=True)


def _run_backward(heads, head_grads, train_mode):  # pylint: disable=redefined-outer-name
    if any(h._ag_entry is None for h in heads):
        raise MXNetError('Cannot differentiate node because it is not in a computational '
                         'graph. You need to set is_recording to true or use autograd.record() '
                         'to save computational graphs for backward.')
    grads = {}          # id(entry owner), index -> accumulated numpy gradient

    def add_grad(entry, value):
        key = (id(entry[0]), entry[1])
        if key in grads:
            grads[key][1][...] += value
        else:
            grads[key] = (entry, np.array(value, copy=True))

    for i, head in enumerate(heads):
        hg = None if head_grads is None else head_grads[i]
        value = np.ones(head.shape, dtype=head.dtype) if hg is None else hg._host()
        add_grad(head._ag_entry, value)
    prev = set_training(train_mode)
    try:
        for node in _collect(heads):
            out_grad = []
            for i in range(node.n_visible):
                got = grads.pop((id(node), i), None)
                out_grad.append(got[1] if got is not None
                                else np.zeros_like(node.out_data[i]))
            in_grad = [np.zeros_like(a) for a in node.in_data]
            req = ['write' if e is not None else 'null' for e in node.in_entries]
            if any(r == 'write' for r in req):
                node.op.backward(req, out_grad, node.in_data, node.out_data, in_grad, node.aux)
            for entry, g, r in zip(node.in_entries, in_grad, req):
                if r != 'null':
                    add_grad(entry, g)
    finally:
        set_training(prev)
    return grads


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # pylint: disable=redefined-outer-name
    """Compute the gradients of ``heads`` with respect to the marked variables.

    Parameters
    ----------
    heads : NDArray or list of NDArray
        Output arrays of recorded computation.
    head_grads : NDArray or list of NDArray or None
        Gradients flowing into the heads; ones when None.
    retain_graph : bool
        Kept for MXNet compatibility; the tape is always kept until its arrays die.
    train_mode : bool
        Whether backward runs in training mode.
    """
    from .ndarray.ndarray import NDArray
    if isinstance(heads, NDArray):
        heads = [heads]
        if isinstance(head_grads, NDArray):
            head_grads = [head_grads]
    grads = _run_backward(heads, head_grads, train_mode)
    for (owner, _), value in grads.values():
        if isinstance(owner, _Variable) and owner.req != 'null':
            if owner.req == 'add':
                owner.grad[:] = owner.grad._host() + value
            else:
                owner.grad[:] = value


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):  # pylint: disable=redefined-outer-name
    """Return the gradients of ``heads`` with respect to ``variables`` as new arrays."""
    from .ndarray.ndarray import NDArray, array
    if create_graph:
        raise MXNetError('autograd.grad(create_graph=True) (higher-order gradients) is '
                         'not supported by symmod')
    if isinstance(heads, NDArray):
        heads = [heads]
        if isinstance(head_grads, NDArray):
            head_grads = [head_grads]
    single = isinstance(variables, NDArray)
    if single:
        variables = [variables]
    grads = _run_backward(heads, head_grads, train_mode)
    result = []
    for var in variables:
        if var._ag_entry is None:
            raise MXNetError('variable is not marked: call attach_grad or mark_variables')
        found = grads.get((id(var._ag_entry[0]), 0))
        value = found[1] if found is not None else np.zeros(var.shape, dtype=var.dtype)
        result.append(array(value, ctx=var.context, dtype=var.dtype))
    return result[0] if single else result

