"""The update rules as scalar functions: one element in, one element out.

Each function here is the arithmetic of one MXNet 1.9.1 update operator (or of an
optimizer that MXNet writes with NDArray expressions), in the same order of float
operations, so float32 results match MXNet's. They are plain Python: ``cpu.py``
compiles them with ``numba.njit`` and ``cuda.py`` with ``numba.cuda.jit(device=True)``,
so both devices run the same math. The two helpers used inside the rules are
``register_jitable``, which makes them callable from either target.

Conventions: every argument is already in the compute type (float32, or float64 for
float64 weights); scalars that MXNet computes in Python double precision arrive
precomputed, those it computes inside its C++ kernels are computed here. A negative
``clip_gradient`` (or ``clip_weights``) means "no clipping", as in MXNet's kernels.
GroupAdaGrad's rule is the exception that works on a whole row: its rate needs the
mean over the row first.
"""
import math

import numpy as np
from numba.extending import register_jitable

ONE = np.float32(1.0)
ZERO = np.float32(0.0)


@register_jitable
def clip(x, bound):
    """MXNet's ``mshadow_op::clip``: project onto [-bound, bound]; NaN passes through."""
    if x > bound:
        return bound
    if x < -bound:
        return -bound
    return x


@register_jitable
def sign(x):
    """-1, 0 or 1 in the float type of the rule (0 for NaN, as MXNet's sign)."""
    if x > ZERO:
        return ONE
    if x < ZERO:
        return -ONE
    return ZERO


# ---- SGD family (optimizer_op-inl.h: SGDKernel, MultiSGDKernel, SGDMomKernel, NAG) ----
def sgd(w, g, lr, wd, rescale, clip_gradient, multi_form):
    """sgd_update; with ``multi_form`` the arithmetic of multi_sgd_update (w + step)."""
    if multi_form:
        if clip_gradient >= ZERO:
            step = ZERO - lr * wd * w - lr * clip(rescale * g, clip_gradient)
        else:
            step = ZERO - lr * wd * w - lr * rescale * g
        return w + step
    if clip_gradient >= ZERO:
        return (ONE - lr * wd) * w - lr * clip(rescale * g, clip_gradient)
    return (ONE - lr * wd) * w - (lr * rescale) * g


def sgd_mom(w, g, mom, lr, wd, momentum, rescale, clip_gradient):
    """sgd_mom_update (and multi/mp variants): returns (new weight, new momentum)."""
    if clip_gradient >= ZERO:
        mom = momentum * mom - lr * wd * w - lr * clip(rescale * g, clip_gradient)
    else:
        mom = momentum * mom - lr * wd * w - lr * rescale * g
    return w + mom, mom


def nag_mom(w, g, mom, lr, wd, momentum, rescale, clip_gradient, in_place):
    """nag_mom_update / mp_nag_mom_update: returns (new weight, new momentum).

    MXNet's kernels write the new weight before the momentum step reads "the weight":
    with the output in place (``in_place``, always so for the optimizers and for
    mp_nag_mom_update) that step sees the new weight, otherwise the old one.
    """
    if clip_gradient >= ZERO:
        cg = clip(rescale * g, clip_gradient)
    else:
        cg = rescale * g
    mom = momentum * mom
    new_w = w - mom + (momentum + ONE) * (mom - lr * (cg + wd * w))
    if in_place:
        w = new_w
    mom = mom - lr * (cg + wd * w)
    return new_w, mom


def signsgd(w, g, lr, wd):
    """signsgd_update: rescale_grad and clip_gradient have no effect, as in MXNet."""
    return (ONE - lr * wd) * w - lr * sign(g)


def signum(w, g, mom, lr, wd, momentum, rescale, clip_gradient, wd_lh):
    """signum_update: returns (new weight, new momentum)."""
    one_m = ONE - momentum
    if clip_gradient >= ZERO:
        mom = momentum * mom - one_m * wd * w - one_m * clip(rescale * g, clip_gradient)
    else:
        mom = momentum * mom - one_m * wd * w - one_m * rescale * g
    return (ONE - lr * wd_lh) * w + lr * sign(mom), mom


# ---- Adam family ----------------------------------------------------------------------
def adam(w, g, mean, var, lr, wd, beta1, beta2, epsilon, rescale, clip_gradient):
    """adam_update (bias correction is folded into ``lr`` by the optimizer)."""
    gr = g * rescale + w * wd
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    mean = beta1 * mean + (ONE - beta1) * gr
    var = beta2 * var + (ONE - beta2) * gr * gr
    return w - lr * mean / (math.sqrt(var) + epsilon), mean, var


