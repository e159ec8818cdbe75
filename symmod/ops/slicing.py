"""Slicing and repeating: slice (crop), slice_axis, slice_like, tile, repeat,
reverse (flip) and Pad.

Forward writes a view of the input into the output buffer; backward scatters the
gradient back, summing where an input element was used several times (tile, repeat,
Pad's edge and reflect modes).
"""
import numpy as np

from ..base import parse_float, parse_int, parse_tuple, parse_optional
from .common import (axis_slice, canonical_axis, copy_into, data_dtype, int_shape, size_of,
                     zero_grad)
from .indexing import scatter_add
from .registry import Operator, Param, register, ShapeError, unify, shape_is_known
from ..util import is_np_shape

__all__ = []


def _zero_then(grad, req):
    """Prepare an input gradient that backward fills piecewise; False when req is null."""
    if req == 'null':
        return False
    if req == 'write':
        grad.fill(0)
    return True


class _Slicer(Operator):
    """Base of the slicing operators: forward copies a view, backward scatters it back.

    Subclasses define ``_index(shape)``, the index tuple selecting the output region
    of an input of that shape.
    """
    backward_uses_inputs = False
    backward_uses_outputs = False

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0][self._index(in_data[0].shape)], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grad = in_grad[0]
        if _zero_then(grad, req[0]):
            view = grad[self._index(grad.shape)]
            np.add(view, out_grad[0], out=view)


def _parse_opt_tuple(value):
    return parse_tuple(value, item=parse_optional(parse_int))


@register
class Slice(_Slicer):
    """Slices a region: ``begin``/``end``/``step`` per leading axis; ``None`` means default.

    For a positive step the defaults are the whole axis; for a negative step the axis
    is walked from its last element down to the first.
    """
    name = 'slice'
    aliases = ('crop', '_sparse_slice')
    params = (Param('begin', _parse_opt_tuple, doc='Starting indices (None for default).'),
              Param('end', _parse_opt_tuple, doc='Ending indices, exclusive (None for default).'),
              Param('step', _parse_opt_tuple, (), 'Steps (None or empty for 1).'))

    def check_params(self):
        if self.step is None:       # step=None (MXNet parses "None" as an empty tuple)
            self.step = ()
        if len(self.begin) != len(self.end):
            raise ShapeError('slice: begin %s and end %s must have the same length'
                             % (self.begin, self.end))
        if self.step and len(self.step) != len(self.begin):
            raise ShapeError('slice: step %s and begin %s must have the same length'
                             % (self.step, self.begin))
        for i, s in enumerate(self.step):
            if s == 0:
                raise ShapeError('slice: step[%d] cannot be 0' % i)

    def _ranges(self, shape):
        """(begin, end, step) per sliced axis, with MXNet's clamping rules."""
        if len(self.begin) > len(shape):
            raise ShapeError('slice: slicing %d axes exceeds the %d dimensions of the data %s'
                             % (len(self.begin), len(shape), shape))
        ranges = []
        for i, length in enumerate(shape[:len(self.begin)]):
            s = self.step[i] if self.step and self.step[i] is not None else 1
            b, e = self.begin[i], self.end[i]
            if b is None:
                b = length - 1 if s < 0 else 0
            if e is None:
                e = -1 if s < 0 else length
            elif e < 0:
                e += length
            if b < 0:
                b += length
            if b < 0 and s > 0:
                b = 0
            if b > length - 1 and s < 0:
                b = length - 1
            if b < 0 or b > length - 1:
                b = -1              # the slice is empty
            e = max(e, -1)
            e = min(e, length)
            ranges.append((b, e, s))
        return ranges

    @staticmethod
    def _length(b, e, s):
        if b < 0 or b == e:
            return 0
        if s > 0:
            return (e - b - 1) // s + 1 if e > b else 0
        return (b - e - 1) // (-s) + 1 if e < b else 0

    def _index(self, shape):
        index = []
        for b, e, s in self._ranges(shape):
            if self._length(b, e, s) == 0:
                index.append(slice(0, 0))
            else:
                index.append(slice(b, e if e >= 0 else None, s))
        return tuple(index)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None:
            return [None], list(out_shapes), []
        if not dshape:
            raise ShapeError('slice: only works for ndim > 0')
        out = list(dshape)
        for i, (b, e, s) in enumerate(self._ranges(dshape)):
            out[i] = self._length(b, e, s) if dshape[i] else 0
        return [dshape], [unify(tuple(out), out_shapes[0])], []


