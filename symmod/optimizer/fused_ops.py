"""MXNet's fused update operators as ``mx.nd`` functions (``mx.nd.sgd_update`` ...).

Each function takes NDArrays, updates the state arrays in place and writes the new
weight into ``out`` (a new array when ``out`` is None; pass ``out=weight`` to update in
place, as the optimizers do). They run the same kernels as the optimizers, on the CPU
or the GPU according to where the arrays live.
"""
import math

import numpy

from ..base import MXNetError
from ..ndarray.ndarray import NDArray, array
from ..ndarray import device as _device
from .fused import one_minus_pow
from .fused_sparse import row_sparse_grad
from .kernels import dispatch
from .lamb import trust_lrs
from .lars import lars_rates, sums_of_squares

__all__ = ['sgd_update', 'sgd_mom_update', 'mp_sgd_update', 'mp_sgd_mom_update',
           'nag_mom_update', 'mp_nag_mom_update', 'adam_update', 'rmsprop_update',
           'rmspropalex_update', 'ftrl_update', 'ftml_update', 'signsgd_update',
           'signum_update', 'multi_sgd_update', 'multi_sgd_mom_update', 'multi_mp_sgd_update',
           'multi_mp_sgd_mom_update', 'preloaded_multi_sgd_update',
           'preloaded_multi_sgd_mom_update', 'preloaded_multi_mp_sgd_update',
           'preloaded_multi_mp_sgd_mom_update', 'multi_sum_sq', 'multi_lars',
           'lamb_update_phase1', 'lamb_update_phase2', 'mp_lamb_update_phase1',
           'mp_lamb_update_phase2', 'adamw_update', 'mp_adamw_update']


def _check(op, weight, *others):
    if not isinstance(weight, NDArray):
        raise TypeError('%s: weight must be an NDArray, found %s' % (op, type(weight).__name__))
    for other in others:
        if not isinstance(other, NDArray):
            raise TypeError('%s: inputs must be NDArrays, found %s' % (op, type(other).__name__))
        if other.shape != weight.shape:
            raise MXNetError('%s: shape mismatch, expected %s (the weight), found %s'
                             % (op, weight.shape, other.shape))


def _target(weight, out):
    """The array the kernel updates in place: ``out`` holding the weight's values."""
    if out is None:
        return weight.copy()
    if out is not weight:
        if out.shape != weight.shape:
            raise MXNetError('out has shape %s, expected %s' % (out.shape, weight.shape))
        weight.copyto(out)
    return out


def _run(rule, arrays, hp, scalars, dtype):
    dispatch.run(rule, [[a._data] for a in arrays], [hp], scalars, dtype)


def _dtype(weight):
    return dispatch.compute_dtype(weight.dtype)


# ---- SGD family ---------------------------------------------------------------------------
@row_sparse_grad(0, lazy=True)
def sgd_update(weight, grad, lr, wd=0, rescale_grad=1, clip_gradient=-1, lazy_update=True,
               out=None, name=None):
    """``weight = (1 - lr * wd) * weight - lr * clip(rescale_grad * grad, clip_gradient)``.

    Examples
    --------
    >>> w = mx.nd.ones((2,))
    >>> mx.nd.sgd_update(w, mx.nd.ones((2,)), lr=0.1, out=w).asnumpy()
    array([0.9, 0.9], dtype=float32)
    """
    _check('sgd_update', weight, grad)
    out = _target(weight, out)
    _run('sgd', [out, grad], (lr, wd), (rescale_grad, clip_gradient, False), _dtype(weight))
    return out


@row_sparse_grad(1, lazy=True)
def sgd_mom_update(weight, grad, mom, lr, momentum=0, wd=0, rescale_grad=1, clip_gradient=-1,
                   lazy_update=True, out=None, name=None):
    """Momentum SGD: ``mom = momentum * mom - lr * (wd * weight + clip(rescale * grad))``;
    ``weight += mom``."""
    _check('sgd_mom_update', weight, grad, mom)
    out = _target(weight, out)
    _run('sgd_mom', [out, grad, mom], (lr, wd),
         (momentum, rescale_grad, clip_gradient, False, True), _dtype(weight))
    return out


