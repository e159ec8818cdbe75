"""MXNet's multi-tensor contrib updates as ``mx.nd.contrib`` functions:
``multi_adamw_update``, ``multi_mp_adamw_update``, ``multi_lamb_update``,
``multi_mp_lamb_update`` and ``group_adagrad_update``.

They take lists (one entry per tensor), update the optimizer states in place and write
the new weights into ``out`` (new arrays when ``out`` is None). The AdamW updates run the
AdamW kernel over all tensors in one call and, like MXNet, skip the step entirely when
``rescale_grad`` is 0, NaN or infinite. LAMB follows MXNet's multi-tensor kernel: bias
correction with each tensor's ``step_count``, trust ratio ``||w|| / ||g||`` with the
weight norm bounded when ``lower_bound``/``upper_bound`` >= 0.
"""
import numpy

from ..base import MXNetError
from ..ndarray import device as _device
from .fused_ops import _check, _dtype, _finite_scale, _multi_out
from .kernels import dispatch

__all__ = ['multi_adamw_update', 'multi_mp_adamw_update', 'multi_lamb_update',
           'multi_mp_lamb_update', 'group_adagrad_update']


def _lists(op, count, **lists):
    """Check that every list has ``count`` entries; returns them in order."""
    for name, values in lists.items():
        if len(values) != count:
            raise MXNetError('%s: %d %s for %d weights' % (op, len(values), name, count))
    return list(lists.values())


def _adamw(op, weights, grads, mean, var, masters, rescale_grad, lrs, wds, etas, beta1,
           beta2, epsilon, clip_gradient, out, size):
    size = size or len(weights)
    groups = [weights, grads, mean, var] + ([masters] if masters is not None else [])
    _lists(op, size, weights=weights, grads=grads, mean=mean, var=var, lrs=lrs, wds=wds,
           etas=etas)
    for arrays in zip(*groups):
        _check(op, *arrays)
    scale = _finite_scale(rescale_grad)
    if scale is None:
        # MXNet skips the whole kernel: given outputs are left as they are
        return list(out) if isinstance(out, (list, tuple)) else _multi_out(list(weights), out)
    targets = _multi_out(list(weights), out)
    hp = numpy.stack([numpy.asarray(v, numpy.float64) for v in (lrs, wds, etas)], axis=1)
    scalars = (beta1, beta2, epsilon, scale, clip_gradient, True)
    if masters is None:
        operands = [[t._data for t in targets], [g._data for g in grads],
                    [m._data for m in mean], [v._data for v in var]]
        dispatch.run('adamw', operands, hp, scalars, _dtype(weights[0]))
        return targets
    operands = [[w._data for w in masters], [g.astype(numpy.float32)._data for g in grads],
                [m._data for m in mean], [v._data for v in var]]
    dispatch.run('adamw', operands, hp, scalars, numpy.float32)
    for target, master in zip(targets, masters):
        _device.copy_into(target._data, master._data)
    return targets


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, beta1=0.9,
                       beta2=0.999, epsilon=1e-8, clip_gradient=-1, out=None, name=None,
                       size=0):
    """adamw_update of every (weight, grad, mean, var) in one kernel call.

    Parameters
    ----------
    weights, grads, mean, var : list of NDArray
        One entry per tensor; ``mean`` and ``var`` are updated in place.
    rescale_grad : float or NDArray
        Gradient scale; the whole update is skipped when it is 0, NaN or infinite.
    lrs, wds, etas : list of float
        Learning rate, weight decay and schedule multiplier of each tensor.
    out : list of NDArray, optional
        Where the new weights go (``out=weights`` updates in place).

    Returns
    -------
    list of NDArray
        The new weights.
    """
    return _adamw('multi_adamw_update', weights, grads, mean, var, None, rescale_grad, lrs,
                  wds, etas, beta1, beta2, epsilon, clip_gradient, out, size)


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas,
                          beta1=0.9, beta2=0.999, epsilon=1e-8, clip_gradient=-1, out=None,
                          name=None, size=0):
    """multi_adamw_update on float32 master copies ``weights32``; ``out`` gets them rounded
    to the weights' (float16) type."""
    return _adamw('multi_mp_adamw_update', weights, grads, mean, var, weights32, rescale_grad,
                  lrs, wds, etas, beta1, beta2, epsilon, clip_gradient, out, size)


