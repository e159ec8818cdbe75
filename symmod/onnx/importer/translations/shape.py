"""Reshape, Flatten, Transpose, Squeeze / Unsqueeze, Concat, Split, Slice, Gather,
GatherElements, Tile, Expand, Pad, DepthToSpace / SpaceToDepth, Shape, Size,
ConstantOfShape, OneHot, Resize."""
import numpy as np

from ..registry import translator

_BIG = 2 ** 62


def _sym():
    from .... import symbol
    return symbol


@translator('Reshape')
def reshape(g, node):
    S = _sym()
    source = g.shape_of.get(node.inputs[1])
    if source is not None:
        return S.reshape_like(node.sym(0), g.symbol(source), name=node.name)
    shape = node.required_const(1, 'target shape')
    if node.attrs.get('allowzero', 0) and 0 in shape:
        node.fail('allowzero=1 with a 0 in the shape')
    if len(shape) == 0:     # a 0-d tensor: (1,) in symmod's symbols, which have no 0-d
        shape = [1]
    # ONNX's 0 (copy the dimension) and -1 (infer) mean the same in MXNet
    return S.Reshape(node.sym(0), shape=tuple(int(d) for d in shape), name=node.name)


@translator('Flatten')
def flatten(g, node):
    S = _sym()
    axis = node.attrs.get('axis', 1)
    shape = node.shape(0)
    if axis < 0:
        if shape is None:
            node.fail('negative axis with an unknown rank')
        axis += len(shape)
    if axis == 1:
        return S.Flatten(node.sym(0), name=node.name)
    if axis == 0:
        return S.Reshape(node.sym(0), shape=(1, -1), name=node.name)
    if shape is None or None in shape[:axis]:
        node.fail('axis %d with leading dimensions of unknown size' % axis)
    return S.Reshape(node.sym(0), shape=(int(np.prod(shape[:axis])), -1), name=node.name)


@translator('Transpose')
def transpose(g, node):
    perm = node.attrs.get('perm')
    return _sym().transpose(node.sym(0), axes=tuple(perm) if perm else (), name=node.name)


def _axes_input(node, index=1):
    axes = node.attrs.get('axes')
    if axes is None and node.has(index):
        axes = node.required_const(index, 'axes').tolist()
    return None if axes is None else [int(a) for a in axes]


@translator('Squeeze')
def squeeze(g, node):
    axes = _axes_input(node)
    if node.inputs[0] in g.dims_of:     # one dimension of a shape, now a scalar
        g.dims_of[node.outputs[0]] = g.dims_of[node.inputs[0]]
    return _sym().squeeze(node.sym(0), axis=None if axes is None else tuple(axes),
                          name=node.name)


@translator('Unsqueeze')
def unsqueeze(g, node):
    S = _sym()
    axes = _axes_input(node)
    shape = node.shape(0)
    rank = None if shape is None else len(shape) + len(axes)
    if rank is None and any(a < 0 for a in axes):
        node.fail('negative axes with an unknown rank')
    result = node.sym(0)
    ordered = sorted(a % rank if rank else a for a in axes)
    for i, axis in enumerate(ordered):
        result = S.expand_dims(result, axis=axis,
                               name=node.name if i == len(ordered) - 1 else None)
    return result


@translator('Concat')
def concat(g, node):
    parts = [node.sym(i) for i in range(len(node.inputs)) if node.has(i)]
    return _sym().Concat(*parts, dim=node.attrs['axis'], name=node.name)


@translator('Split')
def split(g, node):
    S = _sym()
    axis = node.attrs.get('axis', 0)
    count = len(node.outputs)
    sizes = node.attrs.get('split')
    if sizes is None and node.has(1):
        sizes = node.required_const(1, 'split').tolist()
    if not sizes or len(set(sizes)) == 1:
        parts = S.SliceChannel(node.sym(0), num_outputs=count, axis=axis, name=node.name)
        return [parts[i] for i in range(count)] if count > 1 else [parts]
    bounds = np.cumsum([0] + list(sizes))
    return [S.slice_axis(node.sym(0), axis=axis, begin=int(b), end=int(e))
            for b, e in zip(bounds[:-1], bounds[1:])]