@row_sparse_grad(1)
def mp_sgd_update(weight, grad, weight32, lr, wd=0, rescale_grad=1, clip_gradient=-1,
                  lazy_update=True, out=None, name=None):
    """sgd_update on the float32 master copy ``weight32``; ``out`` gets it rounded."""
    _check('mp_sgd_update', weight, grad, weight32)
    out = _target(weight, out)
    _run('mp_sgd', [out, grad, weight32], (lr, wd), (rescale_grad, clip_gradient, False),
         numpy.float32)
    return out


@row_sparse_grad(2)
def mp_sgd_mom_update(weight, grad, mom, weight32, lr, momentum=0, wd=0, rescale_grad=1,
                      clip_gradient=-1, lazy_update=True, out=None, name=None):
    """sgd_mom_update on the float32 master copy ``weight32`` (float32 momentum)."""
    _check('mp_sgd_mom_update', weight, grad, mom, weight32)
    out = _target(weight, out)
    _run('mp_sgd_mom', [out, grad, mom, weight32], (lr, wd),
         (momentum, rescale_grad, clip_gradient, False), numpy.float32)
    return out


@row_sparse_grad(1)
def nag_mom_update(weight, grad, mom, lr, momentum=0, wd=0, rescale_grad=1, clip_gradient=-1,
                   out=None, name=None):
    """Nesterov momentum update (see :class:`mx.optimizer.NAG`)."""
    _check('nag_mom_update', weight, grad, mom)
    in_place = out is weight
    out = _target(weight, out)
    _run('sgd_mom', [out, grad, mom], (lr, wd),
         (momentum, rescale_grad, clip_gradient, True, in_place), _dtype(weight))
    return out


@row_sparse_grad(2)
def mp_nag_mom_update(weight, grad, mom, weight32, lr, momentum=0, wd=0, rescale_grad=1,
                      clip_gradient=-1, out=None, name=None):
    """nag_mom_update on the float32 master copy ``weight32``."""
    _check('mp_nag_mom_update', weight, grad, mom, weight32)
    out = _target(weight, out)
    _run('mp_sgd_mom', [out, grad, mom, weight32], (lr, wd),
         (momentum, rescale_grad, clip_gradient, True), numpy.float32)
    return out


@row_sparse_grad(0)
def signsgd_update(weight, grad, lr, wd=0, rescale_grad=1, clip_gradient=-1, out=None,
                   name=None):
    """``weight = (1 - lr * wd) * weight - lr * sign(grad)``."""
    _check('signsgd_update', weight, grad)
    out = _target(weight, out)
    _run('signum', [out, grad, out], (lr, wd), (0.0, rescale_grad, clip_gradient, 0.0, False),
         _dtype(weight))
    return out


@row_sparse_grad(1)
def signum_update(weight, grad, mom, lr, momentum=0, wd=0, rescale_grad=1, clip_gradient=-1,
                  wd_lh=0, out=None, name=None):
    """Signum: momentum of the gradients, then a step along its sign."""
    _check('signum_update', weight, grad, mom)
    out = _target(weight, out)
    _run('signum', [out, grad, mom], (lr, wd),
         (momentum, rescale_grad, clip_gradient, wd_lh, True), _dtype(weight))
    return out


# ---- adaptive rules -------------------------------------------------------------------------
@row_sparse_grad(2, lazy=True)
def adam_update(weight, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
                rescale_grad=1, clip_gradient=-1, lazy_update=True, out=None, name=None):
    """Adam step (no bias correction: fold it into ``lr``)."""
    _check('adam_update', weight, grad, mean, var)
    out = _target(weight, out)
    _run('adam', [out, grad, mean, var], (lr, wd),
         (beta1, beta2, epsilon, rescale_grad, clip_gradient), _dtype(weight))
    return out


@row_sparse_grad(1)
def rmsprop_update(weight, grad, n, lr, gamma1=0.95, epsilon=1e-8, wd=0, rescale_grad=1,
                   clip_gradient=-1, clip_weights=-1, out=None, name=None):
    """RMSProp (Tieleman & Hinton) step."""
    _check('rmsprop_update', weight, grad, n)
    out = _target(weight, out)
    _run('rmsprop', [out, grad, n], (lr, wd),
         (gamma1, epsilon, rescale_grad, clip_gradient, clip_weights), _dtype(weight))
    return out


