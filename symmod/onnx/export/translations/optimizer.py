"""The optimizer operators that are pure functions of their inputs: the stateless
updates (sgd_update, signsgd_update, multi_sgd_update, preloaded_multi_sgd_update, the
LAMB phase-2 steps), the norms behind LARS (multi_sum_sq, multi_lars) and the AMP
overflow checks (all_finite, multi_all_finite with ``init_output``).

The arithmetic follows symmod's kernels (``optimizer/kernels/rules.py``): the same
operations in the same order, the scalars in the weight's compute type. Updates that
write optimizer states back are refused (``unsupported.py``).
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, reshape_to, scalar, slice_axes

__all__ = []


def _f(value, dtype):
    """A Python scalar rounded to the compute type, as the kernels receive it."""
    return np.dtype(dtype).type(value)


def _sgd_step(g, w, grad, lr, wd, rescale, clip_gradient, dtype, out, hint, multi_form):
    """rules.sgd: ``(1 - lr wd) w - lr clip(rescale g)`` (``w + (0 - lr wd w - lr ...)``
    in multi_sgd_update's form); ``lr`` / ``wd`` are Python scalars or ONNX tensors."""
    def const(value, name):
        return value if isinstance(value, str) else scalar(g, _f(value, dtype), dtype, name)
    lr_t, wd_t, rescale_t = const(lr, 'lr'), const(wd, 'wd'), const(rescale, 'rescale')
    lr_wd = g.add('Mul', [lr_t, wd_t], hint=hint + '_lr_wd')
    scaled = g.add('Mul', [rescale_t, grad], hint=hint + '_scaled')
    if clip_gradient >= 0:
        bound = _f(clip_gradient, dtype)
        scaled = g.add('Clip', [scaled, scalar(g, -bound, dtype, 'lo'),
                                scalar(g, bound, dtype, 'hi')], hint=hint + '_clip')
        step = g.add('Mul', [lr_t, scaled], hint=hint + '_step')
    else:
        step = g.add('Mul', [g.add('Mul', [lr_t, rescale_t], hint=hint + '_lr_rescale'), grad],
                     hint=hint + '_step')
    if multi_form:
        decay = g.add('Mul', [lr_wd, w], hint=hint + '_decay')
        delta = g.add('Sub', [g.add('Sub', [scalar(g, 0, dtype, 'zero'), decay],
                                    hint=hint + '_neg_decay'), step], hint=hint + '_delta')
        return g.add('Add', [w, delta], _outs(out), hint)
    keep = g.add('Sub', [scalar(g, 1, dtype, 'one'), lr_wd], hint=hint + '_keep')
    return g.add('Sub', [g.add('Mul', [keep, w], hint=hint + '_kept'), step], _outs(out), hint)


def _outs(out):
    return None if out is None else [out]


def _compute_type(dtype):
    """The kernels compute float16 weights in float32."""
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


def _result(g, node, index, value, dtype):
    """Write ``value`` (compute type) to output ``index`` in ``dtype``."""
    if node.out_dtype(index) == dtype:
        g.add('Identity', [value], [node.outputs[index]])
    else:
        cast(g, value, node.out_dtype(index), out=node.outputs[index])


def _compute_cast(g, node, index, dtype):
    x = node.input(index)
    return x if node.in_dtype(index) == dtype else cast(g, x, dtype, hint=node.name + '_in')


@translator('sgd_update')
def sgd_update(g, node):
    op, dtype = node.op, _compute_type(node.in_dtype(0))
    new = _sgd_step(g, _compute_cast(g, node, 0, dtype), _compute_cast(g, node, 1, dtype),
                    op.lr, op.wd, op.rescale_grad, op.clip_gradient, dtype, None, node.name,
                    False)
    _result(g, node, 0, new, dtype)


@translator('signsgd_update')
def signsgd_update(g, node):
    """``(1 - lr wd) w - lr sign(g)`` (rescale_grad and clip_gradient unused, as in
    MXNet)."""
    op, dtype = node.op, _compute_type(node.in_dtype(0))
    keep = scalar(g, _f(1, dtype) - _f(op.lr, dtype) * _f(op.wd, dtype), dtype, 'keep')
    kept = g.add('Mul', [keep, _compute_cast(g, node, 0, dtype)], hint=node.name + '_kept')
    sign = g.add('Sign', [_compute_cast(g, node, 1, dtype)], hint=node.name + '_sign')
    step = g.add('Mul', [scalar(g, _f(op.lr, dtype), dtype, 'lr'), sign],
                 hint=node.name + '_step')
    _result(g, node, 0, g.add('Sub', [kept, step], hint=node.name + '_new'), dtype)


def _element(g, tensor, index, dtype, hint):
    """Element ``index`` of a 1-D tensor as a (1,) tensor of ``dtype``."""
    value = slice_axes(g, tensor, [index], [index + 1], [0], hint=hint)
    return cast(g, value, dtype, hint=hint + '_cast')


@translator('multi_sgd_update', 'preloaded_multi_sgd_update')
def multi_sgd_update(g, node):
    """One multi_sgd_update step per (weight, grad) pair; the preloaded form reads the
    rates and decays from its last two inputs."""
    op = node.op
    preloaded = node.op.name.startswith('preloaded')
    for i in range(op.num_weights):
        dtype = _compute_type(node.in_dtype(2 * i))
        if preloaded:
            last = node.num_inputs
            lr = _element(g, node.input(last - 2), i, dtype, '%s_lr%d' % (node.name, i))
            wd = _element(g, node.input(last - 1), i, dtype, '%s_wd%d' % (node.name, i))
        else:
            lr, wd = op.lrs[i], op.wds[i]
        new = _sgd_step(g, _compute_cast(g, node, 2 * i, dtype),
                        _compute_cast(g, node, 2 * i + 1, dtype), lr, wd, op.rescale_grad,
                        op.clip_gradient, dtype, None, '%s_%d' % (node.name, i), True)
        _result(g, node, i, new, dtype)


@translator('multi_sum_sq')
def multi_sum_sq(g, node):
    """Each array's sum of squares (accumulated in float64, as the kernel), float32."""
    sums = []
    for i in range(node.num_inputs):
        wide = cast(g, node.input(i), np.float64, hint='%s_wide%d' % (node.name, i))
        total = reduce(g, 'ReduceSumSquare', reshape_to(g, wide, [-1], hint=node.name),
                       [0], keepdims=True, hint='%s_sum%d' % (node.name, i))
        sums.append(total)
    joined = sums[0] if len(sums) == 1 else g.add('Concat', sums, hint=node.name, axis=0)
    cast(g, joined, np.float32, out=node.outputs[0])


@translator('multi_lars')
def multi_lars(g, node):
    """``lr eta |w| / (|g| rescale + wd |w| + eps)`` where both norms are positive, else
    ``lr`` (float32)."""
    op, f32 = node.op, np.float32
    lrs, w_sq, g_sq, wds = (_compute_cast(g, node, i, f32) for i in range(4))
    w_norm = g.add('Sqrt', [w_sq], hint=node.name + '_wnorm')
    g_norm = g.add('Sqrt', [g_sq], hint=node.name + '_gnorm')
    top = g.add('Mul', [g.add('Mul', [lrs, scalar(g, op.eta, f32, 'eta')],
                              hint=node.name + '_lr_eta'), w_norm], hint=node.name + '_top')
    bottom = g.add('Add', [g.add('Add', [
        g.add('Mul', [g_norm, scalar(g, op.rescale_grad, f32, 'rescale')],
              hint=node.name + '_g'),
        g.add('Mul', [wds, w_norm], hint=node.name + '_wd_w')], hint=node.name + '_sum'),
        scalar(g, op.eps, f32, 'eps')], hint=node.name + '_bottom')
    scaled = g.add('Div', [top, bottom], hint=node.name + '_scaled')
    zero = scalar(g, 0, f32, 'zero')
    both = g.add('And', [g.add('Greater', [w_norm, zero], hint=node.name + '_wpos'),
                         g.add('Greater', [g_sq, zero], hint=node.name + '_gpos')],
                 hint=node.name + '_both')
    g.add('Where', [both, scaled, lrs], [node.outputs[0]])


def _trust_step(g, node, r1_index):
    """``lr * r1 / r2`` (float32) from the first elements of r1 and r2, r1 bounded,
    ratio 1 where a norm is 0: a (1,) tensor."""
    op, f32 = node.op, np.float32
    r1, r2 = (g.add('Abs', [slice_axes(g, reshape_to(g, _compute_cast(g, node, i, f32), [-1],
                                                     hint=node.name + '_flat'),
                                       [0], [1], [0], hint=node.name + '_first')],
                    hint=node.name + '_norm') for i in (r1_index, r1_index + 1))
    if op.lower_bound >= 0:
        r1 = g.add('Max', [r1, scalar(g, op.lower_bound, f32, 'lower')], hint=node.name + '_lo')
    if op.upper_bound >= 0:
        r1 = g.add('Min', [r1, scalar(g, op.upper_bound, f32, 'upper')], hint=node.name + '_hi')
    zero = scalar(g, 0, f32, 'zero')
    degenerate = g.add('Or', [g.add('Equal', [r1, zero], hint=node.name + '_r1zero'),
                              g.add('Equal', [r2, zero], hint=node.name + '_r2zero')],
                       hint=node.name + '_degenerate')
    ratio = g.add('Where', [degenerate, scalar(g, 1, f32, 'one'),
                            g.add('Div', [r1, r2], hint=node.name + '_ratio')],
                  hint=node.name + '_trust')
    return g.add('Mul', [scalar(g, op.lr, f32, 'lr'), ratio], hint=node.name + '_rate')


@translator('lamb_update_phase2')
def lamb_update_phase2(g, node):
    """``w - (lr r1 / r2) g``."""
    dtype = _compute_type(node.in_dtype(0))
    rate = _trust_step(g, node, 2)
    if dtype != np.float32:
        rate = cast(g, rate, dtype, hint=node.name + '_rate')
    step = g.add('Mul', [rate, _compute_cast(g, node, 1, dtype)], hint=node.name + '_step')
    new = g.add('Sub', [_compute_cast(g, node, 0, dtype), step], hint=node.name + '_new')
    _result(g, node, 0, new, dtype)


@translator('mp_lamb_update_phase2')
def mp_lamb_update_phase2(g, node):
    """The phase-2 step on the float32 master weights, returned in the weight's type."""
    rate = _trust_step(g, node, 2)
    grad = _compute_cast(g, node, 1, np.float32)
    step = g.add('Mul', [rate, grad], hint=node.name + '_step')
    master = g.add('Sub', [_compute_cast(g, node, 4, np.float32), step],
                   hint=node.name + '_master')
    cast(g, master, node.out_dtype(0), out=node.outputs[0])


@translator('all_finite', 'multi_all_finite')
def all_finite(g, node):
    """``[1.]`` when every value (in float32, as the operator checks) is finite, else
    ``[0.]``: ``x - x`` is 0 exactly for finite x. With ``init_output=False`` the
    operator keeps what its output held before, which a graph cannot read."""
    if not node.op.init_output:
        node.fail('init_output=False keeps the value its output array held before the '
                  'call (an accumulation across calls); an ONNX graph has no such state. '
                  'Export a graph with init_output=True')
    f32 = np.float32
    flags = []
    for i in range(node.num_inputs):
        x = _compute_cast(g, node, i, f32)
        finite = g.add('Equal', [g.add('Sub', [x, x], hint=node.name + '_diff'),
                                 scalar(g, 0, f32, 'zero')], hint=node.name + '_finite')
        flat = reshape_to(g, cast(g, finite, f32, hint=node.name + '_flag'), [-1],
                          hint=node.name + '_flat')
        # a 1 in front keeps the reduction defined for empty arrays
        flat = g.add('Concat', [g.constant(np.ones(1, f32), 'one'), flat], axis=0,
                     hint=node.name + '_padded')
        flags.append(reduce(g, 'ReduceMin', flat, [0], keepdims=True,
                            hint=node.name + '_all'))
    if len(flags) == 1:
        g.add('Identity', flags, [node.outputs[0]])
    else:
        g.add('Min', flags, [node.outputs[0]])
