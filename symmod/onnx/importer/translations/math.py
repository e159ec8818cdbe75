"""Elementwise arithmetic, comparisons and logic (numpy broadcasting), unary math,
Clip, Where, Cast, reductions, ArgMax / ArgMin and TopK."""
import numpy as np

from ..registry import translator


def _sym():
    from .... import symbol
    return symbol


def _scalar(node, index):
    """The value of input ``index`` when it is a one-element constant, else None."""
    value = node.const(index)
    if value is not None and value.size == 1:
        return float(value.reshape(()).item())
    return None


# ---- binary -------------------------------------------------------------------------------
_BINARY = {   # onnx op -> (broadcast op, scalar op, reversed scalar op)
    'Add': ('broadcast_add', '_plus_scalar', '_plus_scalar'),
    'Sub': ('broadcast_sub', '_minus_scalar', '_rminus_scalar'),
    'Mul': ('broadcast_mul', '_mul_scalar', '_mul_scalar'),
    'Div': ('broadcast_div', '_div_scalar', '_rdiv_scalar'),
    'Pow': ('broadcast_power', '_power_scalar', '_rpower_scalar'),
    'Equal': ('broadcast_equal', '_equal_scalar', '_equal_scalar'),
    'Greater': ('broadcast_greater', '_greater_scalar', '_lesser_scalar'),
    'Less': ('broadcast_lesser', '_lesser_scalar', '_greater_scalar'),
    'GreaterOrEqual': ('broadcast_greater_equal', '_greater_equal_scalar',
                       '_lesser_equal_scalar'),
    'LessOrEqual': ('broadcast_lesser_equal', '_lesser_equal_scalar', '_greater_equal_scalar'),
    'And': ('broadcast_logical_and', '_logical_and_scalar', '_logical_and_scalar'),
    'Or': ('broadcast_logical_or', '_logical_or_scalar', '_logical_or_scalar'),
    'Xor': ('broadcast_logical_xor', '_logical_xor_scalar', '_logical_xor_scalar'),
}


def _binary(names):
    full, scalar_op, reversed_op = names

    def translate(g, node):
        S = _sym()
        right, left = _scalar(node, 1), _scalar(node, 0)
        # a one-element constant becomes the operator's scalar (when the result keeps the
        # other operand's shape)
        if right is not None and _keeps_shape(node, 0):
            return getattr(S, scalar_op)(node.sym(0), scalar=right, name=node.name)
        if left is not None and _keeps_shape(node, 1):
            return getattr(S, reversed_op)(node.sym(1), scalar=left, name=node.name)
        return getattr(S, full)(node.sym(0), node.sym(1), name=node.name)
    return translate


def _keeps_shape(node, index):
    """Whether broadcasting with the (one-element constant) other operand leaves input
    ``index``'s shape."""
    mine, other = node.shape(index), node.const(1 - index)
    return other.ndim <= (1 if mine is None else len(mine))


for _op, _names in _BINARY.items():
    translator(_op)(_binary(_names))


@translator('Max', 'Min', 'Sum', 'Mean')
def variadic(g, node):
    S = _sym()
    op = {'Max': S.broadcast_maximum, 'Min': S.broadcast_minimum}.get(node.op_type,
                                                                      S.broadcast_add)
    result = node.sym(0)
    count = len(node.inputs)
    for i in range(1, count):
        name = node.name if i == count - 1 and node.op_type != 'Mean' else None
        result = op(result, node.sym(i), name=name)
    if node.op_type == 'Mean':
        return S._div_scalar(result, scalar=float(count), name=node.name)
    if count == 1:
        return S.identity(result, name=node.name)
    return result


@translator('Mod')
def mod(g, node):
    S = _sym()
    if node.attrs.get('fmod', 0):
        # C's remainder takes the dividend's sign; on magnitudes it equals Python's modulo
        # (exactly: neither needs a correction there)
        remainder = S.broadcast_mod(S.abs(node.sym(0)), S.abs(node.sym(1)),
                                    name=node.name + '_magnitude')
        return S.broadcast_mul(S.sign(node.sym(0)), remainder, name=node.name)
    return S.broadcast_mod(node.sym(0), node.sym(1), name=node.name)


# ---- random draws -------------------------------------------------------------------------
_DRAWS = {   # onnx op -> (symmod op, its two distribution parameters <- ONNX's, defaults)
    'RandomUniform': ('_random_uniform', (('low', 'low', 0.0), ('high', 'high', 1.0))),
    'RandomNormal': ('_random_normal', (('loc', 'mean', 0.0), ('scale', 'scale', 1.0))),
}


@translator(*_DRAWS)
def random_draw(g, node):
    from ... import _deps
    op_name, params = _DRAWS[node.op_type]
    kwargs = {mine: node.attrs.get(theirs, default) for mine, theirs, default in params}
    return getattr(_sym(), op_name)(shape=tuple(node.attrs['shape']), name=node.name,
                                    dtype=_deps.numpy_type(node.attrs.get('dtype', 1)).name,
                                    **kwargs)