def _slice_axis_range(axis, begin, end, shape):
    ax = canonical_axis(axis, len(shape), 'slice_axis')
    size = shape[ax]
    b = begin + size if begin < 0 else begin
    if size > 0:
        e = size if end is None else (end + size if end < 0 else end)
        if e > size:
            raise ShapeError('slice_axis: invalid end=%d as the axis size is %d' % (end, size))
        if not b < e:
            raise ShapeError('slice_axis: invalid begin, end, got begin=%s, end=%s for axis '
                             'size %d' % (begin, end, size))
    else:
        b = e = 0
    if b < 0:
        raise ShapeError('slice_axis: invalid begin=%d for axis size %d' % (begin, size))
    return ax, b, e


@register
class slice_axis(_Slicer):
    """Slices ``begin:end`` along one ``axis`` (negative indices count from the end)."""
    name = 'slice_axis'
    params = (Param('axis', parse_int, doc='The axis to slice (may be negative).'),
              Param('begin', parse_int, doc='The first index (may be negative).'),
              Param('end', parse_optional(parse_int), None,
                    'The end index, exclusive; None for the end of the axis.'))

    def _index(self, shape):
        ax, b, e = _slice_axis_range(self.axis, self.begin, self.end, shape)
        return axis_slice(ax, b, e)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None:
            return [None], list(out_shapes), []
        ax, b, e = _slice_axis_range(self.axis, self.begin, self.end, dshape)
        out = list(dshape)
        out[ax] = e - b
        return [dshape], [unify(tuple(out), out_shapes[0])], []


