"""CUDA kernels: the rules of :mod:`.rules` as ``numba.cuda.jit`` kernels.

One thread per element; each thread loads its weight, gradient and states once, applies
the same rule function the CPU kernels use (compiled as a device function) and stores
the results. :func:`run` launches one kernel per tensor on the tensor's device; the
launches are asynchronous, so a multi-tensor update costs launches, not round trips
through the data. Under ``NUMBA_ENABLE_CUDASIM=1`` the same code runs in numba's
simulator, which is how the tests check it on machines without a GPU.
"""
import math

import numpy as np
from numba import cuda

from . import rules
from .dispatch import SUM_WIDTHS

THREADS = 256


def _device(fn):
    return cuda.jit(device=True)(fn)


_sgd = _device(rules.sgd)
_sgd_mom = _device(rules.sgd_mom)
_nag_mom = _device(rules.nag_mom)
_signsgd = _device(rules.signsgd)
_signum = _device(rules.signum)
_adam = _device(rules.adam)
_adamw = _device(rules.adamw)
_adamax = _device(rules.adamax)
_nadam = _device(rules.nadam)
_lamb_phase1 = _device(rules.lamb_phase1)
_rmsprop = _device(rules.rmsprop)
_rmspropalex = _device(rules.rmspropalex)
_adagrad = _device(rules.adagrad)
_adadelta = _device(rules.adadelta)
_ftrl = _device(rules.ftrl)
_ftml = _device(rules.ftml)
_dcasgd = _device(rules.dcasgd)
_sgld = _device(rules.sgld)
_plain_step = _device(rules.plain_step)
_group_adagrad_row = _device(rules.group_adagrad_row)


@cuda.jit
def sgd_kernel(w, g, lr, wd, rescale, clip_gradient, multi_form):
    i = cuda.grid(1)
    if i < w.size:
        w[i] = _sgd(w[i], g[i], lr, wd, rescale, clip_gradient, multi_form)


@cuda.jit
def mp_sgd_kernel(w, g, w32, lr, wd, rescale, clip_gradient, multi_form):
    i = cuda.grid(1)
    if i < w.size:
        new_w = _sgd(w32[i], g[i], lr, wd, rescale, clip_gradient, multi_form)
        w32[i] = new_w
        w[i] = new_w


@cuda.jit
def sgd_mom_kernel(w, g, m, lr, wd, momentum, rescale, clip_gradient, nesterov, in_place):
    i = cuda.grid(1)
    if i < w.size:
        if nesterov:
            new_w, new_m = _nag_mom(w[i], g[i], m[i], lr, wd, momentum, rescale, clip_gradient,
                                    in_place)
        else:
            new_w, new_m = _sgd_mom(w[i], g[i], m[i], lr, wd, momentum, rescale, clip_gradient)
        m[i] = new_m
        w[i] = new_w


@cuda.jit
def mp_sgd_mom_kernel(w, g, m, w32, lr, wd, momentum, rescale, clip_gradient, nesterov):
    i = cuda.grid(1)
    if i < w.size:
        if nesterov:
            new_w, new_m = _nag_mom(w32[i], g[i], m[i], lr, wd, momentum, rescale,
                                    clip_gradient, True)
        else:
            new_w, new_m = _sgd_mom(w32[i], g[i], m[i], lr, wd, momentum, rescale,
                                    clip_gradient)
        m[i] = new_m
        w32[i] = new_w
        w[i] = new_w


@cuda.jit
def signum_kernel(w, g, m, lr, wd, momentum, rescale, clip_gradient, wd_lh, has_mom):
    i = cuda.grid(1)
    if i < w.size:
        if has_mom:
            new_w, new_m = _signum(w[i], g[i], m[i], lr, wd, momentum, rescale, clip_gradient,
                                   wd_lh)
            m[i] = new_m
        else:
            new_w = _signsgd(w[i], g[i], lr, wd)
        w[i] = new_w


@cuda.jit
def adam_kernel(w, g, m, v, lr, wd, beta1, beta2, epsilon, rescale, clip_gradient):
    i = cuda.grid(1)
    if i < w.size:
        w[i], m[i], v[i] = _adam(w[i], g[i], m[i], v[i], lr, wd, beta1, beta2, epsilon,
                                 rescale, clip_gradient)


