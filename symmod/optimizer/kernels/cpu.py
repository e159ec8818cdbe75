"""CPU kernels: every update rule as one fused numba loop over many tensors.

A kernel receives numba typed lists of flat (1-D, contiguous) arrays — one list per
operand, one entry per tensor — a chunk table whose rows are ``(tensor, start, stop)``,
and a 2-D array of per-tensor hyper-parameters (``hp[k]``: learning rate, weight decay,
...). It reads each element once, applies the rule from :mod:`.rules` in registers
and writes the results back: one pass over memory, no temporaries.

Each rule has a chunk function (one row of the table) and two drivers over the rows: a
serial one (small updates: starting threads costs more than they take) and a parallel
one (``prange``, so one big tensor and many small ones spread alike over the cores).
The drivers are written out per rule on purpose: one shared driver taking the chunk
function as an argument, or made by a factory, is compiled again in every process
instead of loaded from numba's cache; passing the arguments on as ``*args`` costs tens
of microseconds per call; one function holding both loops compiles slower than two.
:data:`KERNELS` maps a rule name to ``(serial, parallel)``; :mod:`.cpu_adaptive` holds
the other rules.
"""
import numpy as np
from numba import njit, prange

from . import rules
from .half import load, store


def inline_rule(fn):
    """A rule of :mod:`.rules` compiled to be inlined into the chunk functions."""
    return njit(cache=True, error_model='numpy', inline='always')(fn)


def serial_kernel(fn):
    """A chunk function or a serial driver."""
    return njit(cache=True, error_model='numpy')(fn)


def parallel_kernel(fn):
    """A parallel driver: its ``prange`` loop runs on numba's threads."""
    return njit(cache=True, error_model='numpy', parallel=True)(fn)


_sgd = inline_rule(rules.sgd)
_sgd_mom = inline_rule(rules.sgd_mom)
_nag_mom = inline_rule(rules.nag_mom)
_signsgd = inline_rule(rules.signsgd)
_signum = inline_rule(rules.signum)
_adam = inline_rule(rules.adam)
_adamw = inline_rule(rules.adamw)
_adamax = inline_rule(rules.adamax)
_nadam = inline_rule(rules.nadam)
_lamb_phase1 = inline_rule(rules.lamb_phase1)


