"""Elementwise and broadcasting arithmetic, comparisons and logic, with arrays or scalars;
clip, where, add_n, dot, batch_dot.

ONNX's binary operators broadcast like numpy, so MXNet's ``elemwise_*`` (same shapes)
and ``broadcast_*`` map to the same nodes. MXNet's comparisons and logic return 0 / 1
in the data's dtype: the boolean ONNX result is cast back.
"""
import numpy as np

from ..registry import translator
from .common import cast

# ---- arithmetic ------------------------------------------------------------------------
_ARITH = {
    'Add': ('elemwise_add', 'broadcast_add'),
    'Sub': ('elemwise_sub', 'broadcast_sub'),
    'Mul': ('elemwise_mul', 'broadcast_mul'),
    'Div': ('elemwise_div', 'broadcast_div'),
    'Pow': ('_power', 'broadcast_power'),
    'Max': ('_maximum', 'broadcast_maximum'),
    'Min': ('_minimum', 'broadcast_minimum'),
}
_COMPARE = {   # onnx op, negate
    ('_equal', 'broadcast_equal'): ('Equal', False),
    ('_not_equal', 'broadcast_not_equal'): ('Equal', True),
    ('_greater', 'broadcast_greater'): ('Greater', False),
    ('_greater_equal', 'broadcast_greater_equal'): ('GreaterOrEqual', False),
    ('_lesser', 'broadcast_lesser'): ('Less', False),
    ('_lesser_equal', 'broadcast_lesser_equal'): ('LessOrEqual', False),
}
_LOGIC = {
    ('_logical_and', 'broadcast_logical_and'): 'And',
    ('_logical_or', 'broadcast_logical_or'): 'Or',
    ('_logical_xor', 'broadcast_logical_xor'): 'Xor',
}
_SCALAR_ARITH = {   # name -> (onnx op, scalar on the left)
    '_plus_scalar': ('Add', False), '_minus_scalar': ('Sub', False),
    '_rminus_scalar': ('Sub', True), '_mul_scalar': ('Mul', False),
    '_div_scalar': ('Div', False), '_rdiv_scalar': ('Div', True),
    '_power_scalar': ('Pow', False), '_rpower_scalar': ('Pow', True),
    '_maximum_scalar': ('Max', False), '_minimum_scalar': ('Min', False),
}
_SCALAR_COMPARE = {
    '_equal_scalar': ('Equal', False), '_not_equal_scalar': ('Equal', True),
    '_greater_scalar': ('Greater', False), '_greater_equal_scalar': ('GreaterOrEqual', False),
    '_lesser_scalar': ('Less', False), '_lesser_equal_scalar': ('LessOrEqual', False),
}
_SCALAR_LOGIC = {'_logical_and_scalar': 'And', '_logical_or_scalar': 'Or',
                 '_logical_xor_scalar': 'Xor'}


def _operands(g, node):
    """The two operands in the output dtype (scalar operators: the scalar as a constant)."""
    dtype = node.out_dtype()
    lhs = node.input(0)
    if node.in_dtype(0) != dtype:
        lhs = cast(g, lhs, dtype, hint=node.name + '_lhs')
    if node.num_inputs == 2:
        rhs = node.input(1)
        if node.in_dtype(1) != dtype:
            rhs = cast(g, rhs, dtype, hint=node.name + '_rhs')
        return lhs, rhs
    from ....ops.elemwise import as_scalar
    return lhs, g.constant(np.asarray(as_scalar(node.op.scalar, dtype)), 'scalar')


def _arith(onnx_op, scalar_left=False):
    def translate(g, node):
        lhs, rhs = _operands(g, node)
        if scalar_left:
            lhs, rhs = rhs, lhs
        g.add(onnx_op, [lhs, rhs], [node.outputs[0]])
    return translate


def _compare(onnx_op, negate):
    def translate(g, node):
        lhs, rhs = node.input(0), None
        if node.num_inputs == 2:
            rhs = node.input(1)
        else:
            from ....ops.elemwise import as_scalar
            rhs = g.constant(np.asarray(as_scalar(node.op.scalar, node.in_dtype(0))), 'scalar')
        result = g.add(onnx_op, [lhs, rhs], hint=node.name + '_cmp')
        if negate:
            result = g.add('Not', [result], hint=node.name + '_not')
        cast(g, result, node.out_dtype(), node.outputs[0])
    return translate


def _logic(onnx_op):
    def translate(g, node):
        lhs, rhs = _operands(g, node)
        flags = [cast(g, v, np.bool_, hint=node.name + '_bool') for v in (lhs, rhs)]
        result = g.add(onnx_op, flags, hint=node.name + '_logic')
        cast(g, result, node.out_dtype(), node.outputs[0])
    return translate


for _onnx_op, _names in _ARITH.items():
    translator(*_names)(_arith(_onnx_op))
for _names, (_onnx_op, _negate) in _COMPARE.items():
    translator(*_names)(_compare(_onnx_op, _negate))
for _names, _onnx_op in _LOGIC.items():
    translator(*_names)(_logic(_onnx_op))
for _name, (_onnx_op, _left) in _SCALAR_ARITH.items():
    translator(_name)(_arith(_onnx_op, _left))
for _name, (_onnx_op, _negate) in _SCALAR_COMPARE.items():
    translator(_name)(_compare(_onnx_op, _negate))
for _name, _onnx_op in _SCALAR_LOGIC.items():
    translator(_name)(_logic(_onnx_op))


