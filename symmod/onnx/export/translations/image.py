"""Image operators of ``mx.sym.image``: to_tensor, normalize, crop, the flips and resize.

Images are ``(H, W, C)`` or ``(N, H, W, C)``. Resizing follows symmod's OpenCV rules
(``symmod.image.opencv``): the source indices and weights of every output row and column
are fixed by the sizes, so they are computed here with symmod's own tap functions and
the export gathers and mixes with them, in the same order of operations (and, for uint8
bilinear, the same fixed-point integer arithmetic) as the kernel.
"""
import numpy as np

from ....image import opencv
from ..registry import translator
from .common import cast, scalar, slice_axes

_INT64_MIN = np.iinfo(np.int64).min


def saturate(g, y, dtype, out, hint):
    """A float32 result stored as ``dtype`` the way MXNet's image operators do: integer
    types clipped to their range and truncated toward zero (ONNX Cast truncates)."""
    dtype = np.dtype(dtype)
    if dtype.kind in 'iu':
        info = np.iinfo(dtype)
        y = g.add('Clip', [y, scalar(g, info.min, np.float32, 'low'),
                           scalar(g, info.max, np.float32, 'high')], hint=hint + '_clipped')
    return cast(g, y, dtype, out=out, hint=hint)


@translator('_image_to_tensor')
def to_tensor(g, node):
    rank = len(node.in_shape(0))
    perm = list(range(rank - 3)) + [rank - 1, rank - 3, rank - 2]
    moved = g.add('Transpose', [node.input(0)], hint=node.name + '_chw', perm=perm)
    x = cast(g, moved, np.float32, hint=node.name + '_float')
    g.add('Div', [x, scalar(g, 255, np.float32, 'max_pixel')], [node.outputs[0]])


@translator('_image_normalize')
def normalize(g, node):
    op, dtype = node.op, node.in_dtype(0)
    work = dtype if dtype.kind == 'f' else np.dtype(np.float32)
    x = node.input(0) if dtype == work else cast(g, node.input(0), work, hint=node.name + '_f')
    mean = g.constant(np.asarray(op.mean, np.float32).reshape(-1, 1, 1).astype(work), 'mean')
    std = g.constant(np.asarray(op.std, np.float32).reshape(-1, 1, 1).astype(work), 'std')
    y = g.add('Div', [g.add('Sub', [x, mean], hint=node.name + '_centred'), std],
              hint=node.name + '_normalized')
    cast(g, y, node.out_dtype(), out=node.outputs[0])


@translator('_image_crop')
def crop(g, node):
    op, rank = node.op, len(node.in_shape(0))
    slice_axes(g, node.input(0), [op.y, op.x], [op.y + op.height, op.x + op.width],
               [rank - 3, rank - 2], out=node.outputs[0])


@translator('_image_flip_left_right', '_image_flip_top_bottom')
def flip(g, node):
    g.add('Identity', [flipped(g, node)], [node.outputs[0]])


def flipped(g, node):
    """The node's input reversed along its flip axis (a Slice with step -1)."""
    axis = len(node.in_shape(0)) + node.op.axis
    return slice_axes(g, node.input(0), [-1], [_INT64_MIN], [axis], steps=[-1],
                      hint=node.name + '_flipped')


# ---- resize --------------------------------------------------------------------------
@translator('_image_resize')
def resize(g, node):
    op, dtype = node.op, node.in_dtype(0)
    rank = len(node.in_shape(0))
    rows_axis, cols_axis = rank - 3, rank - 2
    if {rows_axis, cols_axis} & set(node.in_varying(0)):
        node.fail('the image height or width varies (the resize taps are fixed at export)')
    src_h, src_w = node.in_shape(0)[rows_axis], node.in_shape(0)[cols_axis]
    height, width = node.out_shape(0)[rows_axis], node.out_shape(0)[cols_axis]
    x, out = node.input(0), node.outputs[0]
    if (src_h, src_w) == (height, width):
        g.add('Identity', [x], [out])
    elif op.interp == 0:
        rows = np.minimum(np.floor(np.arange(height) * (src_h / height)), src_h - 1)
        cols = np.minimum(np.floor(np.arange(width) * (src_w / width)), src_w - 1)
        picked = g.add('Gather', [x, g.int64s(rows, 'rows')], hint=node.name + '_rows',
                       axis=rows_axis)
        g.add('Gather', [picked, g.int64s(cols, 'cols')], [out], axis=cols_axis)
    elif op.interp == 1 and dtype == np.uint8:
        _linear_uint8(g, node, x, (src_h, src_w), (height, width), (rows_axis, cols_axis))
    elif op.interp == 1 and dtype.kind == 'f':
        _linear_float(g, node, x, (src_h, src_w), (height, width), (rows_axis, cols_axis))
    elif op.interp == 2 and dtype.kind == 'f':
        _cubic_float(g, node, x, (src_h, src_w), (height, width), (rows_axis, cols_axis))
    else:
        node.fail('interp=%d on %s images (exported: nearest for any type, bilinear for '
                  'uint8 and float, bicubic for float)' % (op.interp, dtype.name))


