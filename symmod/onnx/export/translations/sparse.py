"""The sparse-storage operators on the dense arrays a symbolic graph holds (ONNX tensors
are dense): SparseEmbedding is Embedding, _square_sum a ReduceSumSquare, the _scatter_*
arithmetic applies everywhere (every value of a dense array is stored), _sparse_retain
zeroes the rows not listed."""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, unsqueeze
from .nn import embedding
from .reduce import _reduction

translator('_contrib_SparseEmbedding')(embedding)
translator('_square_sum')(_reduction('ReduceSumSquare'))


@translator('_scatter_elemwise_div')
def scatter_div(g, node):
    g.add('Div', [node.input(0), node.input(1)], [node.outputs[0]])


@translator('_scatter_plus_scalar', '_scatter_minus_scalar')
def scatter_scalar(g, node):
    value = scalar(g, node.op.sign * node.op.scalar, node.in_dtype(0), 'scalar')
    g.add('Add', [node.input(0), value], [node.outputs[0]])


@translator('_sparse_retain')
def sparse_retain(g, node):
    """Rows whose number is among ``indices`` (others, and indices out of range, ignored)."""
    rows = node.in_shape(0)[0]
    if 0 in node.in_varying(0):
        node.fail('a number of rows that varies')
    wanted = cast(g, reshape_to(g, node.input(1), [1, -1], hint=node.name + '_wanted'),
                  np.int64, hint=node.name + '_int')
    numbers = g.constant(np.arange(rows, dtype=np.int64).reshape(rows, 1), 'row_numbers')
    hits = cast(g, g.add('Equal', [numbers, wanted], hint=node.name + '_hits'), np.int32,
                hint=node.name + '_hit_counts')
    any_hit = reduce(g, 'ReduceMax', hits, [1], False, hint=node.name + '_any')
    kept = g.add('Greater', [any_hit, g.constant(np.array(0, np.int32), 'zero')],
                 hint=node.name + '_kept')
    rank = len(node.in_shape(0))
    mask = unsqueeze(g, kept, list(range(1, rank)), hint=node.name + '_mask') if rank > 1 \
        else kept
    zero = scalar(g, 0, node.in_dtype(0), 'zero')
    g.add('Where', [mask, node.input(0), zero], [node.outputs[0]])
