"""Operators each of whose output elements is a copy of one input element or a constant:
the linalg diagonal / triangle extractions and constructions, _slice_assign(_scalar) and
im2col; and col2im, whose pixels are sums of such copies.

For fixed shapes the export asks symmod itself where every output element comes from: it
runs the operator on inputs numbered 1, 2, 3, ... (float64, exact), twice with different
offsets. An output element that moves with the offset is a copy of the input element
with that number; one that stays is a constant (zero padding, a filled scalar). The ONNX
graph is then one Gather from the flattened inputs and those constants.
"""
import numpy as np

from ..registry import translator
from .common import reduce, reshape_to


_SHIFT = 2.0 ** 40      # far above any element count, exact in float64


def _probe(node, offset):
    inputs, start = [], offset
    for i in range(node.num_inputs):
        size = int(np.prod(node.in_shape(i), dtype=np.int64))
        inputs.append(np.arange(start, start + size, dtype=np.float64)
                      .reshape(node.in_shape(i)))
        start += size
    return node.run(inputs)[0].reshape(-1)


@translator('_linalg_extractdiag', '_linalg_makediag', '_linalg_extracttrian',
            '_linalg_maketrian', '_slice_assign', '_slice_assign_scalar', 'im2col')
def copying(g, node):
    if any(node.in_varying(i) for i in range(node.num_inputs)):
        node.fail('dimensions that vary (where each element comes from is fixed at export)')
    first, second = _probe(node, 1.0), _probe(node, 1.0 + _SHIFT)
    copied = second - first == _SHIFT
    total = sum(int(np.prod(node.in_shape(i), dtype=np.int64)) for i in range(node.num_inputs))
    constants, slots = np.unique(first[~copied], return_inverse=True)
    index = np.empty(first.shape, np.int64)
    index[copied] = (first[copied] - 1).astype(np.int64)
    index[~copied] = total + slots
    dtype = node.in_dtype(0)
    parts = [reshape_to(g, node.input(i), [-1], hint='%s_flat%d' % (node.name, i))
             for i in range(node.num_inputs)]
    if len(constants):
        parts.append(g.constant(constants.astype(dtype), node.name + '_fill'))
    pool = parts[0] if len(parts) == 1 else g.add('Concat', parts, hint=node.name + '_pool',
                                                  axis=0)
    picked = g.add('Gather', [pool, g.int64s(index, node.name + '_sources')],
                   hint=node.name + '_picked')
    reshape_to(g, picked, list(node.out_shape(0)), out=node.outputs[0])


@translator('col2im')
def col2im(g, node):
    """The transpose of im2col: each pixel sums the column entries that im2col would copy
    from it. Which entries those are comes from the operator's own im2col of a numbered
    image (one channel: every channel and batch item maps alike); one Gather collects
    each pixel's entries (a zero column fills the short lists) and a ReduceSum adds them."""
    op = node.op
    spatial = tuple(op.output_size)
    numbered = np.arange(1, int(np.prod(spatial)) + 1, dtype=np.float64).reshape(
        (1, 1) + spatial)
    sources = op._im2col(numbered).reshape(-1).astype(np.int64) - 1   # -1: padding
    entries = sources.size
    order = np.argsort(sources, kind='stable')
    pixels = sources[order]
    kept = pixels >= 0
    order, pixels = order[kept], pixels[kept]
    counts = np.bincount(pixels, minlength=int(np.prod(spatial)))
    table = np.full((counts.size, max(int(counts.max()), 1)), entries, np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(pixels.size) - starts[pixels]
    table[pixels, slot] = order
    cols = reshape_to(g, node.input(0), [0, node.out_shape(0)[1], entries],
                      hint=node.name + '_cols')
    # (N, C, 1) zeros whatever the columns hold (a product with 0 would keep NaNs)
    first = g.add('Slice', [cols, g.int64s([0], 'start'), g.int64s([1], 'end'),
                            g.int64s([2], 'axes')], hint=node.name + '_first')
    zero = g.constant(np.zeros((), node.in_dtype(0)), 'zero')
    zero = g.add('Where', [g.add('Equal', [first, first], hint=node.name + '_any'), zero, zero],
                 hint=node.name + '_zero_col')
    pool = g.add('Concat', [cols, zero], hint=node.name + '_pool', axis=2)
    picked = g.add('Gather', [pool, g.int64s(table.reshape(-1), node.name + '_sources')],
                   hint=node.name + '_picked', axis=2)
    shaped = reshape_to(g, picked, [0, 0] + list(table.shape), hint=node.name + '_grouped')
    summed = reduce(g, 'ReduceSum', shaped, [3], keepdims=False, hint=node.name + '_sum')
    reshape_to(g, summed, [0, 0] + list(spatial), out=node.outputs[0])
