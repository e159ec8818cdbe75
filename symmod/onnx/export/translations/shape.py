"""Shape and layout: Reshape (MXNet's special codes), Flatten, transpose, SwapAxis,
expand_dims, squeeze, Concat, stack, SliceChannel, slice, slice_axis, slice_like, take,
pick, tile, repeat, reverse, broadcast_to / axis / like, Pad, depth/space, Cast,
constant arrays, arange_like, shape_array, size_array, one_hot.

A reshape target is written from the output shape symmod infers, not by re-deriving
MXNet's codes: dimensions that stay fixed are literal sizes, a dimension that follows
the input's at the same position is ONNX's 0 (copy), and at most one other varying
dimension is -1 (infer). Only when two varying dimensions move do the sizes come from
the input's Shape at run time.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, slice_axes, split, squeeze, unsqueeze

_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


def reshape_to_output(g, node, x, out, in_index=0, in_key=None):
    """Reshape ``x`` (node input ``in_index``, or the entry ``in_key``) to the node's
    output shape, letting varying dimensions vary."""
    in_key = node.keys[in_index] if in_key is None else in_key
    out_key = node.out_keys[0]
    in_shape, out_shape = g.shapes[in_key], node.out_shape(0)
    varying = node.out_varying(0)
    target, free = [], []
    for j, size in enumerate(out_shape):
        if j not in varying:
            target.append(size)
        elif j < len(in_shape) and g.same_size(out_key, j, in_key, j):
            target.append(0)
        else:
            target.append(-1)
            free.append(j)
    if len(free) <= 1:
        return reshape_to(g, x, target, out, hint=node.name + '_reshape')
    # several dims move independently: build the target from the input's shape
    shape = g.add('Shape', [x], hint=node.name + '_inshape')
    sizes = [g.entry_sizes(in_key, k) for k in range(len(in_shape))]
    sources = {j: _dim_source(g.entry_sizes(out_key, j), sizes) for j in free}
    unresolved = [j for j in free if sources[j] is None]
    if len(unresolved) > 1:
        node.fail('output dimensions %s vary with the input in a way ONNX Reshape cannot '
                  'express' % unresolved)
    parts = []
    for j, size in enumerate(target):
        if j not in free or sources[j] is None:
            parts.append(g.int64s([size], 'dim'))
            continue
        picked = g.add('Gather', [shape, g.int64s(sources[j], 'index')],
                       hint=node.name + '_dim')
        if len(sources[j]) == 2:
            picked = g.add('ReduceProd', [picked], hint=node.name + '_dims', keepdims=1)
        parts.append(picked)
    full = g.add('Concat', parts, hint=node.name + '_target', axis=0)
    return g.add('Reshape', [x, full], None if out is None else [out])


def _dim_source(wanted, sizes):
    """The input dims (one, or two adjacent multiplied) whose sizes are ``wanted`` for
    every input size tried, or None."""
    for k, size in enumerate(sizes):
        if size == wanted:
            return [k]
    for k in range(len(sizes) - 1):
        if [a * b for a, b in zip(sizes[k], sizes[k + 1])] == wanted:
            return [k, k + 1]
    return None


@translator('Reshape')
def reshape(g, node):
    reshape_to_output(g, node, node.input(0), node.outputs[0])


@translator('reshape_like')
def reshape_like(g, node):
    reshape_to_output(g, node, node.input(0), node.outputs[0])


@translator('Flatten')
def flatten(g, node):
    g.add('Flatten', [node.input(0)], [node.outputs[0]], axis=1)


@translator('transpose')
def transpose(g, node):
    rank = len(node.in_shape(0))
    perm = list(node.op.axes) if node.op.axes else list(range(rank))[::-1]
    g.add('Transpose', [node.input(0)], [node.outputs[0]], perm=[p % rank for p in perm])


@translator('SwapAxis')
def swap_axis(g, node):
    rank = len(node.in_shape(0))
    perm = list(range(rank))
    a, b = node.op.dim1 % rank, node.op.dim2 % rank
    perm[a], perm[b] = perm[b], perm[a]
    g.add('Transpose', [node.input(0)], [node.outputs[0]], perm=perm)


@translator('expand_dims')
def expand_dims(g, node):
    rank = len(node.in_shape(0)) + 1
    unsqueeze(g, node.input(0), [node.op.axis % rank], node.outputs[0])


@translator('squeeze')
def squeeze_op(g, node):
    shape, rank = node.in_shape(0), len(node.in_shape(0))
    if node.op.axis is None:
        axes = [a for a, s in enumerate(shape) if s == 1 and a not in node.in_varying(0)]
    else:
        axes = sorted(a % rank for a in node.op.axis)
    if len(axes) == rank:
        # MXNet keeps one dimension when everything is squeezed away
        reshape_to(g, node.input(0), [1], node.outputs[0])
    elif axes:
        squeeze(g, node.input(0), axes, node.outputs[0])
    else:
        g.add('Identity', [node.input(0)], [node.outputs[0]])


@translator('Concat')
def concat(g, node):
    rank = len(node.in_shape(0))
    g.add('Concat', [node.input(i) for i in range(node.num_inputs)], [node.outputs[0]],
          axis=node.op.dim % rank)


@translator('stack')
def stack(g, node):
    rank = len(node.in_shape(0)) + 1
    axis = node.op.axis % rank
    parts = [unsqueeze(g, node.input(i), [axis], hint=node.name + '_part')
             for i in range(node.num_inputs)]
    g.add('Concat', parts, [node.outputs[0]], axis=axis)


@translator('SliceChannel')
def slice_channel(g, node):
    op = node.op
    rank = len(node.in_shape(0))
    axis = op.axis % rank
    n = op.num_outputs
    sizes = None if axis in node.in_varying(0) else [node.in_shape(0)[axis] // n] * n
    if not op.squeeze_axis:
        split(g, node.input(0), axis, n, sizes, node.outputs[:n])
        return
    parts = split(g, node.input(0), axis, n, sizes, hint=node.name + '_part')
    for part, out in zip(parts, node.outputs[:n]):
        squeeze(g, part, [axis], out)


@translator('slice')
def slice_op(g, node):
    op = node.op
    begin, end = list(op.begin), list(op.end)
    steps = list(op.step or ()) + [None] * (len(begin) - len(op.step or ()))
    starts, ends, step_values = [], [], []
    for b, e, s in zip(begin, end, steps):
        s = 1 if s is None else s
        if s > 0:
            starts.append(0 if b is None else b)
            ends.append(_INT64_MAX if e is None else e)
        else:
            starts.append(_INT64_MAX if b is None else b)
            ends.append(_INT64_MIN if e is None else e)
        step_values.append(s)
    slice_axes(g, node.input(0), starts, ends, list(range(len(begin))), step_values,
               node.outputs[0])


@translator('slice_axis')
def slice_axis(g, node):
    op = node.op
    end = _INT64_MAX if op.end is None else op.end
    slice_axes(g, node.input(0), [op.begin], [end], [op.axis], out=node.outputs[0])


@translator('slice_like')
def slice_like(g, node):
    rank = len(node.in_shape(0))
    axes = [a % rank for a in node.op.axes] if node.op.axes else list(range(rank))
    like_shape = g.add('Shape', [node.input(1)], hint=node.name + '_like')
    ends = g.add('Gather', [like_shape, g.int64s(axes, 'axes')], hint=node.name + '_ends')
    g.add('Slice', [node.input(0), g.int64s([0] * len(axes), 'starts'), ends,
                    g.int64s(axes, 'axes')], [node.outputs[0]])


def _indices(g, node, index_input, size, mode):
    """Integer indices into an axis of ``size`` following MXNet's out-of-range ``mode``."""
    indices = cast(g, node.input(index_input), np.int64, hint=node.name + '_idx')
    if mode == 'clip':
        return g.add('Clip', [indices, g.constant(np.asarray(0, np.int64), 'zero'),
                              g.constant(np.asarray(size - 1, np.int64), 'last')],
                     hint=node.name + '_clipped')
    if mode == 'wrap':
        return g.add('Mod', [indices, g.constant(np.asarray(size, np.int64), 'size')],
                     hint=node.name + '_wrapped', fmod=0)
    return indices