@row_sparse_grad(3)
def rmspropalex_update(weight, grad, n, g, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8,
                       wd=0, rescale_grad=1, clip_gradient=-1, clip_weights=-1, out=None,
                       name=None):
    """Centered RMSProp (Graves) step."""
    _check('rmspropalex_update', weight, grad, n, g, delta)
    out = _target(weight, out)
    _run('rmspropalex', [out, grad, n, g, delta], (lr, wd),
         (gamma1, gamma2, epsilon, rescale_grad, clip_gradient, clip_weights), _dtype(weight))
    return out


@row_sparse_grad(2)
def ftrl_update(weight, grad, z, n, lr, lamda1=0.01, beta=1, wd=0, rescale_grad=1,
                clip_gradient=-1, out=None, name=None):
    """FTRL-Proximal step."""
    _check('ftrl_update', weight, grad, z, n)
    out = _target(weight, out)
    _run('ftrl', [out, grad, z, n], (lr, wd), (lamda1, beta, rescale_grad, clip_gradient),
         _dtype(weight))
    return out


@row_sparse_grad(3)
def ftml_update(weight, grad, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0,
                rescale_grad=1, clip_grad=-1, out=None, name=None):
    """FTML step ``t`` (1-based)."""
    _check('ftml_update', weight, grad, d, v, z)
    out = _target(weight, out)
    hp = (lr, wd, one_minus_pow(beta1, t), one_minus_pow(beta2, t))
    _run('ftml', [out, grad, d, v, z], hp, (beta1, beta2, epsilon, rescale_grad, clip_grad),
         _dtype(weight))
    return out


# ---- multi-tensor SGD ----------------------------------------------------------------------
def _split(op, data, stride, num_weights):
    if len(data) != stride * num_weights:
        raise MXNetError('%s: expected %d inputs (%d per weight, num_weights=%d), found %d'
                         % (op, stride * num_weights, stride, num_weights, len(data)))
    groups = [list(data[j::stride]) for j in range(stride)]
    for k in range(num_weights):
        _check(op, *[groups[j][k] for j in range(stride)])
    return groups


def _multi_out(weights, out):
    if out is None:
        return [w.copy() for w in weights]
    out = list(out) if isinstance(out, (list, tuple)) else [out]
    if len(out) != len(weights):
        raise MXNetError('expected %d outputs, found %d' % (len(weights), len(out)))
    return [_target(w, o) for w, o in zip(weights, out)]


def _multi(op, rule, data, stride, lrs, wds, scalars, num_weights, out, mp):
    groups = _split(op, data, stride, num_weights)
    for name, values in (('lrs', lrs), ('wds', wds)):
        if len(values) != num_weights:
            raise MXNetError('%s: %d %s for num_weights=%d' % (op, len(values), name,
                                                               num_weights))
    targets = _multi_out(groups[0], out)
    arrays = [[t._data for t in targets]] + [[a._data for a in g] for g in groups[1:]]
    dtype = numpy.float32 if mp else _dtype(groups[0][0])
    dispatch.run(rule, arrays, numpy.stack([numpy.asarray(lrs, dtype=numpy.float64),
                                            numpy.asarray(wds, dtype=numpy.float64)], axis=1),
                 scalars, dtype)
    return targets


def multi_sgd_update(*data, lrs=(), wds=(), rescale_grad=1, clip_gradient=-1, num_weights=1,
                     out=None, name=None):
    """sgd_update of ``num_weights`` (weight, grad) pairs given flat, in one kernel call."""
    return _multi('multi_sgd_update', 'sgd', data, 2, lrs, wds,
                  (rescale_grad, clip_gradient, True), num_weights, out, False)


def multi_sgd_mom_update(*data, lrs=(), wds=(), momentum=0, rescale_grad=1, clip_gradient=-1,
                         num_weights=1, out=None, name=None):
    """sgd_mom_update of (weight, grad, mom) triples given flat, in one kernel call."""
    return _multi('multi_sgd_mom_update', 'sgd_mom', data, 3, lrs, wds,
                  (momentum, rescale_grad, clip_gradient, False, True), num_weights, out, False)


