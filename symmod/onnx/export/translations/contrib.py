"""Operators outside the core families: contrib elementwise math (quadratic,
div_sqrt_dim, smooth_l1, the straight-through estimators, gradientmultiplier), softmin,
allclose, AMP casts, cast_storage, _split_v2, _rnn_param_concat, batch_take, gather_nd,
khatri_rao, the legacy ``*_v1`` layers, and operators whose output depends on the input's
shape alone (index_array, MultiBoxPrior).
"""
import numpy as np

from ..registry import translator
from .activation import _softmax_common, round_away
from .common import cast, reduce, reshape_to, scalar, slice_axes, squeeze, unsqueeze
from .nn import convolution, pooling
from .norm import batch_norm
from .shape import concat

translator('Convolution_v1')(convolution)
translator('Pooling_v1')(pooling)
translator('BatchNorm_v1')(batch_norm)
translator('_rnn_param_concat')(concat)
translator('_contrib_round_ste')(round_away)


@translator('_contrib_sign_ste')
def sign_ste(g, node):
    g.add('Sign', [node.input(0)], [node.outputs[0]])


@translator('_contrib_gradientmultiplier', 'cast_storage')
def identity(g, node):
    """The identity in inference (a gradient scale; dense storage only)."""
    g.add('Identity', [node.input(0)], [node.outputs[0]])


@translator('softmin')
def softmin(g, node):
    _softmax_common(g, node, 'Softmax', g.add('Neg', [node.input(0)], hint=node.name + '_neg'))


@translator('_contrib_quadratic')
def quadratic(g, node):
    """``x * (a * x + b) + c`` with the coefficients in the data's type, as symmod."""
    op, x, dtype = node.op, node.input(0), node.in_dtype(0)
    a, b, c = (scalar(g, v, dtype, name) for v, name in ((op.a, 'a'), (op.b, 'b'), (op.c, 'c')))
    inner = g.add('Add', [g.add('Mul', [a, x], hint=node.name + '_ax'), b],
                  hint=node.name + '_axb')
    g.add('Add', [g.add('Mul', [x, inner], hint=node.name + '_x_axb'), c], [node.outputs[0]])


@translator('_contrib_div_sqrt_dim')
def div_sqrt_dim(g, node):
    """``x * (1 / sqrt(last dim))``, the factor in the data's type (a varying last axis
    reads its size from the shape)."""
    x, dtype = node.input(0), node.in_dtype(0)
    size = g.add('Gather', [g.add('Shape', [x], hint=node.name + '_shape'),
                            g.int64s([-1], 'last')], hint=node.name + '_dim')
    root = g.add('Sqrt', [cast(g, size, dtype, hint=node.name + '_dimf')],
                 hint=node.name + '_sqrt')
    factor = g.add('Div', [scalar(g, 1, dtype, 'one'), root], hint=node.name + '_factor')
    g.add('Mul', [x, factor], [node.outputs[0]])


@translator('smooth_l1')
def smooth_l1(g, node):
    """``|x| - 0.5 / s^2`` where ``|x| > 1 / s^2``, else ``0.5 s^2 x^2``."""
    x, dtype, s = node.input(0), node.in_dtype(0), node.op.scalar
    bsq = s * s
    ax = g.add('Abs', [x], hint=node.name + '_abs')
    square = g.add('Mul', [g.add('Mul', [x, x], hint=node.name + '_sq'),
                           scalar(g, 0.5 * bsq, dtype, 'half_bsq')], hint=node.name + '_quad')
    linear = g.add('Sub', [ax, scalar(g, 0.5 / bsq, dtype, 'half_ibsq')],
                   hint=node.name + '_lin')
    far = g.add('Greater', [ax, scalar(g, 1 / bsq, dtype, 'ibsq')], hint=node.name + '_far')
    g.add('Where', [far, linear, square], [node.outputs[0]])


@translator('_contrib_allclose')
def allclose(g, node):
    """1 (uint8) when every pair is within ``atol + rtol * |b|`` (NaNs equal when
    ``equal_nan``), else 0."""
    op, a, b, dtype = node.op, node.input(0), node.input(1), node.in_dtype(0)
    name = node.name
    tol = g.add('Add', [scalar(g, np.float32(op.atol), dtype, 'atol'),
                        g.add('Mul', [scalar(g, np.float32(op.rtol), dtype, 'rtol'),
                                      g.add('Abs', [b], hint=name + '_absb')],
                              hint=name + '_rel')], hint=name + '_tol')
    gap = g.add('Abs', [g.add('Sub', [a, b], hint=name + '_diff')], hint=name + '_gap')
    close = g.add('Or', [g.add('Equal', [a, b], hint=name + '_eq'),
                         g.add('LessOrEqual', [gap, tol], hint=name + '_within')],
                  hint=name + '_close')
    if dtype.kind == 'f':
        nan_a = g.add('IsNaN', [a], hint=name + '_nan_a')
        nan_b = g.add('IsNaN', [b], hint=name + '_nan_b')
        either = g.add('Or', [nan_a, nan_b], hint=name + '_nan')
        close = g.add('And', [g.add('Not', [either], hint=name + '_numbers'), close],
                      hint=name + '_close_numbers')
        if op.equal_nan:
            close = g.add('Or', [close, g.add('And', [nan_a, nan_b], hint=name + '_both_nan')],
                          hint=name + '_verdict')
    as_int = cast(g, close, np.int32, hint=name + '_int')
    cast(g, reduce(g, 'ReduceMin', as_int, None, False, hint=name + '_all'), np.uint8,
         out=node.outputs[0])


