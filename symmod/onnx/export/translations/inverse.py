"""_linalg_inverse: Gauss-Jordan elimination with partial pivoting on ``[A | I]`` as an
ONNX Loop over the columns, in float64.

Step j picks the row at or below j with the largest ``|M[i, j]|`` (ArgMax, first on
ties), swaps it with row j, scales it to a unit pivot and subtracts its multiples from
every other row; after n steps the right half is ``A^-1``. Rows are selected with
one-hot vectors and products written as broadcast multiply-sums, so leading batch axes
follow. LAPACK (getrf/getri) rounds differently in the last bits; a singular matrix
gives inf/NaN (symmod raises LAPACK's error; an ONNX graph cannot).
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, scalar, slice_axes
from .loops import batch_constant, batch_varying, counted_loop, one_hot, pivot_swap

__all__ = []

_F64 = np.float64


def _elimination_step(shape):
    """Column j: the largest remaining pivot's row swapped to j, scaled to a unit pivot
    and subtracted from every other row."""
    n, width = shape[-2], shape[-1]
    cols_axis = len(shape) - 1

    def step(g, j, m):
        hint = g.fresh('gauss')
        _, _, e_col = one_hot(g, n, j, hint)                                   # n 1
        _, e_wide, _ = one_hot(g, width, j, hint + '_wide')                    # 1 2n
        _, row_p, swapped = pivot_swap(g, m, j, e_col, e_wide, n, len(shape), hint)
        pivot = reduce(g, 'ReduceSum', g.add('Mul', [row_p, e_wide], hint=hint + '_pv'),
                       [cols_axis], keepdims=True, hint=hint + '_pivot')       # ... 1 1
        unit = g.add('Div', [row_p, pivot], hint=hint + '_unit')               # ... 1 2n
        factors = reduce(g, 'ReduceSum', g.add('Mul', [swapped, e_wide], hint=hint + '_f'),
                         [cols_axis], keepdims=True, hint=hint + '_factors')   # ... n 1
        reduced = g.add('Sub', [swapped, g.add('Mul', [factors, unit], hint=hint + '_fu')],
                        hint=hint + '_reduced')
        return g.add('Add', [reduced, g.add('Mul', [e_col, unit], hint=hint + '_pr')],
                     hint=hint + '_m')
    return step


@translator('_linalg_inverse')
def inverse(g, node):
    name = node.name
    varying = batch_varying(node, 0)
    shape = list(node.in_shape(0))
    n = shape[-1]
    augmented_shape = shape[:-1] + [2 * n]
    a = cast(g, node.input(0), _F64, hint=name + '_a64')
    identity = batch_constant(g, np.eye(n), a, shape[:-2], varying, name + '_identity')
    augmented = g.add('Concat', [a, identity], hint=name + '_augmented', axis=len(shape) - 1)
    reduced = counted_loop(g, name + '_columns', n, augmented_shape, augmented,
                           _elimination_step(augmented_shape), varying)
    result = slice_axes(g, reduced, [n], [2 * n], [len(shape) - 1], hint=name + '_right')
    cast(g, result, node.out_dtype(), out=node.outputs[0])
