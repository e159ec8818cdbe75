"""ONNX building blocks whose form changed between opsets, shared by the translators.

ONNX moved several attributes to inputs over time (ReduceSum's axes and Split's sizes
in opset 13, the other reductions' axes in 18, Squeeze/Unsqueeze axes in 13) and
changed Softmax from "flatten at axis" to "along axis" in 13. These helpers emit the
form the target opset wants, so the translators read the same for every opset.
"""
import numpy as np

from ... import _deps

__all__ = ['reduce', 'unsqueeze', 'squeeze', 'split', 'slice_axes', 'softmax', 'cast',
           'scalar', 'unary', 'passthrough', 'reshape_to', 'batch_positions']

_AXES_INPUT_SINCE = {'ReduceSum': 13}     # other Reduce* ops: 18


def reduce(g, op_type, x, axes, keepdims, out=None, hint=None):
    """``op_type`` (ReduceSum, ReduceMean, ...) over ``axes`` (None: all axes)."""
    inputs, attrs = [x], {'keepdims': int(bool(keepdims))}
    if axes is not None:
        if g.opset >= _AXES_INPUT_SINCE.get(op_type, 18):
            inputs.append(g.int64s(list(axes), 'axes'))
        else:
            attrs['axes'] = [int(a) for a in axes]
    return g.add(op_type, inputs, _outs(out), hint, **attrs)


def unsqueeze(g, x, axes, out=None, hint=None):
    if g.opset >= 13:
        return g.add('Unsqueeze', [x, g.int64s(list(axes), 'axes')], _outs(out), hint)
    return g.add('Unsqueeze', [x], _outs(out), hint, axes=[int(a) for a in axes])


def squeeze(g, x, axes, out=None, hint=None):
    if g.opset >= 13:
        return g.add('Squeeze', [x, g.int64s(list(axes), 'axes')], _outs(out), hint)
    return g.add('Squeeze', [x], _outs(out), hint, axes=[int(a) for a in axes])


def split(g, x, axis, count, sizes, outs=None, hint=None):
    """Split ``x`` along ``axis`` into ``count`` parts of ``sizes`` (None: equal parts)."""
    outputs = list(outs) if outs is not None else count
    inputs, attrs = [x], {'axis': int(axis)}
    if sizes is not None:
        if g.opset >= 13:
            inputs.append(g.int64s(list(sizes), 'split'))
        else:
            attrs['split'] = [int(s) for s in sizes]
    elif g.opset >= 18:
        attrs['num_outputs'] = int(count)
    result = g.add('Split', inputs, outputs, hint, **attrs)
    return [result] if count == 1 else result


def slice_axes(g, x, starts, ends, axes, steps=None, out=None, hint=None):
    """ONNX Slice with constant starts / ends / axes / steps."""
    inputs = [x, g.int64s(starts, 'starts'), g.int64s(ends, 'ends'), g.int64s(axes, 'axes')]
    if steps is not None:
        inputs.append(g.int64s(steps, 'steps'))
    return g.add('Slice', inputs, _outs(out), hint)


def softmax(g, x, axis, rank, out=None, hint=None, op_type='Softmax'):
    """Softmax (or LogSoftmax) along one axis, as opset 13 defines it, at any opset."""
    axis = axis % rank
    if g.opset >= 13 or axis == rank - 1:
        return g.add(op_type, [x], _outs(out), hint, axis=axis if g.opset >= 13 else -1)
    # before 13 Softmax normalizes the flattened trailing block: move the axis last
    perm = [a for a in range(rank) if a != axis] + [axis]
    back = [int(i) for i in np.argsort(perm)]
    moved = g.add('Transpose', [x], hint=hint, perm=perm)
    y = g.add(op_type, [moved], hint=hint, axis=rank - 1)
    return g.add('Transpose', [y], _outs(out), hint, perm=back)


def cast(g, x, dtype, out=None, hint=None):
    return g.add('Cast', [x], _outs(out), hint, to=_deps.tensor_type(dtype))


def scalar(g, value, dtype, hint='scalar'):
    """A 0-d initializer of ``dtype``."""
    return g.constant(np.asarray(value, dtype=np.dtype(dtype)), hint)


def unary(onnx_op):
    """A translator applying one ONNX operator to the node's single input."""
    def translate(g, node):
        g.add(onnx_op, [node.input(0)], [node.outputs[0]])
    translate.__name__ = 'to_%s' % onnx_op
    return translate


def passthrough(g, node):
    """Inference-time identity (Dropout, BlockGrad, regression heads, ...)."""
    g.add('Identity', [node.input(0)], [node.outputs[0]])


def reshape_to(g, x, shape, out=None, hint=None):
    """Reshape to a constant target (may hold ONNX's 0 = copy and -1 = infer)."""
    return g.add('Reshape', [x, g.int64s(list(shape), 'shape')], _outs(out), hint)


def _outs(out):
    return None if out is None else [out]


def batch_positions(g, x, items, hint):
    """int64 (items, 1): each batch item's position along the first axis of ``x``; a
    constant when ``items`` is known, else an ONNX Range over that axis's size (which
    symmod's import reads back as the positions along it)."""
    if items is not None:
        return g.constant(np.arange(items, dtype=np.int64).reshape(-1, 1), hint + '_item_ids')
    size = squeeze(g, slice_axes(g, g.add('Shape', [x], hint=hint + '_shape'), [0], [1], [0],
                                 hint=hint + '_n'), [0], hint=hint + '_items')
    positions = g.add('Range', [g.constant(np.asarray(0, np.int64), 'zero'), size,
                                g.constant(np.asarray(1, np.int64), 'one')],
                      hint=hint + '_item_positions')
    return reshape_to(g, positions, [-1, 1], hint=hint + '_item_column')