def _lamb(op, weights, grads, mean, var, masters, step_count, lrs, wds, beta1, beta2, epsilon,
          rescale_grad, lower_bound, upper_bound, clip_gradient, bias_correction, out,
          num_tensors):
    count = num_tensors or len(weights)
    _lists(op, count, weights=weights, grads=grads, mean=mean, var=var, step_count=step_count,
           lrs=lrs, wds=wds)
    targets = _multi_out(list(weights), out)
    f32 = numpy.float32
    for k in range(count):
        _check(op, weights[k], grads[k], mean[k], var[k])
        weight = weights[k].asnumpy()
        compute = f32 if masters is not None else numpy.dtype(_dtype(weights[k])).type
        w = masters[k].asnumpy() if masters is not None else weight.astype(compute)
        g = grads[k].asnumpy().astype(compute) * compute(rescale_grad)
        if clip_gradient >= 0:
            g = numpy.clip(g, -compute(clip_gradient), compute(clip_gradient))
        m = compute(beta1) * mean[k].asnumpy() + (1 - compute(beta1)) * g
        v = compute(beta2) * var[k].asnumpy() + (1 - compute(beta2)) * g * g
        mean[k][:] = m
        var[k][:] = v
        if bias_correction:
            step = compute(step_count[k])
            m = m / (1 - compute(beta1) ** step)
            v = v / (1 - compute(beta2) ** step)
        update = (m / (numpy.sqrt(v) + compute(epsilon)) + compute(wds[k]) * w).astype(f32)
        r1 = numpy.sqrt(numpy.sum(numpy.square(weight, dtype=f32), dtype=f32))
        r2 = numpy.sqrt(numpy.sum(numpy.square(update), dtype=f32))
        if lower_bound >= 0:
            r1 = max(r1, f32(lower_bound))
        if upper_bound >= 0:
            r1 = min(r1, f32(upper_bound))
        ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
        w = w - compute(lrs[k]) * compute(ratio) * update
        if masters is not None:
            masters[k][:] = w
        targets[k][:] = w
    return targets


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0,
                      beta1=0.9, beta2=0.999, epsilon=1e-6, rescale_grad=1.0, lower_bound=-1.0,
                      upper_bound=-1.0, clip_gradient=-1.0, bias_correction=True, name=None):
    """LAMB step of every (weight, grad, mean, var): Adam direction plus weight decay,
    scaled per tensor by the trust ratio ``||w|| / ||direction||``.

    ``step_count``, ``lrs`` and ``wds`` hold one value per tensor; ``mean``/``var`` are
    updated in place and the new weights written to ``out`` (new arrays when None).
    """
    return _lamb('multi_lamb_update', weights, grads, mean, var, None, step_count, lrs, wds,
                 beta1, beta2, epsilon, rescale_grad, lower_bound, upper_bound, clip_gradient,
                 bias_correction, out, num_tensors)


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None,
                         num_tensors=0, beta1=0.9, beta2=0.999, epsilon=1e-6, rescale_grad=1.0,
                         lower_bound=-1.0, upper_bound=-1.0, clip_gradient=-1.0,
                         bias_correction=True, name=None):
    """multi_lamb_update on float32 master copies ``weights32`` (float16 weights)."""
    return _lamb('multi_mp_lamb_update', weights, grads, mean, var, weights32, step_count, lrs,
                 wds, beta1, beta2, epsilon, rescale_grad, lower_bound, upper_bound,
                 clip_gradient, bias_correction, out, num_tensors)


def group_adagrad_update(weight, grad, history, lr, rescale_grad=1.0, clip_gradient=-1.0,
                         epsilon=1e-5, out=None, name=None):
    """Row-wise AdaGrad (GroupAdaGrad's step): ``history`` (rows, 1) accumulates each row's
    mean squared gradient; ``weight -= lr * grad / sqrt(history + epsilon)``."""
    if weight.ndim != 2 or tuple(history.shape) != (weight.shape[0], 1):
        raise MXNetError('group_adagrad_update: weight must be 2-D and history (%s, 1), found '
                         '%s and %s' % (weight.shape[0] if weight.ndim else '?', weight.shape,
                                        history.shape))
    _check('group_adagrad_update', weight, grad)
    target = _multi_out([weight], None if out is None else [out])[0]
    dispatch.group_adagrad(target._data, grad._data, history._data, lr, epsilon, rescale_grad,
                           clip_gradient)
    return target
