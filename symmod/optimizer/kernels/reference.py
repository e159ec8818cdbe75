"""Plain numpy versions of every update rule, for the tests.

These are written from MXNet 1.9.1's operator definitions independently of
:mod:`.rules`: whole-array numpy expressions (with temporaries, no numba). Each takes
float arrays and returns the new arrays; nothing is modified in place. Inputs are
computed in float32 (float64 stays float64), scalars are cast to that type.
"""
import numpy as np


def _f(x, dtype):
    return np.asarray(x, dtype=dtype)


def _t(*arrays):
    dtype = np.float64 if any(np.asarray(a).dtype == np.float64 for a in arrays) \
        else np.float32
    return dtype, [np.asarray(a).astype(dtype) for a in arrays]


def _clip(x, bound):
    return x if bound < 0 else np.clip(x, -bound, bound)


def sgd(w, g, lr, wd, rescale=1.0, clip=-1.0, multi_form=False):
    """sgd_update (or multi_sgd_update's arithmetic)."""
    dt, (w, g) = _t(w, g)
    lr, wd, rescale = _f(lr, dt), _f(wd, dt), _f(rescale, dt)
    grad = _clip(rescale * g, _f(clip, dt)) if clip >= 0 else None
    if multi_form:
        step = -(lr * wd) * w - (lr * grad if grad is not None else lr * rescale * g)
        return w + step
    if grad is not None:
        return (1 - lr * wd) * w - lr * grad
    return (1 - lr * wd) * w - (lr * rescale) * g


def sgd_mom(w, g, m, lr, wd, momentum, rescale=1.0, clip=-1.0):
    """sgd_mom_update: returns (weight, momentum)."""
    dt, (w, g, m) = _t(w, g, m)
    lr, wd, momentum, rescale = (_f(x, dt) for x in (lr, wd, momentum, rescale))
    grad = _clip(rescale * g, _f(clip, dt)) if clip >= 0 else rescale * g
    m = momentum * m - lr * wd * w - lr * grad
    return w + m, m


def nag_mom(w, g, m, lr, wd, momentum, rescale=1.0, clip=-1.0):
    """nag_mom_update done in place (the momentum step sees the new weight)."""
    dt, (w, g, m) = _t(w, g, m)
    lr, wd, momentum, rescale = (_f(x, dt) for x in (lr, wd, momentum, rescale))
    grad = _clip(rescale * g, _f(clip, dt)) if clip >= 0 else rescale * g
    m = momentum * m
    w = w - m + (momentum + 1) * (m - lr * (grad + wd * w))
    return w, m - lr * (grad + wd * w)


def signsgd(w, g, lr, wd):
    """signsgd_update."""
    dt, (w, g) = _t(w, g)
    return (1 - _f(lr, dt) * _f(wd, dt)) * w - _f(lr, dt) * np.sign(g)


def signum(w, g, m, lr, wd, momentum, rescale=1.0, clip=-1.0, wd_lh=0.0):
    """signum_update: returns (weight, momentum)."""
    dt, (w, g, m) = _t(w, g, m)
    lr, wd, momentum, rescale, wd_lh = (_f(x, dt) for x in (lr, wd, momentum, rescale, wd_lh))
    grad = _clip(rescale * g, _f(clip, dt)) if clip >= 0 else rescale * g
    m = momentum * m - (1 - momentum) * wd * w - (1 - momentum) * grad
    return (1 - lr * wd_lh) * w + lr * np.sign(m), m


def adam(w, g, mean, var, lr, wd, beta1, beta2, epsilon, rescale=1.0, clip=-1.0):
    """adam_update: returns (weight, mean, var)."""
    dt, (w, g, mean, var) = _t(w, g, mean, var)
    lr, wd, beta1, beta2, epsilon, rescale = (_f(x, dt) for x in
                                              (lr, wd, beta1, beta2, epsilon, rescale))
    grad = _clip(g * rescale + w * wd, _f(clip, dt))
    mean = beta1 * mean + (1 - beta1) * grad
    var = beta2 * var + (1 - beta2) * grad * grad
    return w - lr * mean / (np.sqrt(var) + epsilon), mean, var