@translator('Slice')
def slice_op(g, node):
    S = _sym()
    like = g.dims_of.get(node.inputs[2])
    starts = node.const(1)
    if like is not None and starts is not None and not np.any(starts):
        # ends taken from another tensor's shape on the sliced axes: MXNet's slice_like
        source, dims = like
        axes = node.const(3).tolist() if node.has(3) else list(range(len(dims)))
        if axes == dims and not node.has(4):
            return S.slice_like(node.sym(0), g.symbol(source), axes=tuple(axes),
                                name=node.name)
    starts = node.required_const(1, 'starts').tolist()
    ends = node.required_const(2, 'ends').tolist()
    source = g.shape_of.get(node.inputs[0])
    if source is not None and len(starts) == 1 and ends[0] == starts[0] + 1 >= 1:
        g.dims_of[node.outputs[0]] = (source, [int(starts[0])])
    shape = node.shape(0)
    axes = node.const(3).tolist() if node.has(3) else list(range(len(starts)))
    steps = node.const(4).tolist() if node.has(4) else [1] * len(starts)
    if len(axes) == 1 and steps[0] == 1:
        end = None if ends[0] >= _BIG else int(ends[0])
        return S.slice_axis(node.sym(0), axis=int(axes[0]), begin=int(starts[0]), end=end,
                            name=node.name)
    if shape is None or any(a < 0 for a in axes) and shape is None:
        node.fail('slicing several axes of data with an unknown rank')
    rank = len(shape)
    begin, end, step = [None] * rank, [None] * rank, [None] * rank
    for a, b, e, s in zip(axes, starts, ends, steps):
        a %= rank
        forward = s > 0
        begin[a] = None if (b >= _BIG or b <= -_BIG) else int(b)
        end[a] = None if (forward and e >= _BIG or not forward and e <= -_BIG) else int(e)
        step[a] = int(s)
    last = max(a % rank for a in axes) + 1
    return S.slice(node.sym(0), begin=tuple(begin[:last]), end=tuple(end[:last]),
                   step=tuple(step[:last]), name=node.name)


@translator('Gather')
def gather(g, node):
    S = _sym()
    axis = node.attrs.get('axis', 0)
    weight = node.const(0)
    source, picked = g.shape_of.get(node.inputs[0]), node.const(1)
    if source is not None and picked is not None and picked.ndim <= 1:
        g.dims_of[node.outputs[0]] = (source, [int(i) for i in picked.reshape(-1)])
    indices = node.sym(1)
    if weight is not None and weight.ndim == 2 and axis == 0:
        # a lookup table: MXNet's Embedding, keeping the table as its weight
        return S.Embedding(indices, node.sym(0), input_dim=weight.shape[0],
                           output_dim=weight.shape[1], dtype=weight.dtype.name,
                           name=node.name)
    return S.take(node.sym(0), indices, axis=axis, mode='wrap', name=node.name)


@translator('GatherElements')
def gather_elements(g, node):
    axis = node.attrs.get('axis', 0)
    shape, index_shape = node.shape(0), node.shape(1)
    if shape is None or index_shape is None or index_shape[axis] != 1 or any(
            i != s for k, (i, s) in enumerate(zip(index_shape, shape)) if k != axis % len(shape)):
        node.fail('indices that pick more than one element per position')
    S = _sym()
    index = S.squeeze(node.sym(1), axis=(axis,))
    return S.pick(node.sym(0), index, axis=axis, keepdims=True, mode='wrap', name=node.name)


@translator('GatherND')
def gather_nd(g, node):
    """gather_nd with the index tuples first; ``batch_dims`` leading axes shared by data
    and indices become leading tuple entries (each index's own position on them)."""
    rank = None if node.shape(1) is None else len(node.shape(1))
    if rank is None:
        node.fail('indices of unknown rank')
    S = _sym()
    indices = node.sym(1)
    batch_dims = node.attrs.get('batch_dims', 0)
    if batch_dims:
        positions = S.contrib.index_array(indices, axes=tuple(range(batch_dims)))
        positions = S.reshape(S.slice_axis(positions, axis=rank - 1, begin=0, end=1),
                              shape=(0,) * (rank - 1) + (-1,))
        indices = S.concat(S.cast(positions, dtype=g.types.get(node.inputs[1], 'int64')),
                           indices, dim=rank - 1)
    tuples = S.transpose(indices, axes=(rank - 1,) + tuple(range(rank - 1)))
    return S.gather_nd(node.sym(0), tuples, name=node.name)