def adamw(w, g, mean, var, lr, wd, eta, beta1, beta2, epsilon, rescale, clip_gradient,
          multi_form):
    """contrib adamw_update (decoupled weight decay, scaled by ``eta``).

    ``multi_form`` selects the moment arithmetic of multi_adamw_update.
    """
    sg = rescale * g
    if clip_gradient >= ZERO:
        sg = clip(sg, clip_gradient)
    if multi_form:
        sq = sg * sg
        mean = beta1 * (mean - sg) + sg
        var = beta2 * (var - sq) + sq
    else:
        mean = beta1 * mean + (ONE - beta1) * sg
        var = beta2 * var + (ONE - beta2) * (sg * sg)
    return w - eta * (lr * mean / (math.sqrt(var) + epsilon) + wd * w), mean, var


def adamax(w, g, m, u, lr, wd, beta1, one_minus_beta1, beta2, rescale, clip_gradient):
    """Adamax as MXNet's NDArray expressions (``lr`` already divided by 1 - beta1**t)."""
    gr = g * rescale + wd * w
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    m = m * beta1 + one_minus_beta1 * gr
    u = max(beta2 * u, abs(gr))
    return w - lr * m / u, m, u


def nadam(w, g, m, v, lr, wd, beta1, one_minus_beta1, beta2, one_minus_beta2, rescale,
          clip_gradient, one_minus_sched, one_minus_sched_next, one_minus_beta2_t,
          one_minus_mom_t, mom_t_next, epsilon):
    """Nadam as MXNet's NDArray expressions (schedule scalars come from the optimizer)."""
    gr = g * rescale + wd * w
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    m = m * beta1 + one_minus_beta1 * gr
    v = v * beta2 + one_minus_beta2 * gr * gr
    g_prime = gr / one_minus_sched
    m_prime = m / one_minus_sched_next
    v_prime = v / one_minus_beta2_t
    m_bar = one_minus_mom_t * g_prime + mom_t_next * m_prime
    return w - lr * m_bar / (math.sqrt(v_prime) + epsilon), m, v


def lamb_phase1(w, g, mean, var, wd, beta1, beta2, epsilon, rescale, clip_gradient,
                bias_correction, one_minus_beta1_t, one_minus_beta2_t):
    """LAMB step 1 (lamb_update_phase1 / multi_lamb_update): returns (g, mean, var)."""
    sg = g * rescale
    if clip_gradient >= ZERO:
        sg = clip(sg, clip_gradient)
    mean = beta1 * mean + (ONE - beta1) * sg
    var = beta2 * var + (ONE - beta2) * sg * sg
    if bias_correction:
        upd = (mean / one_minus_beta1_t) / (math.sqrt(var / one_minus_beta2_t) + epsilon)
    else:
        upd = mean / (math.sqrt(var) + epsilon)
    return upd + wd * w, mean, var


def lamb_trust_lr(lr, r1, r2, lower_bound, upper_bound):
    """LAMB step 2's learning rate: lr * r1 / r2 with r1 bounded, 1 when a norm is 0."""
    if lower_bound >= ZERO:
        r1 = max(r1, lower_bound)
    if upper_bound >= ZERO:
        r1 = min(r1, upper_bound)
    if r1 == ZERO or r2 == ZERO:
        return lr
    return lr * (r1 / r2)


# ---- adaptive-rate rules ---------------------------------------------------------------
def rmsprop(w, g, n, lr, wd, gamma1, epsilon, rescale, clip_gradient, clip_weights):
    """rmsprop_update (Tieleman & Hinton): returns (new weight, n)."""
    gr = rescale * g + wd * w
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    n = (ONE - gamma1) * (gr * gr) + gamma1 * n
    w = w - lr * (gr / math.sqrt(n + epsilon))
    if clip_weights >= ZERO:
        w = clip(w, clip_weights)
    return w, n


def rmspropalex(w, g, n, gs, delta, lr, wd, gamma1, gamma2, epsilon, rescale, clip_gradient,
                clip_weights):
    """rmspropalex_update (Graves, centered): returns (new weight, n, g, delta)."""
    gr = rescale * g + wd * w
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    n = (ONE - gamma1) * gr * gr + gamma1 * n
    gs = (ONE - gamma1) * gr + gamma1 * gs
    delta = gamma2 * delta - (lr * gr / math.sqrt(n - gs * gs + epsilon))
    w = w + delta
    if clip_weights >= ZERO:
        w = clip(w, clip_weights)
    return w, n, gs, delta


