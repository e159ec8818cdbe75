"""Operators on padded batches of sequences: SequenceMask, SequenceLast, SequenceReverse.

The data is laid out time-major ``(max_len, batch, ...)`` (``axis=0``) or batch-major
``(batch, max_len, ...)`` (``axis=1``; SequenceReverse supports time-major only). With
``use_sequence_length=True`` a second input ``sequence_length`` of shape ``(batch,)``
gives each sequence's true length; lengths are truncated to integers as MXNet's
kernels do (``2.7`` counts as 2). The lengths receive no gradient.
"""
import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int
from .common import copy_into, expect_shape, int_shape, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register

__all__ = []

_USE_LENGTH = Param('use_sequence_length', parse_bool, False,
                    'Take a second input, sequence_length, of shape (batch,).')


class _SequenceOp(Operator):
    """What the three sequence operators share: names, shapes, dtypes, lengths."""
    backward_uses_outputs = False
    axes = (0, 1)       # supported sequence axes

    def check_params(self):
        if self.axis not in self.axes:
            raise MXNetError('%s: Current implementation expects axis to be %s, found axis=%d'
                             % (self.name, ' or '.join(map(str, self.axes)), self.axis))
        # backward reads only the lengths: without them the data may be freed early
        self.backward_uses_inputs = self.use_sequence_length

    def list_arguments(self):
        return ['data', 'sequence_length'] if self.use_sequence_length else ['data']

    def _output_shape(self, data):
        return data

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return list(in_shapes), list(out_shapes), list(aux_shapes)
        if len(data) < 2:
            raise ShapeError('%s: The data array must be of rank 2 or greater, found shape %s'
                             % (self.name, data))
        batch = data[1 - self.axis]
        shapes = [data]
        if self.use_sequence_length:
            shapes.append(expect_shape(in_shapes[1], (batch,), self.name, 'sequence_length',
                                       'the batch size of data %s' % (data,)))
        out = expect_shape(out_shapes[0], self._output_shape(data), self.name, 'output',
                           'data %s' % (data,))
        return shapes, [out], list(aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        # the lengths keep their own dtype (often int32); unknown ones take data's
        types = [dtype] + [t if t is not None else dtype for t in in_types[1:]]
        return types, [dtype], []

    # ---- helpers for compute -----------------------------------------------------------------
    def _time_major(self, a):
        """``a`` viewed as (max_len, batch, rest), whatever its sequence axis."""
        if self.axis == 0:
            return a.reshape(a.shape[0], a.shape[1], -1)
        return a.reshape(a.shape[0], a.shape[1], -1).transpose(1, 0, 2)

    def _lengths(self, in_data, batch):
        """Per-sequence lengths as int64, truncated toward zero like a C cast."""
        lengths = in_data[1]
        if lengths.shape != (batch,):
            raise MXNetError('%s: sequence_length has shape %s, expected (%d,)'
                             % (self.name, lengths.shape, batch))
        if lengths.dtype.kind == 'f':
            lengths = np.trunc(lengths)
        return lengths.astype(np.int64)

    def _zero_length_grad(self, req, in_grad):
        if self.use_sequence_length:
            zero_grad(in_grad[1], req[1])


@register
class SequenceMask(_SequenceOp):
    """Sets every element past each sequence's length to ``value``.

    ``data`` is ``(max_len, batch, ...)`` (``axis=0``) or ``(batch, max_len, ...)``
    (``axis=1``). Without ``use_sequence_length`` the operator is the identity. The
    gradient is the head gradient with the masked positions zeroed.

    Examples
    --------
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])            # (max_len=3, batch=2)
    >>> mx.nd.SequenceMask(x, mx.nd.array([1, 3]), use_sequence_length=True).asnumpy()
    array([[1., 2.],
           [0., 4.],
           [0., 6.]], dtype=float32)
    """
    name = 'SequenceMask'
    aliases = ('_npx_sequence_mask',)
    params = (_USE_LENGTH,
              Param('value', parse_float, 0.0, 'The value masked positions take.'),
              Param('axis', parse_int, 0, 'The sequence axis (0 or 1).'))

    def _mask(self, in_data, x3):
        """Boolean (max_len, batch, 1) array, True where a step lies past its length."""
        max_len, batch = x3.shape[0], x3.shape[1]
        lengths = self._lengths(in_data, batch)
        return (np.arange(max_len)[:, None] >= lengths[None, :])[:, :, None]

    def forward(self, is_train, req, in_data, out_data, aux):
        x, out = in_data[0], out_data[0]
        if req[0] == 'null':
            return
        if not self.use_sequence_length:
            copy_into(out, x, req[0])
            return
        x3 = self._time_major(x)
        masked = self._mask(in_data, x3)
        if req[0] == 'write':
            np.copyto(out, x)
            np.copyto(self._time_major(out), self.value, casting='unsafe', where=masked)
        else:
            self._time_major(out)[...] += np.where(masked, x.dtype.type(self.value), x3)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        dy = out_grad[0]
        self._zero_length_grad(req, in_grad)
        if req[0] == 'null':
            return
        if not self.use_sequence_length:
            copy_into(in_grad[0], dy, req[0])
            return
        dy3 = self._time_major(dy)
        store_from(self._time_major(in_grad[0]), req[0],
                   np.where(self._mask(in_data, dy3), dy.dtype.type(0), dy3))


@register
class SequenceLast(_SequenceOp):
    """Takes the last valid element of each sequence.

    ``data`` is ``(max_len, batch, ...)`` (``axis=0``) or ``(batch, max_len, ...)``
    (``axis=1``); the output is ``(batch, ...)``. Without ``use_sequence_length``
    every sequence ends at step ``max_len - 1``; otherwise at ``sequence_length - 1``,
    which must lie in ``[1, max_len]``. The gradient flows to the selected steps only.

    Examples
    --------
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])            # (max_len=3, batch=2)
    >>> mx.nd.SequenceLast(x).asnumpy()
    array([5., 6.], dtype=float32)
    >>> mx.nd.SequenceLast(x, mx.nd.array([1, 2]), use_sequence_length=True).asnumpy()
    array([1., 4.], dtype=float32)
    """
    name = 'SequenceLast'
    params = (_USE_LENGTH,
              Param('axis', parse_int, 0, 'The sequence axis (0 or 1).'))

    def _output_shape(self, data):
        return data[:self.axis] + data[self.axis + 1:]

    def _steps(self, in_data, max_len, batch):
        """The index of each sequence's last step."""
        if not self.use_sequence_length:
            return np.full(batch, max_len - 1, dtype=np.int64)
        lengths = self._lengths(in_data, batch)
        if lengths.size and (lengths.min() < 1 or lengths.max() > max_len):
            raise MXNetError('SequenceLast: sequence_length must lie in [1, %d] (the sequence '
                             'axis size), found %s' % (max_len, in_data[1].tolist()))
        return lengths - 1

    def forward(self, is_train, req, in_data, out_data, aux):
        if req[0] == 'null':
            return
        x3 = self._time_major(in_data[0])
        max_len, batch = x3.shape[0], x3.shape[1]
        out2 = out_data[0].reshape(batch, -1)
        if not self.use_sequence_length:
            copy_into(out2, x3[max_len - 1], req[0])
            return
        steps = self._steps(in_data, max_len, batch)
        store_from(out2, req[0], x3[steps, np.arange(batch)])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._zero_length_grad(req, in_grad)
        if req[0] == 'null':
            return
        dx3 = self._time_major(in_grad[0])
        max_len, batch = dx3.shape[0], dx3.shape[1]
        steps = self._steps(in_data, max_len, batch)
        if req[0] == 'write':
            dx3[...] = 0
        # each (step, batch) pair is selected once, so the fancy-indexed add is exact
        dx3[steps, np.arange(batch)] += out_grad[0].reshape(batch, -1)


@register
class SequenceReverse(_SequenceOp):
    """Reverses the first ``sequence_length`` steps of each sequence.

    ``data`` is ``(max_len, batch, ...)``; steps past a sequence's length stay where
    they are. Without ``use_sequence_length`` the whole time axis is reversed. The
    gradient is the head gradient put through the same permutation.

    Examples
    --------
    >>> x = mx.nd.array([[1, 2], [3, 4], [5, 6]])            # (max_len=3, batch=2)
    >>> mx.nd.SequenceReverse(x, mx.nd.array([2, 3]), use_sequence_length=True).asnumpy()
    array([[3., 6.],
           [1., 4.],
           [5., 2.]], dtype=float32)
    """
    name = 'SequenceReverse'
    params = (_USE_LENGTH,
              Param('axis', parse_int, 0, 'The sequence axis (only 0 is supported).'))
    axes = (0,)

    def _sources(self, in_data, max_len, batch):
        """(max_len, batch, 1) index of the step each output step is read from."""
        lengths = self._lengths(in_data, batch)
        if lengths.size and (lengths.min() < 0 or lengths.max() > max_len):
            raise MXNetError('SequenceReverse: sequence_length must lie in [0, %d] (the '
                             'sequence axis size), found %s' % (max_len, in_data[1].tolist()))
        steps = np.arange(max_len)[:, None]
        return np.where(steps < lengths, lengths - 1 - steps, steps)[:, :, None]

    def _permute(self, src, dst, req, in_data):
        if req == 'null':
            return
        s3, d3 = self._time_major(src), self._time_major(dst)
        if not self.use_sequence_length:
            copy_into(d3, s3[::-1], req)
            return
        sources = self._sources(in_data, s3.shape[0], s3.shape[1])
        store_from(d3, req, np.take_along_axis(s3, sources, axis=0))

    def forward(self, is_train, req, in_data, out_data, aux):
        self._permute(in_data[0], out_data[0], req[0], in_data)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self._zero_length_grad(req, in_grad)
        # reversing a prefix is its own inverse
        self._permute(out_grad[0], in_grad[0], req[0], in_data)