def _no_reduction(node):
    if node.attrs.get('reduction', 'none') != 'none':
        node.fail('reduction=%s' % node.attrs['reduction'])


@translator('ScatterND')
def scatter_nd(g, node):
    """``data`` with the indexed slices replaced by ``updates``: where a scatter of ones
    marks them, the scatter of the updates, elsewhere the data."""
    _no_reduction(node)
    shape, index_shape = node.shape(0), node.shape(1)
    if shape is None or index_shape is None or None in shape:
        node.fail('data of unknown shape')
    S = _sym()
    rank = len(index_shape)
    tuples = S.transpose(node.sym(1), axes=(rank - 1,) + tuple(range(rank - 1)))
    placed = S.scatter_nd(node.sym(2), tuples, shape=tuple(shape))
    marked = S.scatter_nd(S.ones_like(node.sym(2)), tuples, shape=tuple(shape))
    return S.where(marked, placed, node.sym(0), name=node.name)


@translator('ScatterElements')
def scatter_elements(g, node):
    """One update per position along the last axis (indices of size 1 there): a one-hot
    mask of the index chooses the update."""
    _no_reduction(node)
    shape, index_shape = node.shape(0), node.shape(1)
    if shape is None or index_shape is None or None in shape:
        node.fail('data of unknown shape')
    rank = len(shape)
    axis = node.attrs.get('axis', 0) % rank
    if axis != rank - 1 or index_shape[-1] != 1 or tuple(index_shape[:-1]) != tuple(shape[:-1]):
        node.fail('indices other than one per position along the last axis')
    S = _sym()
    index = S.squeeze(node.sym(1), axis=(axis,))
    wrapped = S.broadcast_add(index, S.broadcast_mul(S._lesser_scalar(index, scalar=0),
                                                     S.ones_like(index) * shape[-1]))
    mask = S.one_hot(wrapped, depth=shape[-1])
    updates = S.broadcast_like(node.sym(2), node.sym(0))
    return S.where(mask, updates, node.sym(0), name=node.name)


@translator('Tile')
def tile(g, node):
    reps = node.required_const(1, 'repeats')
    return _sym().tile(node.sym(0), reps=tuple(int(r) for r in reps), name=node.name)


@translator('Expand')
def expand(g, node):
    S = _sym()
    target = [int(d) for d in node.required_const(1, 'shape')]
    shape = node.shape(0)
    if shape is None:
        node.fail('data of unknown rank')
    data = node.sym(0)
    for _ in range(len(target) - len(shape)):
        data = S.expand_dims(data, axis=0)
    rank = max(len(target), len(shape))
    target = [1] * (rank - len(target)) + target
    full = [1] * (rank - len(shape)) + list(shape)
    # ONNX broadcasts both ways: a 1 in the target keeps the data's size (MXNet's 0)
    result = [0 if t == 1 or t == f else t for t, f in zip(target, full)]
    return S.broadcast_to(data, shape=tuple(result), name=node.name)


@translator('Pad')
def pad(g, node):
    mode = node.attrs.get('mode', 'constant')
    pads = node.attrs.get('pads')
    if pads is None:
        pads = node.required_const(1, 'pads').tolist()
    value = 0.0
    if node.has(2):
        value = float(node.required_const(2, 'constant value').reshape(-1)[0])
    if node.has(3):
        node.fail('the axes input')
    half = len(pads) // 2
    if any(p < 0 for p in pads):
        node.fail('negative pads (cropping)')
    widths = []
    for b, e in zip(pads[:half], pads[half:]):
        widths += [int(b), int(e)]
    return _sym().Pad(node.sym(0), mode=mode, pad_width=tuple(widths), constant_value=value,
                      name=node.name)


@translator('DepthToSpace')
def depth_to_space(g, node):
    if node.attrs.get('mode', 'DCR') != 'DCR':
        node.fail('mode CRD')
    return _sym().depth_to_space(node.sym(0), block_size=node.attrs['blocksize'],
                                 name=node.name)


@translator('SpaceToDepth')
def space_to_depth(g, node):
    return _sym().space_to_depth(node.sym(0), block_size=node.attrs['blocksize'],
                                 name=node.name)


@translator('Shape')
def shape(g, node):
    if node.attrs.get('start', 0) or node.attrs.get('end') is not None:
        node.fail('start / end')
    g.shape_of[node.outputs[0]] = node.inputs[0]
    return _sym().shape_array(node.sym(0), name=node.name)