# ---- SGD: w, g; hp = (lr, wd) ------------------------------------------------------------
@serial_kernel
def _sgd_chunk(c, table, ws, gs, hp, rescale, clip_gradient, multi_form):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, lr, wd = ws[k][lo:hi], gs[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        store(w, i, _sgd(load(w, i), load(g, i), lr, wd, rescale, clip_gradient, multi_form))


@serial_kernel
def sgd_serial(table, ws, gs, hp, rescale, clip_gradient, multi_form):
    for c in range(table.shape[0]):
        _sgd_chunk(c, table, ws, gs, hp, rescale, clip_gradient, multi_form)


@parallel_kernel
def sgd_parallel(table, ws, gs, hp, rescale, clip_gradient, multi_form):
    for c in prange(table.shape[0]):
        _sgd_chunk(c, table, ws, gs, hp, rescale, clip_gradient, multi_form)


# ---- mixed-precision SGD: w16, g16, w32 -------------------------------------------------
@serial_kernel
def _mp_sgd_chunk(c, table, ws, gs, w32s, hp, rescale, clip_gradient, multi_form):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, w32, lr, wd = ws[k][lo:hi], gs[k][lo:hi], w32s[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        new_w = _sgd(w32[i], load(g, i), lr, wd, rescale, clip_gradient, multi_form)
        w32[i] = new_w
        store(w, i, new_w)


@serial_kernel
def mp_sgd_serial(table, ws, gs, w32s, hp, rescale, clip_gradient, multi_form):
    for c in range(table.shape[0]):
        _mp_sgd_chunk(c, table, ws, gs, w32s, hp, rescale, clip_gradient, multi_form)


@parallel_kernel
def mp_sgd_parallel(table, ws, gs, w32s, hp, rescale, clip_gradient, multi_form):
    for c in prange(table.shape[0]):
        _mp_sgd_chunk(c, table, ws, gs, w32s, hp, rescale, clip_gradient, multi_form)


# ---- SGD with momentum and NAG: w, g, mom; hp = (lr, wd) ----------------------------------
@serial_kernel
def _sgd_mom_chunk(c, table, ws, gs, ms, hp, momentum, rescale, clip_gradient, nesterov,
                   in_place):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, lr, wd = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        if nesterov:
            new_w, new_m = _nag_mom(load(w, i), load(g, i), load(m, i), lr, wd, momentum,
                                    rescale, clip_gradient, in_place)
        else:
            new_w, new_m = _sgd_mom(load(w, i), load(g, i), load(m, i), lr, wd, momentum,
                                    rescale, clip_gradient)
        store(m, i, new_m)
        store(w, i, new_w)


@serial_kernel
def sgd_mom_serial(table, ws, gs, ms, hp, momentum, rescale, clip_gradient, nesterov, in_place):
    for c in range(table.shape[0]):
        _sgd_mom_chunk(c, table, ws, gs, ms, hp, momentum, rescale, clip_gradient, nesterov,
                       in_place)


@parallel_kernel
def sgd_mom_parallel(table, ws, gs, ms, hp, momentum, rescale, clip_gradient, nesterov,
                     in_place):
    for c in prange(table.shape[0]):
        _sgd_mom_chunk(c, table, ws, gs, ms, hp, momentum, rescale, clip_gradient, nesterov,
                       in_place)


# ---- mixed-precision momentum SGD / NAG: w16, g16, mom32, w32 ------------------------------
@serial_kernel
def _mp_sgd_mom_chunk(c, table, ws, gs, ms, w32s, hp, momentum, rescale, clip_gradient,
                      nesterov):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, w32 = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], w32s[k][lo:hi]
    lr, wd = hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        if nesterov:
            new_w, new_m = _nag_mom(w32[i], load(g, i), m[i], lr, wd, momentum, rescale,
                                    clip_gradient, True)
        else:
            new_w, new_m = _sgd_mom(w32[i], load(g, i), m[i], lr, wd, momentum, rescale,
                                    clip_gradient)
        m[i] = new_m
        w32[i] = new_w
        store(w, i, new_w)


@serial_kernel
def mp_sgd_mom_serial(table, ws, gs, ms, w32s, hp, momentum, rescale, clip_gradient, nesterov):
    for c in range(table.shape[0]):
        _mp_sgd_mom_chunk(c, table, ws, gs, ms, w32s, hp, momentum, rescale, clip_gradient,
                          nesterov)


@parallel_kernel
def mp_sgd_mom_parallel(table, ws, gs, ms, w32s, hp, momentum, rescale, clip_gradient,
                        nesterov):
    for c in prange(table.shape[0]):
        _mp_sgd_mom_chunk(c, table, ws, gs, ms, w32s, hp, momentum, rescale, clip_gradient,
                          nesterov)


# ---- signSGD / Signum: w, g, mom; hp = (lr, wd) --------------------------------------------
@serial_kernel
def _signum_chunk(c, table, ws, gs, ms, hp, momentum, rescale, clip_gradient, wd_lh,
                  has_mom):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, lr, wd = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        if has_mom:
            new_w, new_m = _signum(load(w, i), load(g, i), load(m, i), lr, wd, momentum,
                                   rescale, clip_gradient, wd_lh)
            store(m, i, new_m)
        else:
            new_w = _signsgd(load(w, i), load(g, i), lr, wd)
        store(w, i, new_w)


@serial_kernel
def signum_serial(table, ws, gs, ms, hp, momentum, rescale, clip_gradient, wd_lh, has_mom):
    for c in range(table.shape[0]):
        _signum_chunk(c, table, ws, gs, ms, hp, momentum, rescale, clip_gradient, wd_lh,
                      has_mom)


@parallel_kernel
def signum_parallel(table, ws, gs, ms, hp, momentum, rescale, clip_gradient, wd_lh, has_mom):
    for c in prange(table.shape[0]):
        _signum_chunk(c, table, ws, gs, ms, hp, momentum, rescale, clip_gradient, wd_lh,
                      has_mom)


# ---- Adam: w, g, mean, var; hp = (lr, wd) ---------------------------------------------------
@serial_kernel
def _adam_chunk(c, table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, v, lr, wd = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], vs[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        new_w, new_m, new_v = _adam(load(w, i), load(g, i), load(m, i), load(v, i), lr, wd,
                                    beta1, beta2, epsilon, rescale, clip_gradient)
        store(m, i, new_m)
        store(v, i, new_v)
        store(w, i, new_w)


@serial_kernel
def adam_serial(table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient):
    for c in range(table.shape[0]):
        _adam_chunk(c, table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient)


@parallel_kernel
def adam_parallel(table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient):
    for c in prange(table.shape[0]):
        _adam_chunk(c, table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient)


# ---- AdamW (contrib adamw_update): hp = (lr, wd, eta) ---------------------------------------
@serial_kernel
def _adamw_chunk(c, table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient,
                 multi_form):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, v = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], vs[k][lo:hi]
    lr, wd, eta = hp[k, 0], hp[k, 1], hp[k, 2]
    for i in range(hi - lo):
        new_w, new_m, new_v = _adamw(load(w, i), load(g, i), load(m, i), load(v, i), lr, wd,
                                     eta, beta1, beta2, epsilon, rescale, clip_gradient,
                                     multi_form)
        store(m, i, new_m)
        store(v, i, new_v)
        store(w, i, new_w)


@serial_kernel
def adamw_serial(table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient,
                 multi_form):
    for c in range(table.shape[0]):
        _adamw_chunk(c, table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale,
                     clip_gradient, multi_form)


@parallel_kernel
def adamw_parallel(table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale, clip_gradient,
                   multi_form):
    for c in prange(table.shape[0]):
        _adamw_chunk(c, table, ws, gs, ms, vs, hp, beta1, beta2, epsilon, rescale,
                     clip_gradient, multi_form)


# ---- Adamax: hp = (lr / (1 - beta1**t), wd) ---------------------------------------------
@serial_kernel
def _adamax_chunk(c, table, ws, gs, ms, us, hp, beta1, one_minus_beta1, beta2, rescale,
                  clip_gradient):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, u, lr, wd = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], us[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        new_w, new_m, new_u = _adamax(load(w, i), load(g, i), load(m, i), load(u, i), lr, wd,
                                      beta1, one_minus_beta1, beta2, rescale, clip_gradient)
        store(m, i, new_m)
        store(u, i, new_u)
        store(w, i, new_w)


@serial_kernel
def adamax_serial(table, ws, gs, ms, us, hp, beta1, one_minus_beta1, beta2, rescale,
                  clip_gradient):
    for c in range(table.shape[0]):
        _adamax_chunk(c, table, ws, gs, ms, us, hp, beta1, one_minus_beta1, beta2, rescale,
                      clip_gradient)


@parallel_kernel
def adamax_parallel(table, ws, gs, ms, us, hp, beta1, one_minus_beta1, beta2, rescale,
                    clip_gradient):
    for c in prange(table.shape[0]):
        _adamax_chunk(c, table, ws, gs, ms, us, hp, beta1, one_minus_beta1, beta2, rescale,
                      clip_gradient)


# ---- Nadam: hp = (lr, wd, 1-m_schedule, 1-m_schedule_next, 1-beta2**t, 1-mom_t, mom_t1) ---
@serial_kernel
def _nadam_chunk(c, table, ws, gs, ms, vs, hp, beta1, one_minus_beta1, beta2, one_minus_beta2,
                 epsilon, rescale, clip_gradient):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, v = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], vs[k][lo:hi]
    lr, wd, oms, omsn, omb2t, ommt, mtn = (hp[k, 0], hp[k, 1], hp[k, 2], hp[k, 3], hp[k, 4],
                                           hp[k, 5], hp[k, 6])
    for i in range(hi - lo):
        new_w, new_m, new_v = _nadam(load(w, i), load(g, i), load(m, i), load(v, i), lr, wd,
                                     beta1, one_minus_beta1, beta2, one_minus_beta2, rescale,
                                     clip_gradient, oms, omsn, omb2t, ommt, mtn, epsilon)
        store(m, i, new_m)
        store(v, i, new_v)
        store(w, i, new_w)