@cuda.jit
def adamw_kernel(w, g, m, v, lr, wd, eta, beta1, beta2, epsilon, rescale, clip_gradient,
                 multi_form):
    i = cuda.grid(1)
    if i < w.size:
        w[i], m[i], v[i] = _adamw(w[i], g[i], m[i], v[i], lr, wd, eta, beta1, beta2, epsilon,
                                  rescale, clip_gradient, multi_form)


@cuda.jit
def adamax_kernel(w, g, m, u, lr, wd, beta1, one_minus_beta1, beta2, rescale, clip_gradient):
    i = cuda.grid(1)
    if i < w.size:
        w[i], m[i], u[i] = _adamax(w[i], g[i], m[i], u[i], lr, wd, beta1, one_minus_beta1,
                                   beta2, rescale, clip_gradient)


@cuda.jit
def nadam_kernel(w, g, m, v, lr, wd, oms, omsn, omb2t, ommt, mtn, beta1, one_minus_beta1,
                 beta2, one_minus_beta2, epsilon, rescale, clip_gradient):
    i = cuda.grid(1)
    if i < w.size:
        w[i], m[i], v[i] = _nadam(w[i], g[i], m[i], v[i], lr, wd, beta1, one_minus_beta1,
                                  beta2, one_minus_beta2, rescale, clip_gradient, oms, omsn,
                                  omb2t, ommt, mtn, epsilon)


@cuda.jit
def lamb1_kernel(w, g, m, v, out, sums, k, wd, omb1t, omb2t, beta1, beta2, epsilon, rescale,
                 clip_gradient, bias_correction, write_out):
    i = cuda.grid(1)
    if i < w.size:
        wi = w[i]
        upd, new_m, new_v = _lamb_phase1(wi, g[i], m[i], v[i], wd, beta1, beta2, epsilon,
                                         rescale, clip_gradient, bias_correction, omb1t, omb2t)
        m[i] = new_m
        v[i] = new_v
        if write_out:
            out[i] = upd
        cuda.atomic.add(sums, (k, 0), wi * wi)
        cuda.atomic.add(sums, (k, 1), upd * upd)


@cuda.jit
def lamb2_kernel(w, m, v, wd, omb1t, omb2t, lr, epsilon, bias_correction):
    i = cuda.grid(1)
    if i < w.size:
        wi = w[i]
        if bias_correction:
            upd = (m[i] / omb1t) / (math.sqrt(v[i] / omb2t) + epsilon)
        else:
            upd = m[i] / (math.sqrt(v[i]) + epsilon)
        w[i] = wi - lr * (upd + wd * wi)


@cuda.jit
def sum_sq_kernel(x, sums, k):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(sums, (k, 0), x[i] * x[i])


@cuda.jit
def rmsprop_kernel(w, g, n, lr, wd, gamma1, epsilon, rescale, clip_gradient, clip_weights):
    i = cuda.grid(1)
    if i < w.size:
        w[i], n[i] = _rmsprop(w[i], g[i], n[i], lr, wd, gamma1, epsilon, rescale,
                              clip_gradient, clip_weights)


@cuda.jit
def rmspropalex_kernel(w, g, n, ga, d, lr, wd, gamma1, gamma2, epsilon, rescale,
                       clip_gradient, clip_weights):
    i = cuda.grid(1)
    if i < w.size:
        w[i], n[i], ga[i], d[i] = _rmspropalex(w[i], g[i], n[i], ga[i], d[i], lr, wd, gamma1,
                                               gamma2, epsilon, rescale, clip_gradient,
                                               clip_weights)


@cuda.jit
def adagrad_kernel(w, g, h, lr, wd, epsilon, rescale, clip_gradient):
    i = cuda.grid(1)
    if i < w.size:
        w[i], h[i] = _adagrad(w[i], g[i], h[i], lr, wd, epsilon, rescale, clip_gradient)


@cuda.jit
def adadelta_kernel(w, g, ag, ad, wd, rho, one_minus_rho, epsilon, rescale, clip_gradient):
    i = cuda.grid(1)
    if i < w.size:
        w[i], g[i], ag[i], ad[i] = _adadelta(w[i], g[i], ag[i], ad[i], wd, rho, one_minus_rho,
                                             epsilon, rescale, clip_gradient)


@cuda.jit
def ftrl_kernel(w, g, z, n, lr, wd, lamda1, beta, rescale, clip_gradient):
    i = cuda.grid(1)
    if i < w.size:
        w[i], z[i], n[i] = _ftrl(w[i], g[i], z[i], n[i], lr, wd, lamda1, beta, rescale,
                                 clip_gradient)