@register
class slice_like(Operator):
    """Slices ``data`` to the shape of ``shape_like`` on ``axes`` (all axes when empty)."""
    name = 'slice_like'
    params = (Param('axes', parse_tuple, (), 'Axes to slice; all when empty.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def list_arguments(self):
        return ['data', 'shape_like']

    def _target(self, dshape, fshape):
        if not self.axes:
            if len(dshape) != len(fshape):
                raise ShapeError('slice_like: by default all axes are sliced, but the inputs '
                                 'have %d and %d dimensions' % (len(dshape), len(fshape)))
            axes = range(len(dshape))
        else:
            axes = []
            for a in self.axes:
                ax = a + len(dshape) if a < 0 else a
                if not 0 <= ax < len(dshape) or ax >= len(fshape):
                    raise ShapeError('slice_like: axis %d is out of range for inputs %s and %s'
                                     % (a, dshape, fshape))
                axes.append(ax)
        out = list(dshape)
        for ax in axes:
            if dshape[ax] and fshape[ax] > dshape[ax]:
                raise ShapeError('slice_like: axis %d with size %d exceeds the limit of the input '
                                 'with size %d' % (ax, fshape[ax], dshape[ax]))
            out[ax] = fshape[ax]
        return tuple(out)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape, fshape = int_shape(in_shapes[0]), int_shape(in_shapes[1])
        if dshape is None or fshape is None:
            return [dshape, fshape], list(out_shapes), []
        return [dshape, fshape], [unify(self._target(dshape, fshape), out_shapes[0])], []

    def infer_type(self, in_types, out_types, aux_types):
        return data_dtype(in_types, out_types)

    def forward(self, is_train, req, in_data, out_data, aux):
        index = tuple(slice(0, n) for n in out_data[0].shape)
        copy_into(out_data[0], in_data[0][index], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grad = in_grad[0]
        if _zero_then(grad, req[0]):
            view = grad[tuple(slice(0, n) for n in out_grad[0].shape)]
            np.add(view, out_grad[0], out=view)
        zero_grad(in_grad[1], req[1])


@register
class tile(Operator):
    """Repeats the whole array ``reps`` times along each axis (as ``numpy.tile``)."""
    name = 'tile'
    params = (Param('reps', parse_tuple, doc='Repetitions per axis (positive integers).'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _layout(self, shape):
        """The input's shape and the reps, both padded to the output's rank."""
        ndim = max(len(shape), len(self.reps))
        dims = (1,) * (ndim - len(shape)) + tuple(shape)
        reps = (1,) * (ndim - len(self.reps)) + tuple(self.reps)
        return dims, reps

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None or not shape_is_known(dshape):
            return [dshape], list(out_shapes), []
        if any(r < 0 for r in self.reps):
            raise ShapeError('tile: reps must be non-negative, found %s' % (self.reps,))
        if 0 in self.reps and not is_np_shape():
            # a 0 output dim is an unknown one without NumPy-shape semantics (MXNet)
            raise ShapeError('tile: reps %s give a zero-size output, which needs NumPy-shape '
                             'semantics (mx.np_shape())' % (self.reps,))
        dims, reps = self._layout(dshape)
        return [dshape], [unify(tuple(d * r for d, r in zip(dims, reps)), out_shapes[0])], []

    def _views(self, data_shape, out):
        dims, reps = self._layout(data_shape)
        interleaved = tuple(x for pair in zip(reps, dims) for x in pair)
        src_shape = tuple(x for d in dims for x in (1, d))
        return out.reshape(interleaved), src_shape, tuple(range(0, 2 * len(dims), 2))

    def forward(self, is_train, req, in_data, out_data, aux):
        out, src_shape, _ = self._views(in_data[0].shape, out_data[0])
        copy_into(out, np.broadcast_to(in_data[0].reshape(src_shape), out.shape), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        ograd, _, rep_axes = self._views(in_grad[0].shape, out_grad[0])
        summed = ograd.sum(axis=rep_axes)
        copy_into(in_grad[0], summed.reshape(in_grad[0].shape), req[0])


@register
class repeat(Operator):
    """Repeats each element ``repeats`` times along ``axis`` (flattened when None)."""
    name = 'repeat'
    params = (Param('repeats', parse_int, doc='Repetitions of each element.'),
              Param('axis', parse_optional(parse_int), None,
                    'Axis to repeat along; the flattened input when None.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.repeats < 0:
            raise ShapeError('repeat: repeats cannot be a negative number, found %d'
                             % self.repeats)

    def _split(self, shape):
        """(outer, axis size, inner) sizes around the repeated axis."""
        if self.axis is None:
            return 1, size_of(shape), 1
        ax = canonical_axis(self.axis, len(shape), 'repeat')
        return size_of(shape[:ax]), shape[ax], size_of(shape[ax + 1:])

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None:
            return [None], list(out_shapes), []
        if self.axis is None:
            out = (size_of(dshape) * self.repeats,)
        else:
            ax = canonical_axis(self.axis, len(dshape), 'repeat')
            out = dshape[:ax] + (dshape[ax] * self.repeats,) + dshape[ax + 1:]
        return [dshape], [unify(out, out_shapes[0])], []

    def forward(self, is_train, req, in_data, out_data, aux):
        outer, n, inner = self._split(in_data[0].shape)
        src = in_data[0].reshape(outer, n, 1, inner)
        dst = out_data[0].reshape(outer, n, self.repeats, inner)
        copy_into(dst, np.broadcast_to(src, dst.shape), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        outer, n, inner = self._split(in_grad[0].shape)
        ograd = out_grad[0].reshape(outer, n, self.repeats, inner)
        copy_into(in_grad[0], ograd.sum(axis=2).reshape(in_grad[0].shape), req[0])


@register
class reverse(Operator):
    """Reverses the order of elements along the axes in ``axis``."""
    name = 'reverse'
    aliases = ('flip',)
    params = (Param('axis', parse_tuple, doc='The axes to reverse.'),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def _axes(self, ndim):
        return tuple(canonical_axis(a, ndim, 'reverse') for a in self.axis)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = unify(int_shape(in_shapes[0]), int_shape(out_shapes[0]))
        if shape is not None:
            self._axes(len(shape))
        return [shape], [shape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], np.flip(in_data[0], self._axes(in_data[0].ndim)), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        copy_into(in_grad[0], np.flip(out_grad[0], self._axes(out_grad[0].ndim)), req[0])


@register
class Pad(Operator):
    """Pads a 4-D or 5-D array on its spatial axes (constant, edge or reflect mode).

    ``pad_width`` holds ``(before_1, after_1, ..., before_N, after_N)``; the first two
    axes must not be padded.
    """
    name = 'Pad'
    aliases = ('pad',)
    params = (Param('mode', str, doc='"constant", "edge" or "reflect".'),
              Param('pad_width', parse_tuple, doc='Padding widths, two per axis.'),
              Param('constant_value', parse_float, 0.0, 'Fill value for constant mode.'))
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.mode not in ('constant', 'edge', 'reflect'):
            raise ShapeError('Pad: mode must be one of constant, edge, reflect; found %r'
                             % self.mode)
        self._source = None

    def _widths(self):
        return [(self.pad_width[2 * i], self.pad_width[2 * i + 1])
                for i in range(len(self.pad_width) // 2)]

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        dshape = int_shape(in_shapes[0])
        if dshape is None:
            return [None], list(out_shapes), []
        if len(dshape) not in (4, 5):
            raise ShapeError('Pad: only 4-D or 5-D input is supported, found shape %s' % (dshape,))
        if any(self.pad_width[:4]):
            raise ShapeError('Pad: padding on the first two axes must be zero, found pad_width=%s'
                             % (self.pad_width,))
        if len(self.pad_width) != 2 * len(dshape):
            raise ShapeError('Pad: pad_width %s needs %d values for input shape %s'
                             % (self.pad_width, 2 * len(dshape), dshape))
        widths = self._widths()
        if self.mode == 'reflect':
            for d, (lo, hi) in zip(dshape[2:], widths[2:]):
                if d and (lo >= d or hi >= d):
                    raise ShapeError('Pad: reflection padding must be smaller than the input '
                                     'size, found pad_width=%s for shape %s'
                                     % (self.pad_width, dshape))
        out = tuple(d + lo + hi if d else 0 for d, (lo, hi) in zip(dshape, widths))
        return [dshape], [unify(out, out_shapes[0])], []

    def _source_index(self, in_shape):
        """For every element of one padded spatial plane, the input position it copies."""
        if self._source is None or self._source[0] != in_shape:
            plane = tuple(in_shape[2:])
            idx = np.arange(size_of(plane), dtype=np.int64).reshape(plane)
            self._source = (in_shape, np.pad(idx, self._widths()[2:], mode=self.mode))
        return self._source[1]

    def _center(self, in_shape):
        return tuple(slice(lo, lo + d) for d, (lo, _) in zip(in_shape, self._widths()))

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        if req[0] == 'write' and self.mode == 'constant':
            out.fill(self.constant_value)
            out[self._center(in_data[0].shape)] = in_data[0]
        elif req[0] != 'null':
            kwargs = {'constant_values': self.constant_value} if self.mode == 'constant' else {}
            copy_into(out, np.pad(in_data[0], self._widths(), mode=self.mode, **kwargs), req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        grad = in_grad[0]
        if req[0] == 'null':
            return
        if self.mode == 'constant':
            copy_into(grad, out_grad[0][self._center(grad.shape)], req[0])
            return
        source = self._source_index(grad.shape).ravel()
        lead = grad.shape[0] * grad.shape[1]
        if req[0] == 'write':
            grad.fill(0)
        # every output position adds its gradient to the input position it copies
        scatter_add(grad.reshape(lead, -1, 1), source, out_grad[0].reshape(lead, -1, 1))