def adamw(w, g, mean, var, lr, wd, eta, beta1, beta2, epsilon, rescale=1.0, clip=-1.0,
          multi_form=False):
    """contrib adamw_update (``multi_form``: multi_adamw_update): (weight, mean, var)."""
    dt, (w, g, mean, var) = _t(w, g, mean, var)
    lr, wd, eta, beta1, beta2, epsilon, rescale = (
        _f(x, dt) for x in (lr, wd, eta, beta1, beta2, epsilon, rescale))
    grad = _clip(rescale * g, _f(clip, dt))
    if multi_form:
        mean = beta1 * (mean - grad) + grad
        var = beta2 * (var - np.square(grad)) + np.square(grad)
    else:
        mean = beta1 * mean + (1 - beta1) * grad
        var = beta2 * var + (1 - beta2) * np.square(grad)
    return w - eta * (lr * mean / (np.sqrt(var) + epsilon) + wd * w), mean, var


def adamax(w, g, m, u, lr, wd, beta1, beta2, rescale=1.0, clip=-1.0):
    """MXNet's Adamax step with ``lr`` already bias-corrected: (weight, m, u)."""
    dt, (w, g, m, u) = _t(w, g, m, u)
    lr, wd, beta1, beta2, rescale = (_f(x, dt) for x in (lr, wd, beta1, beta2, rescale))
    grad = _clip(g * rescale + wd * w, _f(clip, dt))
    m = m * beta1 + _f(1. - float(beta1), dt) * grad
    u = np.maximum(beta2 * u, np.abs(grad))
    return w - lr * m / u, m, u


def rmsprop(w, g, n, lr, wd, gamma1, epsilon, rescale=1.0, clip=-1.0, clip_weights=-1.0):
    """rmsprop_update: returns (weight, n)."""
    dt, (w, g, n) = _t(w, g, n)
    lr, wd, gamma1, epsilon, rescale = (_f(x, dt) for x in (lr, wd, gamma1, epsilon, rescale))
    grad = _clip(rescale * g + wd * w, _f(clip, dt))
    n = (1 - gamma1) * grad * grad + gamma1 * n
    w = _clip(w - lr * grad / np.sqrt(n + epsilon), _f(clip_weights, dt))
    return w, n


def rmspropalex(w, g, n, gavg, delta, lr, wd, gamma1, gamma2, epsilon, rescale=1.0,
                clip=-1.0, clip_weights=-1.0):
    """rmspropalex_update: returns (weight, n, g, delta)."""
    dt, (w, g, n, gavg, delta) = _t(w, g, n, gavg, delta)
    lr, wd, gamma1, gamma2, epsilon, rescale = (
        _f(x, dt) for x in (lr, wd, gamma1, gamma2, epsilon, rescale))
    grad = _clip(rescale * g + wd * w, _f(clip, dt))
    n = (1 - gamma1) * grad * grad + gamma1 * n
    gavg = (1 - gamma1) * grad + gamma1 * gavg
    delta = gamma2 * delta - lr * grad / np.sqrt(n - gavg * gavg + epsilon)
    return _clip(w + delta, _f(clip_weights, dt)), n, gavg, delta


def adagrad(w, g, hist, lr, wd, epsilon, rescale=1.0, clip=-1.0):
    """MXNet's dense AdaGrad: returns (weight, history)."""
    dt, (w, g, hist) = _t(w, g, hist)
    lr, wd, epsilon, rescale = (_f(x, dt) for x in (lr, wd, epsilon, rescale))
    grad = _clip(g * rescale, _f(clip, dt))
    hist = hist + grad * grad
    return w + (grad / np.sqrt(hist + epsilon) + w * wd) * -lr, hist


def adadelta(w, g, acc_g, acc_d, wd, rho, epsilon, rescale=1.0, clip=-1.0):
    """MXNet's AdaDelta: returns (weight, rescaled grad, acc_g, acc_delta)."""
    dt, (w, g, acc_g, acc_d) = _t(w, g, acc_g, acc_d)
    wd, rho, epsilon, rescale = (_f(x, dt) for x in (wd, rho, epsilon, rescale))
    one_minus_rho = _f(1. - float(rho), dt)
    g = g * rescale
    grad = _clip(g, _f(clip, dt))
    acc_g = acc_g * rho + one_minus_rho * grad * grad
    delta = np.sqrt(acc_d + epsilon) / np.sqrt(acc_g + epsilon) * grad
    acc_d = acc_d * rho + one_minus_rho * delta * delta
    return w - (delta + wd * w), g, acc_g, acc_d