@translator('amp_cast', 'amp_multicast')
def amp_casts(g, node):
    """Each float input to its output's type (non-float inputs pass through)."""
    for i, out in enumerate(node.outputs[:node.num_inputs]):
        if node.in_dtype(i) == node.out_dtype(i):
            g.add('Identity', [node.input(i)], [out])
        else:
            cast(g, node.input(i), node.out_dtype(i), out=out)


@translator('_split_v2')
def split_v2(g, node):
    op, rank = node.op, len(node.in_shape(0))
    axis = op.axis % rank
    if axis in node.in_varying(0):
        node.fail('the split axis varies (the bounds are fixed at export)')
    for (begin, end), out in zip(op._bounds(node.in_shape(0)[axis]), node.outputs):
        if op.squeeze_axis:
            part = slice_axes(g, node.input(0), [begin], [end], [axis], hint=node.name + '_part')
            squeeze(g, part, [axis], out=out)
        else:
            slice_axes(g, node.input(0), [begin], [end], [axis], out=out)


@translator('batch_take')
def batch_take(g, node):
    """``a[i, clip(indices[i])]`` for each row i of the matrix ``a``."""
    columns = node.in_shape(0)[1]
    if 1 in node.in_varying(0):
        node.fail('the number of columns varies (the clip bound is fixed at export)')
    index = cast(g, reshape_to(g, node.input(1), [-1, 1], hint=node.name + '_col'), np.int64,
                 hint=node.name + '_index')
    index = g.add('Clip', [index, g.constant(np.array(0, np.int64), 'zero'),
                           g.constant(np.array(columns - 1, np.int64), 'last')],
                  hint=node.name + '_clipped')
    picked = g.add('GatherElements', [node.input(0), index], hint=node.name + '_picked', axis=1)
    reshape_to(g, picked, [-1], out=node.outputs[0])


@translator('gather_nd')
def gather_nd(g, node):
    """ONNX GatherND with the index tuples moved to the last axis (MXNet keeps them
    first); negative indices count from the end in both."""
    rank = len(node.in_shape(1))
    index = cast(g, node.input(1), np.int64, hint=node.name + '_index')
    moved = g.add('Transpose', [index], hint=node.name + '_tuples',
                  perm=list(range(1, rank)) + [0])
    g.add('GatherND', [node.input(0), moved], [node.outputs[0]])


@translator('khatri_rao')
def khatri_rao(g, node):
    """Column-wise Kronecker products, left to right."""
    result = node.input(0)
    for i in range(1, node.num_inputs):
        left = unsqueeze(g, result, [1], hint=node.name + '_left')
        right = unsqueeze(g, node.input(i), [0], hint=node.name + '_right')
        product = g.add('Mul', [left, right], hint=node.name + '_outer')
        out = node.outputs[0] if i == node.num_inputs - 1 else None
        result = reshape_to(g, product, [-1, node.in_shape(i)[1]], out=out,
                            hint=node.name + '_rows')
    if node.num_inputs == 1:
        g.add('Identity', [result], [node.outputs[0]])


@translator('_contrib_index_array', '_contrib_MultiBoxPrior')
def from_shape(g, node):
    """The output depends on the input's shape only: computed by symmod at export."""
    if node.out_varying(0):
        node.fail('its output depends on input dimensions that vary (it is computed at '
                  'export time for fixed shapes)')
    data = np.zeros(node.in_shape(0), node.in_dtype(0))
    value = node.run([data])[0]
    g.add('Identity', [g.constant(value, node.name + '_value')], [node.outputs[0]])


def _wrapped(g, node, index, sizes, hint):
    """int64 ``index`` with negative entries counted from the end of ``sizes`` (broadcast
    along the last axis), as numpy indexing does."""
    index = cast(g, index, np.int64, hint=hint + '_int')
    negative = g.add('Less', [index, g.constant(np.array(0, np.int64), 'zero')],
                     hint=hint + '_negative')
    shifted = g.add('Add', [index, g.constant(np.asarray(sizes, np.int64), 'sizes')],
                    hint=hint + '_shifted')
    return g.add('Where', [negative, shifted, index], hint=hint + '_wrapped')


@translator('scatter_nd')
def scatter_nd(g, node):
    """ONNX ScatterND into zeros (index tuples moved to the last axis)."""
    rank = len(node.in_shape(1))
    count = node.in_shape(1)[0]
    moved = g.add('Transpose', [node.input(1)], hint=node.name + '_tuples',
                  perm=list(range(1, rank)) + [0])
    index = _wrapped(g, node, moved, list(node.out_shape(0)[:count]), node.name + '_index')
    zeros = g.constant(np.zeros(node.out_shape(0), node.out_dtype()), node.name + '_zeros')
    g.add('ScatterND', [zeros, index, node.input(0)], [node.outputs[0]])


@translator('_contrib_index_copy')
def index_copy(g, node):
    """The rows ``index_vector`` of ``old_tensor`` replaced by ``new_tensor``'s."""
    rows = reshape_to(g, node.input(1), [-1, 1], hint=node.name + '_rows')
    index = _wrapped(g, node, rows, [node.in_shape(0)[0]], node.name + '_index')
    new = node.input(2)
    if node.in_dtype(2) != node.out_dtype():
        new = cast(g, new, node.out_dtype(), hint=node.name + '_new')
    g.add('ScatterND', [node.input(0), index, new], [node.outputs[0]])


@translator('fill_element_0index')
def fill_element_0index(g, node):
    """``lhs`` with ``lhs[i, rhs[i]]`` set to ``mhs[i]``."""
    cols = _wrapped(g, node, reshape_to(g, node.input(2), [-1, 1], hint=node.name + '_cols'),
                    [node.in_shape(0)[1]], node.name + '_index')
    values = reshape_to(g, node.input(1), [-1, 1], hint=node.name + '_values')
    g.add('ScatterElements', [node.input(0), cols, values], [node.outputs[0]], axis=1)