@translator('Size')
def size(g, node):
    return _sym().size_array(node.sym(0), name=node.name)


@translator('ConstantOfShape')
def constant_of_shape(g, node):
    from ... import _deps
    onnx = _deps.onnx()
    value = node.attrs.get('value')
    fill = onnx.numpy_helper.to_array(value).reshape(-1) if value is not None else \
        np.zeros(1, np.float32)
    S = _sym()
    source = g.shape_of.get(node.inputs[0])
    if source is not None:
        zeros = S.zeros_like(g.symbol(source))
        if fill[0] == 0:
            return S.Cast(zeros, dtype=fill.dtype.name, name=node.name)
        return S.Cast(S._plus_scalar(zeros, scalar=float(fill[0])), dtype=fill.dtype.name,
                      name=node.name)
    dims = node.required_const(0, 'shape')
    return S.full(shape=tuple(int(d) for d in dims), val=float(fill[0]),
                  dtype=fill.dtype.name, name=node.name)


@translator('OneHot')
def one_hot(g, node):
    depth = node.required_const(1, 'depth')
    values = node.required_const(2, 'values')
    if node.attrs.get('axis', -1) not in (-1, len(node.shape(0) or ())):
        node.fail('axis other than the last')
    return _sym().one_hot(node.sym(0), depth=int(depth.reshape(-1)[0]),
                          off_value=float(values[0]), on_value=float(values[1]),
                          dtype=values.dtype.name, name=node.name)


@translator('Resize')
def resize(g, node):
    scales = node.const(2) if node.has(2) else None
    if node.attrs.get('mode', 'nearest') != 'nearest' or scales is None:
        node.fail('only nearest resizing by constant scales is supported')
    if node.attrs.get('coordinate_transformation_mode', 'half_pixel') != 'asymmetric' \
            or node.attrs.get('nearest_mode', 'round_prefer_floor') != 'floor':
        node.fail('nearest resizing other than asymmetric / floor (element repetition)')
    spatial = scales[2:]
    if list(scales[:2]) != [1, 1] or len(set(spatial)) != 1 or spatial[0] != int(spatial[0]):
        node.fail('scales %s (MXNet repeats by one integer factor)' % (scales.tolist(),))
    return _sym().UpSampling(node.sym(0), scale=int(spatial[0]), sample_type='nearest',
                             num_args=1, name=node.name)


@translator('ReverseSequence')
def reverse_sequence(g, node):
    if node.attrs.get('batch_axis', 1) != 1 or node.attrs.get('time_axis', 0) != 0:
        node.fail('batch_axis / time_axis other than 1 / 0 (MXNet reverses time-major data)')
    return _sym().SequenceReverse(node.sym(0), node.sym(1), use_sequence_length=True,
                                  name=node.name)


@translator('Range')
def range_op(g, node):
    """``start + delta * i`` for i below one dimension of a tensor's shape (constant
    ranges are computed at import): the positions along that axis (index_array)."""
    S = _sym()
    dims = g.dims_of.get(node.inputs[1])
    start, delta = node.const(0), node.const(2)
    if dims is None or len(dims[1]) != 1 or start is None or delta is None:
        node.fail('a limit that is not one dimension of a tensor\'s shape, or a start or '
                  'delta that is not constant')
    source, (axis,) = dims
    dtype = start.dtype
    start, delta = start.reshape(-1)[0], delta.reshape(-1)[0]
    rank = None if g.shapes.get(source) is None else len(g.shapes[source])
    if rank is None:
        node.fail('the rank of %s is unknown' % source)
    if float(start) != 0 or float(delta) <= 0 or float(delta) != int(delta):
        node.fail('start %s, delta %s (only ranges from 0 with a positive integer step '
                  'over a dimension)' % (start, delta))
    axis %= rank
    index = S.contrib.index_array(g.symbol(source), axes=(axis,))
    along = S.slice(index, begin=tuple(None if a == axis else 0 for a in range(rank)),
                    end=tuple(None if a == axis else 1 for a in range(rank)))
    positions = S.reshape(along, shape=(-1,))
    if float(delta) != 1:
        positions = S.slice(positions, begin=(0,), end=(None,), step=(int(delta),))
    return S.Cast(positions, dtype=dtype.name, name=node.name)
