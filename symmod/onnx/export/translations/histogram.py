"""_histogram: counts of the data in equal bins over a range, or in bins given by their
edges, as symmod computes them (float64 bin indices; the last bin closed on the right;
values outside the range, and NaNs, not counted).

Each value's bin is compared with every bin number (a (values, bins) table) and the
matches summed per bin: memory grows with values times bins.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, unsqueeze

__all__ = []

_F64 = np.float64


@translator('_histogram')
def histogram(g, node):
    op, name = node.op, node.name
    data = reshape_to(g, cast(g, node.input(0), _F64, hint=name + '_x64'), [-1],
                      hint=name + '_flat')
    if op.bin_cnt is not None:
        low, high = op.range
        if low == high:
            low, high = low - 0.5, high + 0.5
        count = op.bin_cnt
        i = np.arange(count + 1, dtype=_F64)
        edges = g.constant(((high * i + (count - i) * low) / count).astype(
            node.out_dtype(1)), name + '_edges')
        lo, hi = scalar(g, low, _F64, 'low'), scalar(g, high, _F64, 'high')
        position = g.add('Mul', [g.add('Div', [g.add('Sub', [data, lo], hint=name + '_shift'),
                                               scalar(g, high - low, _F64, 'width')],
                                       hint=name + '_unit'), scalar(g, count, _F64, 'count')],
                         hint=name + '_pos')
        index = g.add('Floor', [position], hint=name + '_floor')
        g.add('Identity', [edges], [node.outputs[1]])
    else:
        bounds = cast(g, node.input(1), _F64, hint=name + '_edges64')
        count = node.in_shape(1)[0] - 1
        lo = g.add('Slice', [bounds, g.int64s([0], 'start'), g.int64s([1], 'end')],
                   hint=name + '_lo')
        hi = g.add('Slice', [bounds, g.int64s([count], 'start'), g.int64s([count + 1], 'end')],
                   hint=name + '_hi')
        # searchsorted(edges, x, 'right') - 1: how many edges are <= x, less one
        below = g.add('LessOrEqual', [unsqueeze(g, bounds, [0], hint=name + '_row'),
                                      unsqueeze(g, data, [1], hint=name + '_col')],
                      hint=name + '_below')
        index = g.add('Sub', [reduce(g, 'ReduceSum', cast(g, below, _F64, hint=name + '_b64'),
                                     [1], keepdims=False, hint=name + '_rank'),
                              scalar(g, 1, _F64, 'one')], hint=name + '_index')
        cast(g, node.input(1), node.out_dtype(1), out=node.outputs[1])
    inside = g.add('And', [g.add('GreaterOrEqual', [data, lo], hint=name + '_ge'),
                           g.add('LessOrEqual', [data, hi], hint=name + '_le')],
                   hint=name + '_inside')
    index = g.add('Min', [index, scalar(g, count - 1, _F64, 'last')], hint=name + '_clamped')
    index = g.add('Where', [inside, index, scalar(g, -1, _F64, 'outside')], hint=name + '_bin')
    hits = g.add('Equal', [unsqueeze(g, index, [1], hint=name + '_bins_col'),
                           g.constant(np.arange(count, dtype=_F64)[None, :], name + '_ids')],
                 hint=name + '_hits')
    reduce(g, 'ReduceSum', cast(g, hits, np.int64, hint=name + '_hit64'), [0],
           keepdims=False, out=node.outputs[0])