@translator('take')
def take(g, node):
    op = node.op
    rank = len(node.in_shape(0))
    axis = op.axis % rank
    if axis in node.in_varying(0) and op.mode != 'raise':
        node.fail("mode='%s' along an axis whose size varies" % op.mode)
    indices = _indices(g, node, 1, node.in_shape(0)[axis], op.mode)
    g.add('Gather', [node.input(0), indices], [node.outputs[0]], axis=axis)


@translator('pick')
def pick(g, node):
    op = node.op
    rank = len(node.in_shape(0))
    if op.axis is None:
        node.fail('axis=None')
    axis = op.axis % rank
    if axis in node.in_varying(0):
        node.fail('picking along an axis whose size varies')
    indices = _indices(g, node, 1, node.in_shape(0)[axis], op.mode)
    if len(node.in_shape(1)) < rank:
        indices = unsqueeze(g, indices, [axis], hint=node.name + '_idx_axis')
    if op.keepdims:
        g.add('GatherElements', [node.input(0), indices], [node.outputs[0]], axis=axis)
    else:
        picked = g.add('GatherElements', [node.input(0), indices], hint=node.name + '_picked',
                       axis=axis)
        squeeze(g, picked, [axis], node.outputs[0])


@translator('tile')
def tile(g, node):
    reps = list(node.op.reps)
    rank = len(node.in_shape(0))
    x = node.input(0)
    if len(reps) > rank:
        x = unsqueeze(g, x, list(range(len(reps) - rank)), hint=node.name + '_lead')
    reps = [1] * (rank - len(reps)) + reps
    g.add('Tile', [x, g.int64s(reps, 'repeats')], [node.outputs[0]])