@serial_kernel
def nadam_serial(table, ws, gs, ms, vs, hp, beta1, one_minus_beta1, beta2, one_minus_beta2,
                 epsilon, rescale, clip_gradient):
    for c in range(table.shape[0]):
        _nadam_chunk(c, table, ws, gs, ms, vs, hp, beta1, one_minus_beta1, beta2,
                     one_minus_beta2, epsilon, rescale, clip_gradient)


@parallel_kernel
def nadam_parallel(table, ws, gs, ms, vs, hp, beta1, one_minus_beta1, beta2, one_minus_beta2,
                   epsilon, rescale, clip_gradient):
    for c in prange(table.shape[0]):
        _nadam_chunk(c, table, ws, gs, ms, vs, hp, beta1, one_minus_beta1, beta2,
                     one_minus_beta2, epsilon, rescale, clip_gradient)


# ---- LAMB, step 1: moments, the update direction and both squared norms -------------------
# hp = (wd, 1 - beta1**t, 1 - beta2**t); sums[c] = (sum w**2, sum g**2) of chunk c.
@serial_kernel
def _lamb1_chunk(c, table, ws, gs, ms, vs, outs, hp, sums, beta1, beta2, epsilon, rescale,
                 clip_gradient, bias_correction, write_out):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, m, v, out = ws[k][lo:hi], gs[k][lo:hi], ms[k][lo:hi], vs[k][lo:hi], outs[k][lo:hi]
    wd, omb1t, omb2t = hp[k, 0], hp[k, 1], hp[k, 2]
    w_sq = 0.0
    g_sq = 0.0
    for i in range(hi - lo):
        wi = load(w, i)
        upd, new_m, new_v = _lamb_phase1(wi, load(g, i), load(m, i), load(v, i), wd, beta1,
                                         beta2, epsilon, rescale, clip_gradient,
                                         bias_correction, omb1t, omb2t)
        store(m, i, new_m)
        store(v, i, new_v)
        if write_out:
            store(out, i, upd)
        w_sq += wi * wi
        g_sq += upd * upd
    sums[c, 0] = w_sq
    sums[c, 1] = g_sq