@cuda.jit
def ftml_kernel(w, g, d, v, z, lr, wd, omb1t, omb2t, beta1, beta2, epsilon, rescale,
                clip_grad):
    i = cuda.grid(1)
    if i < w.size:
        w[i], d[i], v[i], z[i] = _ftml(w[i], g[i], d[i], v[i], z[i], lr, wd, beta1, beta2,
                                       epsilon, rescale, clip_grad, omb1t, omb2t)


@cuda.jit
def dcasgd_kernel(w, g, p, m, lr, wd, momentum, lamda, rescale, clip_gradient, has_mom):
    i = cuda.grid(1)
    if i < w.size:
        mi = m[i] if has_mom else w[i]
        new_w, new_p, new_m = _dcasgd(w[i], g[i], p[i], mi, lr, wd, momentum, lamda, rescale,
                                      clip_gradient, has_mom)
        if has_mom:
            m[i] = new_m
        p[i] = new_p
        w[i] = new_w


@cuda.jit
def sgld_kernel(w, g, z, half_lr, wd, scale, rescale, clip_gradient):
    i = cuda.grid(1)
    if i < w.size:
        w[i] = _sgld(w[i], g[i], z[i], half_lr, wd, scale, rescale, clip_gradient)


@cuda.jit
def plain_kernel(w, g, s, rescale):
    i = cuda.grid(1)
    if i < w.size:
        w[i] = _plain_step(w[i], g[i], rescale)
        s[i] = w[i]


@cuda.jit
def group_adagrad_kernel(w, g, h, lr, epsilon, rescale, clip_gradient):
    r = cuda.grid(1)
    if r < w.shape[0]:
        _group_adagrad_row(w, g, h, r, lr, epsilon, rescale, clip_gradient)


# rule name -> (kernel, number of leading hp columns passed per tensor)
KERNELS = {
    'sgd': (sgd_kernel, 2),
    'mp_sgd': (mp_sgd_kernel, 2),
    'sgd_mom': (sgd_mom_kernel, 2),
    'mp_sgd_mom': (mp_sgd_mom_kernel, 2),
    'signum': (signum_kernel, 2),
    'adam': (adam_kernel, 2),
    'adamw': (adamw_kernel, 3),
    'adamax': (adamax_kernel, 2),
    'nadam': (nadam_kernel, 7),
    'lamb2': (lamb2_kernel, 4),
    'rmsprop': (rmsprop_kernel, 2),
    'rmspropalex': (rmspropalex_kernel, 2),
    'adagrad': (adagrad_kernel, 2),
    'adadelta': (adadelta_kernel, 1),
    'ftrl': (ftrl_kernel, 2),
    'ftml': (ftml_kernel, 4),
    'dcasgd': (dcasgd_kernel, 2),
    'sgld': (sgld_kernel, 3),
    'plain': (plain_kernel, 0),
}


def _flat(a):
    return a.reshape(a.size) if a.ndim != 1 else a


def _blocks(n):
    return max(1, (n + THREADS - 1) // THREADS)


def run(rule, operands, hp, scalars):
    """Launch ``rule`` once per tensor; returns per-tensor sums for reducing rules."""
    n_tensors = len(operands[0])
    width = SUM_WIDTHS.get(rule)
    if width is not None:
        sums = cuda.to_device(np.zeros((n_tensors, width), dtype=np.float64))
    for k in range(n_tensors):
        arrays = [_flat(op[k]) for op in operands]
        size = arrays[0].size
        if size == 0:
            continue
        launch = _blocks(size), THREADS
        if rule == 'lamb1':
            lamb1_kernel[launch](*arrays, sums, k, *hp[k, :3], *scalars)
        elif rule == 'sum_sq':
            sum_sq_kernel[launch](*arrays, sums, k)
        else:
            kernel, n_hp = KERNELS[rule]
            kernel[launch](*arrays, *hp[k, :n_hp], *scalars)
    return None if width is None else sums.copy_to_host()


def group_adagrad(weight, grad, history, lr, epsilon, rescale, clip_gradient):
    """Row-wise AdaGrad on a 2-D device array: one thread per row."""
    group_adagrad_kernel[_blocks(weight.shape[0]), THREADS](weight, grad, history, lr, epsilon,
                                                            rescale, clip_gradient)