def multi_mp_sgd_update(*data, lrs=(), wds=(), rescale_grad=1, clip_gradient=-1,
                        num_weights=1, out=None, name=None):
    """mp_sgd_update of (weight, grad, weight32) triples, in one kernel call."""
    return _multi('multi_mp_sgd_update', 'mp_sgd', data, 3, lrs, wds,
                  (rescale_grad, clip_gradient, True), num_weights, out, True)


def multi_mp_sgd_mom_update(*data, lrs=(), wds=(), momentum=0, rescale_grad=1,
                            clip_gradient=-1, num_weights=1, out=None, name=None):
    """mp_sgd_mom_update of (weight, grad, mom, weight32) quadruples, in one kernel call."""
    return _multi('multi_mp_sgd_mom_update', 'mp_sgd_mom', data, 4, lrs, wds,
                  (momentum, rescale_grad, clip_gradient, False), num_weights, out, True)


def _preloaded(multi_update, data, **kwargs):
    """Call ``multi_update`` with ``lrs`` and ``wds`` taken from the last two NDArrays."""
    if len(data) < 2:
        raise MXNetError('preloaded updates need the lrs and wds arrays as the last inputs')
    return multi_update(*data[:-2], lrs=data[-2].asnumpy(), wds=data[-1].asnumpy(), **kwargs)


def preloaded_multi_sgd_update(*data, rescale_grad=1, clip_gradient=-1, num_weights=1,
                               out=None, name=None):
    """multi_sgd_update with ``lrs`` and ``wds`` given as the last two NDArrays."""
    return _preloaded(multi_sgd_update, data, rescale_grad=rescale_grad,
                      clip_gradient=clip_gradient, num_weights=num_weights, out=out)


def preloaded_multi_sgd_mom_update(*data, momentum=0, rescale_grad=1, clip_gradient=-1,
                                   num_weights=1, out=None, name=None):
    """multi_sgd_mom_update with ``lrs`` and ``wds`` given as the last two NDArrays."""
    return _preloaded(multi_sgd_mom_update, data, momentum=momentum, rescale_grad=rescale_grad,
                      clip_gradient=clip_gradient, num_weights=num_weights, out=out)


def preloaded_multi_mp_sgd_update(*data, rescale_grad=1, clip_gradient=-1, num_weights=1,
                                  out=None, name=None):
    """multi_mp_sgd_update with ``lrs`` and ``wds`` given as the last two NDArrays."""
    return _preloaded(multi_mp_sgd_update, data, rescale_grad=rescale_grad,
                      clip_gradient=clip_gradient, num_weights=num_weights, out=out)


def preloaded_multi_mp_sgd_mom_update(*data, momentum=0, rescale_grad=1, clip_gradient=-1,
                                      num_weights=1, out=None, name=None):
    """multi_mp_sgd_mom_update with ``lrs`` and ``wds`` given as the last two NDArrays."""
    return _preloaded(multi_mp_sgd_mom_update, data, momentum=momentum,
                      rescale_grad=rescale_grad, clip_gradient=clip_gradient,
                      num_weights=num_weights, out=out)


def multi_sum_sq(*data, num_arrays=1, out=None, name=None):
    """Sums of squares of ``num_arrays`` arrays, as one float32 NDArray."""
    if len(data) != num_arrays:
        raise MXNetError('multi_sum_sq: num_arrays=%d but %d arrays given'
                         % (num_arrays, len(data)))
    return _result(sums_of_squares([a._data for a in data]), out, data[0].context)


def multi_lars(lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad=1, out=None,
               name=None):
    """LARS learning rates: ``lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps)``."""
    lr, w_sq, g_sq, wd = (x.asnumpy().astype(numpy.float32)
                          for x in (lrs, weights_sum_sq, grads_sum_sq, wds))
    return _result(lars_rates(lr, w_sq, g_sq, wd, eta, eps, rescale_grad), out, lrs.context)


def _result(values, out, ctx):
    if out is not None:
        out[:] = values
        return out
    return array(values, ctx=ctx)