@serial_kernel
def lamb1_serial(table, ws, gs, ms, vs, outs, hp, sums, beta1, beta2, epsilon, rescale,
                 clip_gradient, bias_correction, write_out):
    for c in range(table.shape[0]):
        _lamb1_chunk(c, table, ws, gs, ms, vs, outs, hp, sums, beta1, beta2, epsilon, rescale,
                     clip_gradient, bias_correction, write_out)


@parallel_kernel
def lamb1_parallel(table, ws, gs, ms, vs, outs, hp, sums, beta1, beta2, epsilon, rescale,
                   clip_gradient, bias_correction, write_out):
    for c in prange(table.shape[0]):
        _lamb1_chunk(c, table, ws, gs, ms, vs, outs, hp, sums, beta1, beta2, epsilon, rescale,
                     clip_gradient, bias_correction, write_out)


# ---- LAMB, step 2: recompute the direction from the new moments, step by the trust lr ----
# hp = (wd, 1 - beta1**t, 1 - beta2**t, trust-scaled lr)
@serial_kernel
def _lamb2_chunk(c, table, ws, ms, vs, hp, epsilon, bias_correction):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, m, v = ws[k][lo:hi], ms[k][lo:hi], vs[k][lo:hi]
    wd, omb1t, omb2t, lr = hp[k, 0], hp[k, 1], hp[k, 2], hp[k, 3]
    for i in range(hi - lo):
        wi = load(w, i)
        mi = load(m, i)
        vi = load(v, i)
        if bias_correction:
            upd = (mi / omb1t) / (np.sqrt(vi / omb2t) + epsilon)
        else:
            upd = mi / (np.sqrt(vi) + epsilon)
        store(w, i, wi - lr * (upd + wd * wi))


@serial_kernel
def lamb2_serial(table, ws, ms, vs, hp, epsilon, bias_correction):
    for c in range(table.shape[0]):
        _lamb2_chunk(c, table, ws, ms, vs, hp, epsilon, bias_correction)


@parallel_kernel
def lamb2_parallel(table, ws, ms, vs, hp, epsilon, bias_correction):
    for c in prange(table.shape[0]):
        _lamb2_chunk(c, table, ws, ms, vs, hp, epsilon, bias_correction)


# ---- sums of squares per chunk (multi_sum_sq, LARS) -----------------------------------------
@serial_kernel
def _sum_sq_chunk(c, table, xs, sums):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    x = xs[k][lo:hi]
    acc = 0.0
    for i in range(hi - lo):
        xi = load(x, i)
        acc += xi * xi
    sums[c, 0] = acc


@serial_kernel
def sum_sq_serial(table, xs, hp, sums):  # hp: unused, uniform signature
    for c in range(table.shape[0]):
        _sum_sq_chunk(c, table, xs, sums)


@parallel_kernel
def sum_sq_parallel(table, xs, hp, sums):
    for c in prange(table.shape[0]):
        _sum_sq_chunk(c, table, xs, sums)


KERNELS = {
    'sgd': (sgd_serial, sgd_parallel),
    'mp_sgd': (mp_sgd_serial, mp_sgd_parallel),
    'sgd_mom': (sgd_mom_serial, sgd_mom_parallel),
    'mp_sgd_mom': (mp_sgd_mom_serial, mp_sgd_mom_parallel),
    'signum': (signum_serial, signum_parallel),
    'adam': (adam_serial, adam_parallel),
    'adamw': (adamw_serial, adamw_parallel),
    'adamax': (adamax_serial, adamax_parallel),
    'nadam': (nadam_serial, nadam_parallel),
    'lamb1': (lamb1_serial, lamb1_parallel),
    'lamb2': (lamb2_serial, lamb2_parallel),
    'sum_sq': (sum_sq_serial, sum_sq_parallel),
}