def _broadcast_dim(dims):
    """The broadcast size of one axis; None when it follows an unknown (dynamic) size."""
    known = [d for d in dims if d is not None]
    if len(known) < len(dims) and all(d == 1 for d in known):
        return None
    return max(known)


@translator('Where')
def where(g, node):
    S = _sym()
    shapes = [node.shape(i) for i in range(3)]
    if None in shapes:
        node.fail('operands of unknown rank')
    if shapes[0] == shapes[1] == shapes[2]:
        return S.where(node.sym(0), node.sym(1), node.sym(2), name=node.name)
    # symmod's where takes equal shapes: broadcast every operand like the largest one
    rank = max(len(s) for s in shapes)
    full = [_broadcast_dim([s[len(s) - rank + a] if len(s) - rank + a >= 0 else 1
                            for s in shapes]) for a in range(rank)]
    reference = next((i for i, s in enumerate(shapes) if len(s) == rank and all(
        d is None or d == f for d, f in zip(s, full))), None)
    if reference is None:
        node.fail('broadcasting that no single operand spans')
    operands = []
    for i, shape in enumerate(shapes):
        operand = node.sym(i)
        if i != reference:
            for _ in range(rank - len(shape)):
                operand = S.expand_dims(operand, axis=0)
            if None not in full and 0 not in full:
                operands.append(S.broadcast_to(operand, shape=tuple(full)))
                continue
            like = node.sym(reference)
            mine, theirs = (g.types.get(node.inputs[k]) for k in (i, reference))
            if mine is not None and theirs is not None and mine != theirs:
                like = S.Cast(like, dtype=mine.name)    # broadcast_like wants one dtype
            operand = S.broadcast_like(operand, like)
        operands.append(operand)
    return S.where(*operands, name=node.name)


@translator('IsNaN')
def is_nan(g, node):
    # NaN is the one value unequal to itself
    return _sym().broadcast_not_equal(node.sym(0), node.sym(0), name=node.name)


@translator('Clip')
def clip(g, node):
    low = _scalar(node, 1) if node.has(1) else node.attrs.get('min', -np.inf)
    high = _scalar(node, 2) if node.has(2) else node.attrs.get('max', np.inf)
    if low is None or high is None:
        node.fail('min / max must be constants')
    return _sym().clip(node.sym(0), a_min=float(max(low, -3.4e38)),
                       a_max=float(min(high, 3.4e38)), name=node.name)


@translator('Cast')
def cast(g, node):
    from ... import _deps
    dtype = _deps.numpy_type(node.attrs['to'])
    S = _sym()
    if dtype == np.bool_:
        # ONNX's bool: nonzero -> 1 (symmod keeps 0 / 1 in a numeric type)
        return S._not_equal_scalar(node.sym(0), scalar=0.0, name=node.name)
    return S.Cast(node.sym(0), dtype=dtype.name, name=node.name)


# ---- unary -----------------------------------------------------------------------------
_UNARY = {'Neg': 'negative', 'Abs': 'abs', 'Sign': 'sign', 'Ceil': 'ceil', 'Floor': 'floor',
          'Sqrt': 'sqrt', 'Reciprocal': 'reciprocal', 'Exp': 'exp', 'Log': 'log',
          'Sin': 'sin', 'Cos': 'cos', 'Tan': 'tan', 'Asin': 'arcsin', 'Acos': 'arccos',
          'Atan': 'arctan', 'Sinh': 'sinh', 'Cosh': 'cosh', 'Asinh': 'arcsinh',
          'Acosh': 'arccosh', 'Atanh': 'arctanh', 'Erf': 'erf', 'Not': 'logical_not',
          'Identity': 'identity'}


def _unary(name):
    def translate(g, node):
        return getattr(_sym(), name)(node.sym(0), name=node.name)
    return translate


for _op, _name in _UNARY.items():
    translator(_op)(_unary(_name))


@translator('Round')
def round_half_even(g, node):
    """ONNX rounds halves to the even neighbour (MXNet's round goes away from zero):
    ``floor(x)``, plus 1 above the half, plus ``floor(x) mod 2`` at it."""
    S, x, name = _sym(), node.sym(0), node.name
    low = S.floor(x, name=name + '_floor')
    frac = S.elemwise_sub(x, low, name=name + '_frac')      # exact in floating point
    up = S.where(S._equal_scalar(frac, scalar=0.5, name=name + '_tie'),
                 S._mod_scalar(low, scalar=2.0, name=name + '_odd'),
                 S._greater_scalar(frac, scalar=0.5, name=name + '_above'), name=name + '_up')
    return S.elemwise_add(low, up, name=name)