@translator('repeat')
def repeat(g, node):
    op = node.op
    x, rank = node.input(0), len(node.in_shape(0))
    if op.axis is None:
        x = reshape_to(g, x, [-1], hint=node.name + '_flat')
        axis, rank = 0, 1
    else:
        axis = op.axis % rank
    spread = unsqueeze(g, x, [axis + 1], hint=node.name + '_spread')
    reps = [1] * (rank + 1)
    reps[axis + 1] = op.repeats
    tiled = g.add('Tile', [spread, g.int64s(reps, 'repeats')], hint=node.name + '_tiled')
    varying = node.out_varying(0)
    if any(a > axis for a in varying):
        node.fail('repeat with varying dimensions after the repeated axis')
    target = [0 if a in varying else size for a, size in enumerate(node.out_shape(0))]
    target[axis] = -1
    reshape_to(g, tiled, target, node.outputs[0])


@translator('reverse')
def reverse(g, node):
    rank = len(node.in_shape(0))
    axes = [a % rank for a in node.op.axis]
    slice_axes(g, node.input(0), [-1] * len(axes), [_INT64_MIN] * len(axes), axes,
               [-1] * len(axes), node.outputs[0])


@translator('broadcast_to', 'broadcast_axis', 'broadcast_like')
def broadcast_to(g, node):
    # Expand broadcasts both ways: a varying dimension given as 1 keeps the input's size
    varying = node.out_varying(0)
    target = [1 if a in varying else size for a, size in enumerate(node.out_shape(0))]
    g.add('Expand', [node.input(0), g.int64s(target, 'shape')], [node.outputs[0]])


@translator('Pad')
def pad(g, node):
    op = node.op
    widths = list(op.pad_width)
    pads = widths[0::2] + widths[1::2]
    inputs = [node.input(0), g.int64s(pads, 'pads')]
    if op.mode == 'constant':
        inputs.append(g.constant(np.asarray(op.constant_value, node.in_dtype(0)), 'value'))
    g.add('Pad', inputs, [node.outputs[0]], mode=op.mode)


@translator('depth_to_space')
def depth_to_space(g, node):
    g.add('DepthToSpace', [node.input(0)], [node.outputs[0]], blocksize=node.op.block_size,
          mode='DCR')


@translator('space_to_depth')
def space_to_depth(g, node):
    g.add('SpaceToDepth', [node.input(0)], [node.outputs[0]], blocksize=node.op.block_size)


@translator('Cast')
def cast_op(g, node):
    cast(g, node.input(0), node.op.dtype, node.outputs[0])