def _mix(g, node, x, axis, taps, weights, hint):
    """sum_k x[taps[:, k]] * weights[:, k] along ``axis``, k in order (weights broadcast
    along the axis)."""
    rank = len(node.in_shape(0))
    total = None
    for k in range(taps.shape[1]):
        shape = [1] * rank
        shape[axis] = -1
        w = g.constant(weights[:, k].reshape([d if d != -1 else len(weights) for d in shape]),
                       '%s_w%d' % (hint, k))
        picked = g.add('Gather', [x, g.int64s(taps[:, k], '%s_taps%d' % (hint, k))],
                       hint='%s_%d' % (hint, k), axis=axis)
        term = g.add('Mul', [picked, w], hint='%s_term%d' % (hint, k))
        total = term if total is None else g.add('Add', [total, term], hint=hint)
    return total


def _linear_float(g, node, x, src, dst, axes):
    dtype = node.in_dtype(0)
    left, right, fx = opencv._linear_taps(src[1], dst[1], True)
    top, bottom, fy = opencv._linear_taps(src[0], dst[0], False)
    pix = cast(g, x, np.float32, hint=node.name + '_f') if dtype != np.float32 else x
    one = np.float32(1)
    rows = _mix(g, node, pix, axes[1], np.stack([left, right], 1),
                np.stack([one - fx, fx], 1), node.name + '_cols')
    y = _mix(g, node, rows, axes[0], np.stack([top, bottom], 1),
             np.stack([one - fy, fy], 1), node.name + '_rows')
    cast(g, y, dtype, out=node.outputs[0])


def _cubic_float(g, node, x, src, dst, axes):
    dtype = node.in_dtype(0)
    work = np.float64 if dtype == np.float64 else np.float32
    cols, wx = opencv._cubic_taps(src[1], dst[1])
    rows, wy = opencv._cubic_taps(src[0], dst[0])
    pix = cast(g, x, work, hint=node.name + '_f') if dtype != work else x
    horiz = _mix(g, node, pix, axes[1], cols, wx.astype(work), node.name + '_cols')
    y = _mix(g, node, horiz, axes[0], rows, wy.astype(work), node.name + '_rows')
    cast(g, y, dtype, out=node.outputs[0])


def _shift(g, x, bits, hint):
    """``x >> bits`` of non-negative int32 values (an exact integer division)."""
    return g.add('Div', [x, scalar(g, 1 << bits, np.int32, 'two_pow%d' % bits)], hint=hint)


def _linear_uint8(g, node, x, src, dst, axes):
    """OpenCV's 8-bit bilinear: 11-bit weights, the rows' products shifted as its vector
    kernel does; an exact halving is its area filter."""
    name = node.name
    pix = cast(g, x, np.int32, hint=name + '_int')
    if src == (2 * dst[0], 2 * dst[1]):
        total = None
        for dr in (0, 1):
            for dc in (0, 1):
                part = slice_axes(g, pix, [dr, dc], [src[0], src[1]], list(axes), steps=[2, 2],
                                  hint='%s_quad%d%d' % (name, dr, dc))
                total = part if total is None else g.add('Add', [total, part], hint=name + '_sum')
        total = g.add('Add', [total, scalar(g, 2, np.int32, 'two')], hint=name + '_rounded')
        cast(g, _shift(g, total, 2, name + '_mean'), np.uint8, out=node.outputs[0])
        return
    scale = opencv._COEF_SCALE
    left, right, fx = opencv._linear_taps(src[1], dst[1], True)
    top, bottom, fy = opencv._linear_taps(src[0], dst[0], False)

    def fixed(weights):
        return np.round(weights * scale).astype(np.int32)

    one = np.float32(1)
    rows = _mix(g, node, pix, axes[1], np.stack([left, right], 1),
                np.stack([fixed(one - fx), fixed(fx)], 1), name + '_cols')
    reduced = _shift(g, rows, 4, name + '_rows16')
    terms = []
    for k, (taps, w) in enumerate(((top, fixed(one - fy)), (bottom, fixed(fy)))):
        part = _mix(g, node, reduced, axes[0], taps[:, None], w[:, None], '%s_row%d' % (name, k))
        terms.append(_shift(g, part, 16, '%s_high%d' % (name, k)))
    total = g.add('Add', [g.add('Add', terms, hint=name + '_sum'),
                          scalar(g, 2, np.int32, 'two')], hint=name + '_rounded')
    clipped = g.add('Clip', [_shift(g, total, 2, name + '_out'), scalar(g, 0, np.int32, 'zero'),
                             scalar(g, 255, np.int32, 'max_pixel')], hint=name + '_clipped')
    cast(g, clipped, np.uint8, out=node.outputs[0])
