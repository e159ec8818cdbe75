"""CPU kernels for the adaptive-rate rules and the optimizers MXNet writes in NDArray code.

Same layout as :mod:`.cpu` (typed lists of flat arrays, a chunk table, per-tensor
hyper-parameters ``hp[k]``; a chunk function, a serial and a parallel driver per rule).
"""
from numba import prange

from . import rules
from .cpu import inline_rule, parallel_kernel, serial_kernel
from .half import load, store

_rmsprop = inline_rule(rules.rmsprop)
_rmspropalex = inline_rule(rules.rmspropalex)
_adagrad = inline_rule(rules.adagrad)
_adadelta = inline_rule(rules.adadelta)
_ftrl = inline_rule(rules.ftrl)
_ftml = inline_rule(rules.ftml)
_dcasgd = inline_rule(rules.dcasgd)
_sgld = inline_rule(rules.sgld)
_plain_step = inline_rule(rules.plain_step)
_group_adagrad_row = serial_kernel(rules.group_adagrad_row)


# ---- RMSProp: w, g, n; hp = (lr, wd) ---------------------------------------------------------
@serial_kernel
def _rmsprop_chunk(c, table, ws, gs, ns, hp, gamma1, epsilon, rescale, clip_gradient,
                   clip_weights):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, n, lr, wd = ws[k][lo:hi], gs[k][lo:hi], ns[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        new_w, new_n = _rmsprop(load(w, i), load(g, i), load(n, i), lr, wd, gamma1, epsilon,
                                rescale, clip_gradient, clip_weights)
        store(n, i, new_n)
        store(w, i, new_w)


@serial_kernel
def rmsprop_serial(table, ws, gs, ns, hp, gamma1, epsilon, rescale, clip_gradient,
                   clip_weights):
    for c in range(table.shape[0]):
        _rmsprop_chunk(c, table, ws, gs, ns, hp, gamma1, epsilon, rescale, clip_gradient,
                       clip_weights)


@parallel_kernel
def rmsprop_parallel(table, ws, gs, ns, hp, gamma1, epsilon, rescale, clip_gradient,
                     clip_weights):
    for c in prange(table.shape[0]):
        _rmsprop_chunk(c, table, ws, gs, ns, hp, gamma1, epsilon, rescale, clip_gradient,
                       clip_weights)


# ---- centered RMSProp: w, g, n, g_avg, delta; hp = (lr, wd) -----------------------------------
@serial_kernel
def _rmspropalex_chunk(c, table, ws, gs, ns, gas, ds, hp, gamma1, gamma2, epsilon, rescale,
                       clip_gradient, clip_weights):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, n, ga, d = ws[k][lo:hi], gs[k][lo:hi], ns[k][lo:hi], gas[k][lo:hi], ds[k][lo:hi]
    lr, wd = hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        new_w, new_n, new_ga, new_d = _rmspropalex(load(w, i), load(g, i), load(n, i),
                                                   load(ga, i), load(d, i), lr, wd, gamma1,
                                                   gamma2, epsilon, rescale, clip_gradient,
                                                   clip_weights)
        store(n, i, new_n)
        store(ga, i, new_ga)
        store(d, i, new_d)
        store(w, i, new_w)


@serial_kernel
def rmspropalex_serial(table, ws, gs, ns, gas, ds, hp, gamma1, gamma2, epsilon, rescale,
                       clip_gradient, clip_weights):
    for c in range(table.shape[0]):
        _rmspropalex_chunk(c, table, ws, gs, ns, gas, ds, hp, gamma1, gamma2, epsilon, rescale,
                           clip_gradient, clip_weights)


@parallel_kernel
def rmspropalex_parallel(table, ws, gs, ns, gas, ds, hp, gamma1, gamma2, epsilon, rescale,
                         clip_gradient, clip_weights):
    for c in prange(table.shape[0]):
        _rmspropalex_chunk(c, table, ws, gs, ns, gas, ds, hp, gamma1, gamma2, epsilon, rescale,
                           clip_gradient, clip_weights)


# ---- AdaGrad: w, g, history; hp = (lr, wd) ------------------------------------------------
@serial_kernel
def _adagrad_chunk(c, table, ws, gs, hs, hp, epsilon, rescale, clip_gradient):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, h, lr, wd = ws[k][lo:hi], gs[k][lo:hi], hs[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        new_w, new_h = _adagrad(load(w, i), load(g, i), load(h, i), lr, wd, epsilon, rescale,
                                clip_gradient)
        store(h, i, new_h)
        store(w, i, new_w)


@serial_kernel
def adagrad_serial(table, ws, gs, hs, hp, epsilon, rescale, clip_gradient):
    for c in range(table.shape[0]):
        _adagrad_chunk(c, table, ws, gs, hs, hp, epsilon, rescale, clip_gradient)


@parallel_kernel
def adagrad_parallel(table, ws, gs, hs, hp, epsilon, rescale, clip_gradient):
    for c in prange(table.shape[0]):
        _adagrad_chunk(c, table, ws, gs, hs, hp, epsilon, rescale, clip_gradient)


# ---- AdaDelta: w, g (rescaled in place, as MXNet), acc_g, acc_delta; hp = (wd,) -------------
@serial_kernel
def _adadelta_chunk(c, table, ws, gs, ags, ads, hp, rho, one_minus_rho, epsilon, rescale,
                    clip_gradient):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, ag, ad, wd = ws[k][lo:hi], gs[k][lo:hi], ags[k][lo:hi], ads[k][lo:hi], hp[k, 0]
    for i in range(hi - lo):
        new_w, new_g, new_ag, new_ad = _adadelta(load(w, i), load(g, i), load(ag, i),
                                                 load(ad, i), wd, rho, one_minus_rho, epsilon,
                                                 rescale, clip_gradient)
        store(g, i, new_g)
        store(ag, i, new_ag)
        store(ad, i, new_ad)
        store(w, i, new_w)


@serial_kernel
def adadelta_serial(table, ws, gs, ags, ads, hp, rho, one_minus_rho, epsilon, rescale,
                    clip_gradient):
    for c in range(table.shape[0]):
        _adadelta_chunk(c, table, ws, gs, ags, ads, hp, rho, one_minus_rho, epsilon, rescale,
                        clip_gradient)


@parallel_kernel
def adadelta_parallel(table, ws, gs, ags, ads, hp, rho, one_minus_rho, epsilon, rescale,
                      clip_gradient):
    for c in prange(table.shape[0]):
        _adadelta_chunk(c, table, ws, gs, ags, ads, hp, rho, one_minus_rho, epsilon, rescale,
                        clip_gradient)


# ---- Ftrl: w, g, z, n; hp = (lr, wd) ---------------------------------------------------------
@serial_kernel
def _ftrl_chunk(c, table, ws, gs, zs, ns, hp, lamda1, beta, rescale, clip_gradient):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, z, n, lr, wd = ws[k][lo:hi], gs[k][lo:hi], zs[k][lo:hi], ns[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        new_w, new_z, new_n = _ftrl(load(w, i), load(g, i), load(z, i), load(n, i), lr, wd,
                                    lamda1, beta, rescale, clip_gradient)
        store(z, i, new_z)
        store(n, i, new_n)
        store(w, i, new_w)


@serial_kernel
def ftrl_serial(table, ws, gs, zs, ns, hp, lamda1, beta, rescale, clip_gradient):
    for c in range(table.shape[0]):
        _ftrl_chunk(c, table, ws, gs, zs, ns, hp, lamda1, beta, rescale, clip_gradient)


@parallel_kernel
def ftrl_parallel(table, ws, gs, zs, ns, hp, lamda1, beta, rescale, clip_gradient):
    for c in prange(table.shape[0]):
        _ftrl_chunk(c, table, ws, gs, zs, ns, hp, lamda1, beta, rescale, clip_gradient)


# ---- FTML: w, g, d, v, z; hp = (lr, wd, 1 - beta1**t, 1 - beta2**t) ----------------------------
@serial_kernel
def _ftml_chunk(c, table, ws, gs, ds, vs, zs, hp, beta1, beta2, epsilon, rescale, clip_grad):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, d, v, z = ws[k][lo:hi], gs[k][lo:hi], ds[k][lo:hi], vs[k][lo:hi], zs[k][lo:hi]
    lr, wd, omb1t, omb2t = hp[k, 0], hp[k, 1], hp[k, 2], hp[k, 3]
    for i in range(hi - lo):
        new_w, new_d, new_v, new_z = _ftml(load(w, i), load(g, i), load(d, i), load(v, i),
                                           load(z, i), lr, wd, beta1, beta2, epsilon, rescale,
                                           clip_grad, omb1t, omb2t)
        store(d, i, new_d)
        store(v, i, new_v)
        store(z, i, new_z)
        store(w, i, new_w)


@serial_kernel
def ftml_serial(table, ws, gs, ds, vs, zs, hp, beta1, beta2, epsilon, rescale, clip_grad):
    for c in range(table.shape[0]):
        _ftml_chunk(c, table, ws, gs, ds, vs, zs, hp, beta1, beta2, epsilon, rescale, clip_grad)


@parallel_kernel
def ftml_parallel(table, ws, gs, ds, vs, zs, hp, beta1, beta2, epsilon, rescale, clip_grad):
    for c in prange(table.shape[0]):
        _ftml_chunk(c, table, ws, gs, ds, vs, zs, hp, beta1, beta2, epsilon, rescale, clip_grad)


# ---- DCASGD: w, g, previous weight, momentum; hp = (lr, wd) ---------------------------------
@serial_kernel
def _dcasgd_chunk(c, table, ws, gs, ps, ms, hp, momentum, lamda, rescale, clip_gradient,
                  has_mom):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, p, m, lr, wd = ws[k][lo:hi], gs[k][lo:hi], ps[k][lo:hi], ms[k][lo:hi], hp[k, 0], hp[k, 1]
    for i in range(hi - lo):
        mi = load(m, i) if has_mom else load(w, i)
        new_w, new_p, new_m = _dcasgd(load(w, i), load(g, i), load(p, i), mi, lr, wd,
                                      momentum, lamda, rescale, clip_gradient, has_mom)
        if has_mom:
            store(m, i, new_m)
        store(p, i, new_p)
        store(w, i, new_w)


@serial_kernel
def dcasgd_serial(table, ws, gs, ps, ms, hp, momentum, lamda, rescale, clip_gradient, has_mom):
    for c in range(table.shape[0]):
        _dcasgd_chunk(c, table, ws, gs, ps, ms, hp, momentum, lamda, rescale, clip_gradient,
                      has_mom)


@parallel_kernel
def dcasgd_parallel(table, ws, gs, ps, ms, hp, momentum, lamda, rescale, clip_gradient,
                    has_mom):
    for c in prange(table.shape[0]):
        _dcasgd_chunk(c, table, ws, gs, ps, ms, hp, momentum, lamda, rescale, clip_gradient,
                      has_mom)


# ---- SGLD: w, g, standard-normal noise; hp = (lr / 2, wd, sqrt(lr)) ----------------------------
@serial_kernel
def _sgld_chunk(c, table, ws, gs, zs, hp, rescale, clip_gradient):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, z = ws[k][lo:hi], gs[k][lo:hi], zs[k][lo:hi]
    half_lr, wd, scale = hp[k, 0], hp[k, 1], hp[k, 2]
    for i in range(hi - lo):
        store(w, i, _sgld(load(w, i), load(g, i), load(z, i), half_lr, wd, scale, rescale,
                          clip_gradient))


@serial_kernel
def sgld_serial(table, ws, gs, zs, hp, rescale, clip_gradient):
    for c in range(table.shape[0]):
        _sgld_chunk(c, table, ws, gs, zs, hp, rescale, clip_gradient)


@parallel_kernel
def sgld_parallel(table, ws, gs, zs, hp, rescale, clip_gradient):
    for c in prange(table.shape[0]):
        _sgld_chunk(c, table, ws, gs, zs, hp, rescale, clip_gradient)


# ---- the 'test' optimizer: w += rescale * g; state = w ---------------------------------------
@serial_kernel
def _plain_chunk(c, table, ws, gs, ss, rescale):
    k, lo, hi = table[c, 0], table[c, 1], table[c, 2]
    w, g, s = ws[k][lo:hi], gs[k][lo:hi], ss[k][lo:hi]
    for i in range(hi - lo):
        new_w = _plain_step(load(w, i), load(g, i), rescale)
        store(w, i, new_w)
        store(s, i, load(w, i))


@serial_kernel
def plain_serial(table, ws, gs, ss, hp, rescale):  # hp: unused, uniform signature
    for c in range(table.shape[0]):
        _plain_chunk(c, table, ws, gs, ss, rescale)


@parallel_kernel
def plain_parallel(table, ws, gs, ss, hp, rescale):
    for c in prange(table.shape[0]):
        _plain_chunk(c, table, ws, gs, ss, rescale)


# ---- GroupAdaGrad: one history value per row of a 2-D weight (not chunked) --------------------
@serial_kernel
def group_adagrad_serial(w, g, h, lr, epsilon, rescale, clip_gradient):
    for r in range(w.shape[0]):
        _group_adagrad_row(w, g, h, r, lr, epsilon, rescale, clip_gradient)


@parallel_kernel
def group_adagrad_parallel(w, g, h, lr, epsilon, rescale, clip_gradient):
    for r in prange(w.shape[0]):
        _group_adagrad_row(w, g, h, r, lr, epsilon, rescale, clip_gradient)


KERNELS = {
    'rmsprop': (rmsprop_serial, rmsprop_parallel),
    'rmspropalex': (rmspropalex_serial, rmspropalex_parallel),
    'adagrad': (adagrad_serial, adagrad_parallel),
    'adadelta': (adadelta_serial, adadelta_parallel),
    'ftrl': (ftrl_serial, ftrl_parallel),
    'ftml': (ftml_serial, ftml_parallel),
    'dcasgd': (dcasgd_serial, dcasgd_parallel),
    'sgld': (sgld_serial, sgld_parallel),
    'plain': (plain_serial, plain_parallel),
}
