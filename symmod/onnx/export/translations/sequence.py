"""SequenceMask, SequenceReverse and SequenceLast on padded batches of sequences.

Lengths are truncated to integers as MXNet's kernels do (a Cast to int64). Masks compare
each time position with the lengths; positions are a constant when the sequence length
is fixed and an ONNX Range over the data's shape when it varies.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, slice_axes, squeeze

_INT64_MIN = np.iinfo(np.int64).min
_INT64_MAX = np.iinfo(np.int64).max


def _positions(g, node):
    """int64 time positions 0..T-1 of the node's data."""
    axis = node.op.axis
    if axis not in node.in_varying(0):
        return g.constant(np.arange(node.in_shape(0)[axis], dtype=np.int64), 'positions')
    shape = g.add('Shape', [node.input(0)], hint=node.name + '_shape')
    length = squeeze(g, slice_axes(g, shape, [axis], [axis + 1], [0], hint=node.name + '_t'),
                     [0], hint=node.name + '_steps')
    return g.add('Range', [g.constant(np.asarray(0, np.int64), 'zero'), length,
                           g.constant(np.asarray(1, np.int64), 'one')],
                 hint=node.name + '_positions')


def _time_batch_mask(g, node, compare, lengths):
    """Boolean mask of shape (T, N) or (N, T) (the data's leading two axes), broadcastable
    against the data, of ``compare(position, length)``."""
    positions = _positions(g, node)
    rank = len(node.in_shape(0))
    if node.op.axis == 0:
        pos = reshape_to(g, positions, [-1, 1], hint=node.name + '_pos')
        lens = reshape_to(g, lengths, [1, -1], hint=node.name + '_lens')
    else:
        pos = reshape_to(g, positions, [1, -1], hint=node.name + '_pos')
        lens = reshape_to(g, lengths, [-1, 1], hint=node.name + '_lens')
    mask = g.add(compare, [pos, lens], hint=node.name + '_mask')
    return reshape_to(g, mask, [0, 0] + [1] * (rank - 2), hint=node.name + '_maskb')


def _lengths(g, node):
    return cast(g, node.input(1), np.int64, hint=node.name + '_len')


@translator('SequenceMask')
def sequence_mask(g, node):
    op = node.op
    if not op.use_sequence_length:
        g.add('Identity', [node.input(0)], [node.outputs[0]])
        return
    keep = _time_batch_mask(g, node, 'Less', _lengths(g, node))
    value = g.constant(np.asarray(op.value, node.in_dtype(0)), 'value')
    g.add('Where', [keep, node.input(0), value], [node.outputs[0]])


@translator('SequenceReverse')
def sequence_reverse(g, node):
    if not node.op.use_sequence_length:
        slice_axes(g, node.input(0), [-1], [_INT64_MIN], [0], [-1], node.outputs[0])
        return
    g.add('ReverseSequence', [node.input(0), _lengths(g, node)], [node.outputs[0]],
          batch_axis=1, time_axis=0)


@translator('SequenceLast')
def sequence_last(g, node):
    op = node.op
    axis = op.axis
    if not op.use_sequence_length:
        last = slice_axes(g, node.input(0), [-1], [_INT64_MAX], [axis], [1],
                          hint=node.name + '_last')
        squeeze(g, last, [axis], node.outputs[0])
        return
    last_step = g.add('Sub', [_lengths(g, node), g.constant(np.asarray(1, np.int64), 'one')],
                      hint=node.name + '_lastpos')
    picked = _time_batch_mask(g, node, 'Equal', last_step)
    zero = g.constant(np.asarray(0, node.in_dtype(0)), 'zero')
    only_last = g.add('Where', [picked, node.input(0), zero], hint=node.name + '_only')
    reduce(g, 'ReduceSum', only_last, [axis], False, node.outputs[0])