# ---- reductions ---------------------------------------------------------------------------
def _axes(node):
    axes = node.attrs.get('axes')
    if axes is None and node.has(1):
        axes = node.required_const(1, 'axes').tolist()
    if not axes:
        if node.attrs.get('noop_with_empty_axes', 0):
            return ()
        return None
    return tuple(int(a) for a in axes)


_REDUCE = {'ReduceSum': 'sum', 'ReduceMean': 'mean', 'ReduceMax': 'max', 'ReduceMin': 'min',
           'ReduceProd': 'prod'}


def _reduction(name):
    def translate(g, node):
        axes = _axes(node)
        S = _sym()
        if axes == ():
            return S.identity(node.sym(0), name=node.name)
        keep = bool(node.attrs.get('keepdims', 1))
        return getattr(S, name)(node.sym(0), axis=axes, keepdims=keep, name=node.name)
    return translate


for _op, _name in _REDUCE.items():
    translator(_op)(_reduction(_name))


@translator('ReduceL1', 'ReduceL2')
def reduce_norm(g, node):
    axes = _axes(node)
    return _sym().norm(node.sym(0), ord=1 if node.op_type == 'ReduceL1' else 2, axis=axes,
                       keepdims=bool(node.attrs.get('keepdims', 1)), name=node.name)


@translator('ReduceSumSquare')
def reduce_sum_square(g, node):
    S = _sym()
    return S.sum(S.square(node.sym(0)), axis=_axes(node),
                 keepdims=bool(node.attrs.get('keepdims', 1)), name=node.name)


@translator('ReduceLogSumExp')
def reduce_log_sum_exp(g, node):
    S = _sym()
    total = S.sum(S.exp(node.sym(0)), axis=_axes(node),
                  keepdims=bool(node.attrs.get('keepdims', 1)))
    return S.log(total, name=node.name)


def _search(name):
    def translate(g, node):
        if node.attrs.get('select_last_index', 0):
            node.fail('select_last_index=1')
        S = _sym()
        found = getattr(S, name)(node.sym(0), axis=node.attrs.get('axis', 0),
                                 keepdims=bool(node.attrs.get('keepdims', 1)))
        return S.Cast(found, dtype='int64', name=node.name)
    return translate


translator('ArgMax')(_search('argmax'))
translator('ArgMin')(_search('argmin'))


@translator('TopK')
def topk(g, node):
    """symmod's topk for the values; for the indices, ONNX puts equal values in index
    order while symmod's topk keeps MXNet's (unstable) sort order, so float32 / float16
    values of fewer than 2^18 along the axis are sorted on distinct float64 keys: each
    value moved, by its index, less than the spacing of float32 values."""
    k = node.required_const(1, 'k')
    if not node.attrs.get('sorted', 1):
        node.fail('sorted=0')
    S = _sym()
    axis, k = node.attrs.get('axis', -1), int(k.reshape(-1)[0])
    ascending = not node.attrs.get('largest', 1)
    options = dict(k=k, axis=axis, is_ascend=ascending)
    values = S.topk(node.sym(0), ret_typ='value', name=node.name + '_values', **options)
    shape = node.shape(0)
    dtype = np.dtype(g.types.get(node.inputs[0], np.float32))
    keys = node.sym(0)
    if dtype in (np.float32, np.float16) and shape is not None and \
            shape[axis] is not None and shape[axis] < 2 ** 18:
        count = shape[axis]
        where = [1] * len(shape)
        where[axis] = count
        ids = np.arange(count, dtype=np.float64).reshape(where)
        big = float(np.finfo(np.float32).max)
        finite = S.clip(S.Cast(keys, dtype='float64'), a_min=-big, a_max=big)
        step = S.broadcast_add(S.broadcast_mul(S.abs(finite), g.new_param(
            node.name + '_spread', ids * 2.0 ** -42)), g.new_param(node.name + '_offset',
                                                                  ids * 1e-300))
        keys = (S.broadcast_add if ascending else S.broadcast_sub)(finite, step)
    indices = S.topk(keys, ret_typ='indices', dtype='int64', name=node.name + '_indices',
                     **options)
    return [S.identity(values, name=node.name), indices]


@translator('CumSum')
def cumsum(g, node):
    """Running sums along a constant axis; ``reverse`` runs from the end, ``exclusive``
    leaves each element out of its own sum."""
    S = _sym()
    axis = node.required_const(1, 'axis')
    axis = int(np.asarray(axis).reshape(-1)[0])
    x = node.sym(0)
    reverse, exclusive = node.attrs.get('reverse', 0), node.attrs.get('exclusive', 0)
    source = S.reverse(x, axis=axis) if reverse else x
    total = S.cumsum(source, axis=axis)
    if exclusive:
        total = total - source
    if reverse:
        total = S.reverse(total, axis=axis)
    return S.identity(total, name=node.name)


@translator('Det')
def det(g, node):
    return _sym().linalg.det(node.sym(0), name=node.name)
