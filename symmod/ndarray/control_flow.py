"""``mx.nd.contrib.foreach`` / ``while_loop`` / ``cond``: control flow run imperatively.

The user's functions are called on NDArrays step by step, so autograd records the
operators they run and gradients flow through the loop as through any Python code.
Inputs and outputs may be NDArrays or (nested) lists of NDArrays.
"""
from ..base import MXNetError
from .ndarray import NDArray, empty

__all__ = ['foreach', 'while_loop', 'cond']


def flatten(items, leaf, what):
    """Flat list of the ``leaf`` instances in ``items`` (one or a nested list of them) and
    the nesting format :func:`regroup` rebuilds it from."""
    if isinstance(items, leaf):
        return [items], 0
    if not isinstance(items, (list, tuple)):
        raise MXNetError('%s must be an %s or a (nested) list of them, found %s'
                         % (what, leaf.__name__, type(items).__name__))
    flat, fmt = [], []
    for item in items:
        sub, sub_fmt = flatten(item, leaf, what)
        flat.extend(sub)
        fmt.append(sub_fmt)
    return flat, fmt


def regroup(flat, fmt):
    """Inverse of :func:`flatten`: (the rebuilt items, what is left of ``flat``)."""
    if fmt == 0:
        return flat[0], flat[1:]
    items = []
    for sub in fmt:
        item, flat = regroup(flat, sub)
        items.append(item)
    return items, flat


def _flatten(items, what):
    return flatten(items, NDArray, what)


_regroup = regroup


def _scalar(value, kind, what):
    if isinstance(value, NDArray):
        value = value.asscalar()
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError('Cannot convert %s to python %s' % (what, kind.__name__)) from None


def foreach(body, data, init_states):
    """Run ``body(data_slice, states) -> (outputs, new_states)`` over the slices of
    ``data`` along axis 0; returns the outputs stacked over the steps and the final
    states."""
    from . import stack
    flat_data, data_fmt = _flatten(data, 'data')
    states = init_states
    steps = flat_data[0].shape[0] if flat_data else 0
    outputs, out_fmt = [], None
    for t in range(steps):
        sliced = _regroup([d[t] for d in flat_data], data_fmt)[0]
        outs, states = body(sliced, states)
        flat_outs, out_fmt = _flatten(outs if outs is not None else [], 'foreach outputs')
        outputs.append(flat_outs)
    if out_fmt is None:
        return [], states
    stacked = [stack(*items, axis=0) for items in zip(*outputs)]
    return _regroup(stacked, out_fmt)[0], states


def while_loop(cond, func, loop_vars, max_iterations=None):
    """Run ``func(*loop_vars) -> (step_output, new_loop_vars)`` while ``cond(*loop_vars)``
    holds, at most ``max_iterations`` times. Step outputs are stacked along axis 0 and
    padded to ``max_iterations`` rows (the padding is unspecified, as in MXNet)."""
    from . import concat
    if max_iterations is None:
        raise ValueError('max_iterations should be specified')
    max_iterations = _scalar(max_iterations, int, 'max_iteration')
    single = isinstance(loop_vars, NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    if not loop_vars:
        raise ValueError('loop_vars should contain at least one element')
    steps, outputs, out_fmt = 0, [], None
    while steps < max_iterations and _scalar(cond(*loop_vars), bool, 'Return value of cond'):
        step_output, new_vars = func(*loop_vars)
        new_vars = [] if new_vars is None else \
            [new_vars] if isinstance(new_vars, NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError('The length of loop_vars should be consistent during the loop')
        loop_vars = new_vars
        flat, out_fmt = _flatten(step_output if step_output is not None else [],
                                 'while output')
        if outputs and len(flat) != len(outputs[0]):
            raise ValueError('Number of elements in step_output should be the same in each '
                             'step')
        outputs.append(flat)
        steps += 1
    stacked = []
    for items in zip(*outputs):
        rows = [x.expand_dims(0) for x in items]
        if steps < max_iterations:
            rows.append(empty((max_iterations - steps,) + items[0].shape, items[0].context,
                              items[0].dtype))
        stacked.append(concat(*rows, dim=0))
    if out_fmt is not None:
        stacked = _regroup(stacked, out_fmt)[0]
    return stacked, loop_vars[0] if single else loop_vars


def cond(pred, then_func, else_func):
    """``then_func()`` when the scalar ``pred`` is true, else ``else_func()``."""
    return then_func() if _scalar(pred, bool, 'pred') else else_func()