@translator('_zeros', '_zeros_without_dtype', '_ones', '_full')
def constant_array(g, node):
    """An array whose shape varies with the batch: size 1 there, broadcast by its users."""
    from ... import _deps
    value = {'_ones': 1.0, '_full': getattr(node.op, 'value', 0.0)}.get(node.op.name, 0.0)
    varying = node.out_varying(0)
    shape = [1 if a in varying else size for a, size in enumerate(node.out_shape(0))]
    helper = _deps.onnx().helper
    fill = helper.make_tensor('value', _deps.tensor_type(node.out_dtype()), [1],
                              [np.asarray(value, node.out_dtype()).item()])
    g.add('ConstantOfShape', [g.int64s(shape, 'shape')], [node.outputs[0]], value=fill)


@translator('zeros_like', 'ones_like')
def like(g, node):
    from ... import _deps
    value = 1 if node.op.name == 'ones_like' else 0
    helper = _deps.onnx().helper
    fill = helper.make_tensor('value', _deps.tensor_type(node.out_dtype()), [1],
                              [np.asarray(value, node.out_dtype()).item()])
    shape = g.add('Shape', [node.input(0)], hint=node.name + '_shape')
    g.add('ConstantOfShape', [shape], [node.outputs[0]], value=fill)


@translator('_contrib_arange_like')
def arange_like(g, node):
    """A constant for a fixed input shape; a Range over the input's size (or one axis of
    it) when the shape varies."""
    from ....ops.init import _range_values
    op, dtype = node.op, np.dtype(node.out_dtype())
    out_shape = node.out_shape(0)
    varying = node.in_varying(0)
    if op.axis is not None:
        varying = varying & {op.axis % len(node.in_shape(0))}
    if not varying:
        values = _range_values(int(np.prod(out_shape)), op.start, op.step, op.repeat, dtype)
        g.add('Identity', [g.constant(values.reshape(out_shape), node.name + '_values')],
              [node.outputs[0]])
        return
    shape = g.add('Shape', [node.input(0)], hint=node.name + '_shape')
    if op.axis is None:
        size = reduce(g, 'ReduceProd', shape, [0], keepdims=False, hint=node.name + '_size')
    else:
        axis = op.axis % len(node.in_shape(0))
        size = squeeze(g, slice_axes(g, shape, [axis], [axis + 1], [0],
                                     hint=node.name + '_axis'), [0], hint=node.name + '_n')
    positions = g.add('Range', [g.constant(np.asarray(0, np.int64), 'zero'), size,
                                g.constant(np.asarray(1, np.int64), 'one')],
                      hint=node.name + '_positions')
    if op.repeat > 1:
        positions = g.add('Div', [positions, g.constant(np.asarray(op.repeat, np.int64),
                                                        node.name + '_repeat')],
                          hint=node.name + '_repeated')
    start = _range_values(1, op.start, 0.0, 1, dtype)[0]      # in dtype, as the kernel's
    step = _range_values(2, 0.0, op.step, 1, dtype)[1]
    values = g.add('Add', [g.add('Mul', [cast(g, positions, dtype, hint=node.name + '_f'),
                                         g.constant(np.asarray(step), node.name + '_step')],
                                 hint=node.name + '_scaled'),
                           g.constant(np.asarray(start), node.name + '_start')],
                   hint=node.name + '_flat')
    if op.axis is None:
        g.add('Reshape', [values, shape], [node.outputs[0]])
    else:
        g.add('Identity', [values], [node.outputs[0]])


@translator('shape_array')
def shape_array(g, node):
    shape = g.add('Shape', [node.input(0)], hint=node.name + '_shape')
    cast(g, shape, node.out_dtype(), node.outputs[0])


@translator('size_array')
def size_array(g, node):
    size = g.add('Size', [node.input(0)], hint=node.name + '_size')
    reshaped = reshape_to(g, size, [1], hint=node.name + '_vec')
    cast(g, reshaped, node.out_dtype(), node.outputs[0])


@translator('one_hot')
def one_hot(g, node):
    op = node.op
    indices = cast(g, node.input(0), np.int64, hint=node.name + '_idx')
    values = g.constant(np.asarray([op.off_value, op.on_value], node.out_dtype()), 'values')
    g.add('OneHot', [indices, g.int64s([op.depth], 'depth'), values], [node.outputs[0]],
          axis=-1)