# ---- LAMB and AdamW -------------------------------------------------------------------------
def lamb_update_phase1(weight, grad, mean, var, beta1=0.9, beta2=0.999, epsilon=1e-6, t=1,
                       bias_correction=True, wd=0, rescale_grad=1, clip_gradient=-1, out=None,
                       name=None):
    """LAMB step 1: update the moments and return the direction ``g``."""
    _check('lamb_update_phase1', weight, grad, mean, var)
    if out is None:
        out = NDArray(_device.empty(weight.shape, weight.dtype, weight.context), weight.context)
    hp = (wd, one_minus_pow(beta1, t), one_minus_pow(beta2, t))
    dispatch.run('lamb1', [[weight._data], [grad._data], [mean._data], [var._data],
                           [out._data]], [hp],
                 (beta1, beta2, epsilon, rescale_grad, clip_gradient, bool(bias_correction),
                  True), _dtype(weight))
    return out


def lamb_update_phase2(weight, g, r1, r2, lr, lower_bound=-1, upper_bound=-1, out=None,
                       name=None):
    """LAMB step 2: ``weight -= lr * r1 / r2 * g`` (r1 bounded; ratio 1 if a norm is 0)."""
    _check('lamb_update_phase2', weight, g)
    sums = numpy.array([[float(r1.asnumpy().reshape(-1)[0]) ** 2,
                         float(r2.asnumpy().reshape(-1)[0]) ** 2]])
    step = float(trust_lrs([lr], sums, lower_bound, upper_bound)[0])
    out = _target(weight, out)
    _run('sgd', [out, g], (step, 0.0), (1.0, -1.0, False), _dtype(weight))
    return out


def mp_lamb_update_phase1(weight, grad, mean, var, weight32, beta1=0.9, beta2=0.999,
                          epsilon=1e-6, t=1, bias_correction=True, wd=0, rescale_grad=1,
                          clip_gradient=-1, out=None, name=None):
    """Mixed-precision LAMB step 1: the moments and the float32 direction ``g`` are
    computed from the float32 master weights ``weight32``."""
    _check('mp_lamb_update_phase1', weight, grad, mean, var, weight32)
    return lamb_update_phase1(weight32, grad.astype(numpy.float32), mean, var, beta1=beta1,
                              beta2=beta2, epsilon=epsilon, t=t,
                              bias_correction=bias_correction, wd=wd,
                              rescale_grad=rescale_grad, clip_gradient=clip_gradient, out=out)


def mp_lamb_update_phase2(weight, g, r1, r2, weight32, lr, lower_bound=-1, upper_bound=-1,
                          out=None, name=None):
    """Mixed-precision LAMB step 2: the step applied to the float32 master weights
    ``weight32``, returned in ``weight``'s dtype (written into ``out``). As in MXNet 1.9.1,
    ``weight32`` itself is left unchanged."""
    _check('mp_lamb_update_phase2', weight, g, weight32)
    master = lamb_update_phase2(weight32, g, r1, r2, lr, lower_bound=lower_bound,
                                upper_bound=upper_bound)
    out = _target(weight, out)
    out[:] = master.astype(weight.dtype)
    return out


def _finite_scale(rescale_grad):
    """``rescale_grad`` as a float (it may be a one-element NDArray), or None when it is 0,
    NaN or infinite: MXNet's AdamW then skips the update."""
    if isinstance(rescale_grad, NDArray):
        rescale_grad = rescale_grad.asnumpy().reshape(-1)[0]
    scale = float(rescale_grad)
    return scale if math.isfinite(scale) and scale != 0 else None


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None):
    """AdamW step (MXNet's contrib ``adamw_update``); skipped when ``rescale_grad`` is 0,
    NaN or infinite."""
    _check('adamw_update', weight, grad, mean, var)
    out = _target(weight, out)
    scale = _finite_scale(rescale_grad)
    if scale is not None:
        _run('adamw', [out, grad, mean, var], (lr, wd, eta),
             (beta1, beta2, epsilon, scale, clip_gradient, False), _dtype(weight))
    return out


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9,
                    beta2=0.999, epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None):
    """adamw_update on the float32 master copy ``weight32``; ``out`` gets it rounded."""
    _check('mp_adamw_update', weight, grad, mean, var, weight32)
    out = _target(weight, out)
    scale = _finite_scale(rescale_grad)
    if scale is not None:
        _run('adamw', [weight32, grad.astype(numpy.float32), mean, var], (lr, wd, eta),
             (beta1, beta2, epsilon, scale, clip_gradient, False), numpy.float32)
        _device.copy_into(out._data, weight32._data)
    return out