def adagrad(w, g, hist, lr, wd, epsilon, rescale, clip_gradient):
    """AdaGrad as MXNet's dense NDArray expressions: returns (new weight, history)."""
    gr = g * rescale
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    hist = hist + gr * gr
    div = gr / math.sqrt(hist + epsilon)
    return w + (div + w * wd) * -lr, hist


def adadelta(w, g, acc_g, acc_d, wd, rho, one_minus_rho, epsilon, rescale, clip_gradient):
    """AdaDelta as MXNet's NDArray expressions: returns (w, rescaled grad, acc_g, acc_delta).

    MXNet rescales the caller's gradient array in place, so the rescaled (unclipped)
    gradient is returned for the caller to store back.
    """
    g = g * rescale
    gc = g
    if clip_gradient >= ZERO:
        gc = clip(g, clip_gradient)
    acc_g = acc_g * rho
    acc_g = acc_g + one_minus_rho * gc * gc
    delta = math.sqrt(acc_d + epsilon) / math.sqrt(acc_g + epsilon) * gc
    acc_d = acc_d * rho
    acc_d = acc_d + one_minus_rho * delta * delta
    return w - (delta + wd * w), g, acc_g, acc_d


def ftrl(w, g, z, n, lr, wd, lamda1, beta, rescale, clip_gradient):
    """ftrl_update: returns (new weight, z, n)."""
    gr = g * rescale
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    z = z + (gr - (math.sqrt(n + gr * gr) - math.sqrt(n)) * w / lr)
    n = n + gr * gr
    keep = ONE if abs(z) > lamda1 else ZERO
    return (sign(z) * lamda1 - z) / ((beta + math.sqrt(n)) / lr + wd) * keep, z, n


def ftml(w, g, d, v, z, lr, wd, beta1, beta2, epsilon, rescale, clip_grad,
         one_minus_beta1_t, one_minus_beta2_t):
    """ftml_update: returns (new weight, d, v, z)."""
    gi = rescale * g + wd * w
    if clip_grad >= ZERO:
        gi = clip(gi, clip_grad)
    v = beta2 * v + (ONE - beta2) * (gi * gi)
    d_t = one_minus_beta1_t / lr * (math.sqrt(v / one_minus_beta2_t) + epsilon)
    z = beta1 * z + (ONE - beta1) * gi - (d_t - beta1 * d) * w
    return -z / d_t, d_t, v, z


# ---- optimizers MXNet writes with NDArray expressions -------------------------------------
def dcasgd(w, g, prev, mom, lr, wd, momentum, lamda, rescale, clip_gradient, has_mom):
    """DCASGD: returns (new weight, new previous weight, new momentum)."""
    gr = g * rescale
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    step = -lr * (gr + wd * w + lamda * gr * gr * (w - prev))
    if has_mom:
        mom = mom * momentum
        mom = mom + step
        step = mom
    return w + step, w, mom


def sgld(w, g, noise, half_lr, wd, noise_scale, rescale, clip_gradient):
    """SGLD: half a gradient step plus standard-normal ``noise`` times ``noise_scale``."""
    gr = g * rescale
    if clip_gradient >= ZERO:
        gr = clip(gr, clip_gradient)
    w = w + -half_lr * (gr + wd * w)
    return w + noise * noise_scale


def plain_step(w, g, rescale):
    """The 'test' optimizer: w += rescale_grad * grad."""
    return w + g * rescale


def group_adagrad_row(w, g, hist, r, lr, epsilon, rescale, clip_gradient):
    """GroupAdaGrad on row ``r`` of 2-D ``w`` (the one rule that works on arrays).

    ``hist[r, 0]`` grows by the mean squared (rescaled, clipped) gradient of the row,
    then every element of the row steps by ``lr * grad / sqrt(hist + epsilon)``.
    """
    cols = w.shape[1]
    acc = ZERO
    for j in range(cols):
        gr = g[r, j] * rescale
        if clip_gradient >= ZERO:
            gr = clip(gr, clip_gradient)
        acc += gr * gr
    hist[r, 0] = hist[r, 0] + acc / np.float32(cols)
    denom = math.sqrt(hist[r, 0] + epsilon)
    for j in range(cols):
        gr = g[r, j] * rescale
        if clip_gradient >= ZERO:
            gr = clip(gr, clip_gradient)
        w[r, j] = w[r, j] - lr * gr / denom