def _python_mod(g, node, lhs, rhs, out):
    """MXNet's modulo: the result takes the divisor's sign; x mod 0 is 0."""
    if np.issubdtype(node.out_dtype(), np.integer):
        zero = g.constant(np.zeros((), node.out_dtype()), 'zero')
        safe = g.add('Where', [g.add('Equal', [rhs, zero], hint=node.name + '_zdiv'),
                               g.constant(np.ones((), node.out_dtype()), 'one'), rhs],
                     hint=node.name + '_safe')
        mod = g.add('Mod', [lhs, safe], hint=node.name + '_mod', fmod=0)
    else:
        quotient = g.add('Floor', [g.add('Div', [lhs, rhs], hint=node.name + '_q')],
                         hint=node.name + '_floor')
        mod = g.add('Sub', [lhs, g.add('Mul', [quotient, rhs], hint=node.name + '_qb')],
                    hint=node.name + '_mod')
        zero = g.constant(np.zeros((), node.out_dtype()), 'zero')
    divisor = g.initializers.get(rhs)
    if divisor is not None and np.all(divisor != 0):
        g.add('Identity', [mod], [out])
        return
    is_zero = g.add('Equal', [rhs, zero], hint=node.name + '_iszero')
    g.add('Where', [is_zero, g.add('Mul', [lhs, zero], hint=node.name + '_zeros'), mod], [out])


@translator('_mod', 'broadcast_mod', '_mod_scalar', '_rmod_scalar')
def mod(g, node):
    lhs, rhs = _operands(g, node)
    if node.op.name == '_rmod_scalar':
        lhs, rhs = rhs, lhs
    _python_mod(g, node, lhs, rhs, node.outputs[0])


@translator('_hypot', 'broadcast_hypot', '_hypot_scalar')
def hypot(g, node):
    lhs, rhs = _operands(g, node)
    squares = [g.add('Mul', [v, v], hint=node.name + '_sq') for v in (lhs, rhs)]
    g.add('Sqrt', [g.add('Add', squares, hint=node.name + '_sum')], [node.outputs[0]])


@translator('add_n')
def add_n(g, node):
    g.add('Sum', [node.input(i) for i in range(node.num_inputs)], [node.outputs[0]])


@translator('clip')
def clip(g, node):
    dtype = node.in_dtype(0)
    low = g.constant(np.asarray(node.op.a_min, dtype), 'min')
    high = g.constant(np.asarray(node.op.a_max, dtype), 'max')
    g.add('Clip', [node.input(0), low, high], [node.outputs[0]])


@translator('where')
def where(g, node):
    condition = cast(g, node.input(0), np.bool_, hint=node.name + '_cond')
    cond_rank, rank = len(node.in_shape(0)), len(node.in_shape(1))
    if cond_rank == 1 and rank > 1:
        # MXNet's 1-D condition picks whole rows along axis 0
        condition = g.add('Reshape', [condition, g.int64s([-1] + [1] * (rank - 1), 'shape')],
                          hint=node.name + '_rows')
    g.add('Where', [condition, node.input(1), node.input(2)], [node.outputs[0]])


# ---- products ---------------------------------------------------------------------------
def _swap_last(g, x, rank, hint):
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return g.add('Transpose', [x], hint=hint, perm=perm)


@translator('dot')
def dot(g, node):
    op = node.op
    a, b = node.input(0), node.input(1)
    ra, rb = len(node.in_shape(0)), len(node.in_shape(1))
    if op.transpose_a and ra != 2 or op.transpose_b and rb != 2 or ra < 1 or rb < 1:
        node.fail('dot with transpose of an array that is not 2-D')
    if op.transpose_a:
        a = g.add('Transpose', [a], hint=node.name + '_aT', perm=[1, 0])
    if op.transpose_b:
        b = g.add('Transpose', [b], hint=node.name + '_bT', perm=[1, 0])
    if rb <= 2:
        g.add('MatMul', [a, b], [node.outputs[0]])
        return
    # MXNet contracts a's last axis with b's first: flatten b's trailing axes
    if node.in_varying(1):
        node.fail('dot of an N-d right operand whose shape varies')
    k = node.in_shape(1)[0]
    flat_b = g.add('Reshape', [b, g.int64s([k, -1], 'shape')], hint=node.name + '_bflat')
    product = g.add('MatMul', [a, flat_b], hint=node.name + '_mm')
    out_shape = [0] * (ra - 1) + list(node.in_shape(1)[1:])
    g.add('Reshape', [product, g.int64s(out_shape, 'shape')], [node.outputs[0]])


@translator('batch_dot')
def batch_dot(g, node):
    op = node.op
    a, b = node.input(0), node.input(1)
    if op.transpose_a:
        a = _swap_last(g, a, len(node.in_shape(0)), node.name + '_aT')
    if op.transpose_b:
        b = _swap_last(g, b, len(node.in_shape(1)), node.name + '_bT')
    g.add('MatMul', [a, b], [node.outputs[0]])


def matrix_product(g, node, out=None):
    """``op(A) op(B)`` of a linalg gemm node (its transposes; matrices on the last two
    axes)."""
    op = node.op
    rank = len(node.in_shape(0))
    if op.axis % rank != rank - 2:
        node.fail('axis %d (only the last two axes hold the matrices in ONNX)' % op.axis)
    a, b = node.input(0), node.input(1)
    if op.transpose_a:
        a = _swap_last(g, a, rank, node.name + '_aT')
    if op.transpose_b:
        b = _swap_last(g, b, rank, node.name + '_bT')
    return g.add('MatMul', [a, b], None if out is None else [out], hint=node.name + '_mm')


@translator('_linalg_gemm2')
def linalg_gemm2(g, node):
    op = node.op
    if op.alpha == 1.0:
        matrix_product(g, node, node.outputs[0])
    else:
        alpha = g.constant(np.asarray(op.alpha, node.out_dtype()), 'alpha')
        g.add('Mul', [matrix_product(g, node), alpha], [node.outputs[0]])
