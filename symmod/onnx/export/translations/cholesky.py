"""_linalg_potrf (the Cholesky factor), _linalg_trsm (triangular solve) and _linalg_potri
(inverse from a Cholesky factor) as ONNX Loops, in float64.

potrf: a Loop over the columns. The symmetric matrix is read from the requested
triangle, as symmod does. Step j (a
float64 loop variable, selecting with a one-hot vector e_j) computes column j of the
lower factor L from the columns before it, which are the only non-zero ones yet:
``v = A e_j - L (e_j^T L)^T``, ``L[j, j] = sqrt(v_j)``, ``L[i, j] = v_i / L[j, j]`` below
the diagonal. Products are written as broadcast multiplications and sums, so any leading
batch axes follow. LAPACK's rounding differs in the last bits; a matrix that is not
positive definite gives NaN (symmod raises LAPACK's error; an ONNX graph cannot).

trsm and potri: substitution over the triangle, a Loop over the rows (potri solves
against the identity, then multiplies the inverse factor with its transpose).
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, scalar
from .loops import batch_constant, batch_varying, counted_loop, one_hot

__all__ = []

_F64 = np.float64


def _cholesky_step(a, shape):
    """Column j of the lower factor from the columns before it (the only non-zero ones)."""
    n, rank = shape[-1], len(shape)
    last, before_last = rank - 1, rank - 2

    def step(g, j, factor):
        hint = g.fresh('chol')
        positions, e_row, e_col = one_hot(g, n, j, hint)
        a_col = reduce(g, 'ReduceSum', g.add('Mul', [a, e_row], hint=hint + '_ae'), [last],
                       keepdims=True, hint=hint + '_a_col')                    # ... n 1
        l_row = reduce(g, 'ReduceSum', g.add('Mul', [factor, e_col], hint=hint + '_le'),
                       [before_last], keepdims=True, hint=hint + '_l_row')     # ... 1 n
        done = reduce(g, 'ReduceSum', g.add('Mul', [factor, l_row], hint=hint + '_ll'),
                      [last], keepdims=True, hint=hint + '_done')              # ... n 1
        v = g.add('Sub', [a_col, done], hint=hint + '_v')
        pivot = g.add('Sqrt', [reduce(g, 'ReduceSum', g.add('Mul', [v, e_col],
                                                            hint=hint + '_ve'),
                                      [before_last], keepdims=True, hint=hint + '_vj')],
                      hint=hint + '_pivot')                                    # ... 1 1
        below = cast(g, g.add('Greater', [positions, j], hint=hint + '_gt'), _F64,
                     hint=hint + '_below')
        below_col = g.add('Reshape', [below, g.int64s([n, 1], hint + '_b_shape')],
                          hint=hint + '_below_col')
        column = g.add('Add', [g.add('Mul', [g.add('Div', [v, pivot], hint=hint + '_scaled'),
                                             below_col], hint=hint + '_lower'),
                               g.add('Mul', [e_col, pivot], hint=hint + '_diag')],
                       hint=hint + '_column')                                  # ... n 1
        return g.add('Add', [factor, g.add('Mul', [column, e_row], hint=hint + '_place')],
                     hint=hint + '_factor')
    return step


@translator('_linalg_potrf')
def potrf(g, node):
    varying = batch_varying(node, 0)
    name, shape = node.name, list(node.in_shape(0))
    n, rank = shape[-1], len(shape)
    a = cast(g, node.input(0), _F64, hint=name + '_a64')
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    mirrored = g.add('Transpose', [a], hint=name + '_mirrored', perm=perm)
    keep = np.tril(np.ones((n, n), bool)) if node.op.lower else np.triu(np.ones((n, n), bool))
    a = g.add('Where', [g.constant(keep, name + '_triangle'), a, mirrored],
              hint=name + '_symmetric')
    factor = counted_loop(g, name + '_columns', n, shape,
                          batch_constant(g, np.zeros((n, n)), a, shape[:-2], varying,
                                         name + '_l0'),
                          _cholesky_step(a, shape), varying)
    if not node.op.lower:
        factor = g.add('Transpose', [factor], hint=name + '_upper', perm=perm)
    cast(g, factor, node.out_dtype(), out=node.outputs[0])


def _transpose(g, x, rank, hint):
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return g.add('Transpose', [x], hint=hint, perm=perm)


def _substitution_step(t, c, shape, n, lower):
    """Row i = j (or n - 1 - j) of X with ``T X = C``, from the rows already filled (the
    only non-zero ones): ``X_i = (C_i - T_i X) / T_ii``."""
    rank = len(shape)

    def step(g, j, x):
        hint = g.fresh('subst')
        row = j if lower else g.add('Sub', [scalar(g, n - 1, _F64, 'last'), j],
                                    hint=hint + '_row')
        _, e_row, e_col = one_hot(g, n, row, hint)
        t_row = reduce(g, 'ReduceSum', g.add('Mul', [t, e_col], hint=hint + '_te'),
                       [rank - 2], keepdims=True, hint=hint + '_t_row')         # ... 1 n
        diagonal = reduce(g, 'ReduceSum', g.add('Mul', [t_row, e_row], hint=hint + '_tee'),
                          [rank - 1], keepdims=True, hint=hint + '_diag')       # ... 1 1
        known = reduce(g, 'ReduceSum', g.add('Mul', [x, _transpose(g, t_row, rank,
                                                                   hint + '_t_col')],
                                             hint=hint + '_tx'), [rank - 2], keepdims=True,
                       hint=hint + '_known')                                    # ... 1 m
        c_row = reduce(g, 'ReduceSum', g.add('Mul', [c, e_col], hint=hint + '_ce'),
                       [rank - 2], keepdims=True, hint=hint + '_c_row')
        x_row = g.add('Div', [g.add('Sub', [c_row, known], hint=hint + '_rest'), diagonal],
                      hint=hint + '_x_row')
        return g.add('Add', [x, g.add('Mul', [e_col, x_row], hint=hint + '_place')],
                     hint=hint + '_x')
    return step


def _solve(g, node, t, c, c_shape, n, lower, hint, varying):
    """X with ``T X = C`` for triangular T (float64 tensors), by a Loop."""
    return counted_loop(g, hint + '_rows', n, c_shape,
                        batch_constant(g, np.zeros(c_shape[-2:]), c, c_shape[:-2], varying,
                                       hint + '_x0'),
                        _substitution_step(t, c, c_shape, n, lower), varying)


def _triangle(g, node, a, n, lower, hint):
    keep = np.tril(np.ones((n, n))) if lower else np.triu(np.ones((n, n)))
    return g.add('Mul', [a, g.constant(keep, hint + '_mask')], hint=hint)


@translator('_linalg_trsm')
def trsm(g, node):
    """``alpha op(A)^-1 B`` (``rightside``: ``alpha B op(A)^-1``, solved as the transpose
    of ``op(A)^T X^T = B^T``) by substitution over A's triangle."""
    op, name = node.op, node.name
    varying = batch_varying(node, 0, 1)
    shape, rank = list(node.in_shape(1)), len(node.in_shape(1))
    n = node.in_shape(0)[-1]
    t = _triangle(g, node, cast(g, node.input(0), _F64, hint=name + '_a64'), n, op.lower,
                  name + '_tri')
    lower = op.lower
    if op.transpose:
        t, lower = _transpose(g, t, rank, name + '_op'), not lower
    c = cast(g, node.input(1), _F64, hint=name + '_b64')
    if op.rightside:
        t, lower = _transpose(g, t, rank, name + '_right'), not lower
        c = _transpose(g, c, rank, name + '_bt')
        shape[-1], shape[-2] = shape[-2], shape[-1]
    x = _solve(g, node, t, c, shape, n, lower, name, varying)
    if op.rightside:
        x = _transpose(g, x, rank, name + '_xt')
    x = g.add('Mul', [x, scalar(g, op.alpha, _F64, 'alpha')], hint=name + '_scaled')
    cast(g, x, node.out_dtype(), out=node.outputs[0])


@translator('_linalg_potri')
def potri(g, node):
    """``B^-T B^-1`` (``lower=False``: ``B^-1 B^-T``) from the factor's triangle, B^-1 by
    substitution against the identity."""
    op, name = node.op, node.name
    varying = batch_varying(node, 0)
    shape = list(node.in_shape(0))
    n, rank = shape[-1], len(shape)
    b = _triangle(g, node, cast(g, node.input(0), _F64, hint=name + '_b64'), n, op.lower,
                  name + '_tri')
    identity = batch_constant(g, np.eye(n), b, shape[:-2], varying, name + '_identity')
    inverse = _solve(g, node, b, identity, shape, n, op.lower, name, varying)
    flipped = _transpose(g, inverse, rank, name + '_inv_t')
    pair = [flipped, inverse] if op.lower else [inverse, flipped]
    cast(g, g.add('MatMul', pair, hint=name + '_product'), node.out_dtype(),
         out=node.outputs[0])