def ftrl(w, g, z, n, lr, wd, lamda1, beta, rescale=1.0, clip=-1.0):
    """ftrl_update: returns (weight, z, n)."""
    dt, (w, g, z, n) = _t(w, g, z, n)
    lr, wd, lamda1, beta, rescale = (_f(x, dt) for x in (lr, wd, lamda1, beta, rescale))
    grad = _clip(g * rescale, _f(clip, dt))
    z = z + grad - (np.sqrt(n + grad * grad) - np.sqrt(n)) * w / lr
    n = n + grad * grad
    w = (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > lamda1)
    return w, z, n


def ftml(w, g, d, v, z, lr, wd, beta1, beta2, epsilon, t, rescale=1.0, clip=-1.0):
    """ftml_update at step ``t``: returns (weight, d, v, z)."""
    dt, (w, g, d, v, z) = _t(w, g, d, v, z)
    lr, wd, beta1, beta2, epsilon, rescale, t = (
        _f(x, dt) for x in (lr, wd, beta1, beta2, epsilon, rescale, t))
    grad = _clip(rescale * g + wd * w, _f(clip, dt))
    v = beta2 * v + (1 - beta2) * grad * grad
    d_t = (1 - beta1 ** t) / lr * (np.sqrt(v / (1 - beta2 ** t)) + epsilon)
    z = beta1 * z + (1 - beta1) * grad - (d_t - beta1 * d) * w
    return -z / d_t, d_t, v, z


def lamb(w, g, mean, var, lr, wd, beta1, beta2, epsilon, t, rescale=1.0, clip=-1.0,
         bias_correction=True, lower_bound=-1.0, upper_bound=-1.0):
    """One LAMB step of one tensor: returns (weight, mean, var)."""
    dt, (w, g, mean, var) = _t(w, g, mean, var)
    grad = _clip(g * _f(rescale, dt), _f(clip, dt))
    mean = _f(beta1, dt) * mean + (1 - _f(beta1, dt)) * grad
    var = _f(beta2, dt) * var + (1 - _f(beta2, dt)) * grad * grad
    if bias_correction:
        m_hat = mean / (1 - _f(beta1, dt) ** _f(t, dt))
        v_hat = var / (1 - _f(beta2, dt) ** _f(t, dt))
        direction = m_hat / (np.sqrt(v_hat) + _f(epsilon, dt)) + _f(wd, dt) * w
    else:
        direction = mean / (np.sqrt(var) + _f(epsilon, dt)) + _f(wd, dt) * w
    r1 = np.sqrt(np.sum(w.astype(np.float64) ** 2))
    r2 = np.sqrt(np.sum(direction.astype(np.float64) ** 2))
    if lower_bound >= 0:
        r1 = max(r1, lower_bound)
    if upper_bound >= 0:
        r1 = min(r1, upper_bound)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return w - _f(lr * ratio, dt) * direction, mean, var


def dcasgd(w, g, prev, lr, wd, lamda, rescale=1.0, clip=-1.0):
    """DCASGD without momentum: returns (weight, previous weight)."""
    dt, (w, g, prev) = _t(w, g, prev)
    lr, wd, lamda, rescale = (_f(x, dt) for x in (lr, wd, lamda, rescale))
    grad = _clip(g * rescale, _f(clip, dt))
    step = -lr * (grad + wd * w + lamda * grad * grad * (w - prev))
    return w + step, w


def sgld_mean(w, g, lr, wd, rescale=1.0, clip=-1.0):
    """The expected SGLD weight (the update without its noise)."""
    dt, (w, g) = _t(w, g)
    grad = _clip(g * _f(rescale, dt), _f(clip, dt))
    return w - _f(lr / 2, dt) * (grad + _f(wd, dt) * w)


def group_adagrad(w, g, hist, lr, epsilon, rescale=1.0, clip=-1.0):
    """Row-wise AdaGrad on a 2-D weight: returns (weight, history (rows, 1))."""
    dt, (w, g, hist) = _t(w, g, hist)
    grad = _clip(g * _f(rescale, dt), _f(clip, dt))
    hist = hist + np.mean(grad * grad, axis=1, keepdims=True)
    return w - _f(lr, dt) * grad / np.sqrt(hist + _f(epsilon, dt)), hist
