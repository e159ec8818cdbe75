"""Densities: ``_random_pdf_<distr>`` (uniform, normal, exponential, gamma, Poisson,
negative binomial, generalized negative binomial, Dirichlet), symmod's log-densities
computed in float64 (log-gamma from ``special.lgamma``) and cast to the output type.
"""
import numpy as np

from ..registry import translator
from .common import cast, reduce, scalar, unsqueeze
from .special import lgamma

__all__ = []


def _log_density(g, node, x, params):
    """symmod's log-density (float64) of the sample ``x`` for the node's distribution."""
    name, distr = node.name, node.op.distribution
    if distr == 'gamma':
        return _gamma_log_density(g, name, x, *params)
    if distr in ('poisson', 'negative_binomial', 'generalized_negative_binomial'):
        return _discrete_log_density(g, node, x, params)
    if distr == 'uniform':
        low, high = params
        width = g.add('Sub', [high, low], hint=name + '_width')
        log = g.add('Neg', [g.add('Log', [width], hint=name + '_logw')], hint=name + '_log')
        shape = g.add('Shape', [x], hint=name + '_shape') if node.in_varying(0) else \
            g.int64s(node.in_shape(0), 'shape')
        return g.add('Expand', [log, shape], hint=name + '_logpdf')
    if distr == 'exponential':
        lam, = params
        return g.add('Sub', [g.add('Log', [lam], hint=name + '_loglam'),
                             g.add('Mul', [lam, x], hint=name + '_lx')], hint=name + '_logpdf')
    mu, sigma = params         # normal
    z = g.add('Div', [g.add('Sub', [x, mu], hint=name + '_centred'), sigma], hint=name + '_z')
    quad = g.add('Mul', [scalar(g, -0.5, np.float64, 'minus_half'),
                         g.add('Mul', [z, z], hint=name + '_zz')], hint=name + '_quad')
    norm = g.add('Log', [g.add('Mul', [sigma, scalar(g, np.sqrt(2 * np.pi), np.float64,
                                                     'sqrt_2pi')], hint=name + '_s')],
                 hint=name + '_lognorm')
    return g.add('Sub', [quad, norm], hint=name + '_logpdf')


def _log(g, x, hint):
    return g.add('Log', [x], hint=hint)


def _nb_log_density(g, name, x, k, p):
    """Negative binomial: lgamma(x + k) - lgamma(x + 1) - lgamma(k) + k log p
    + x log(1 - p)."""
    one = scalar(g, 1.0, np.float64, 'one')
    value = g.add('Sub', [lgamma(g, g.add('Add', [x, k], hint=name + '_xk'), name + '_lgxk'),
                          lgamma(g, g.add('Add', [x, one], hint=name + '_x1'), name + '_lgx1')],
                  hint=name + '_comb')
    value = g.add('Sub', [value, lgamma(g, k, name + '_lgk')], hint=name + '_binom')
    value = g.add('Add', [value, g.add('Mul', [k, _log(g, p, name + '_logp')],
                                       hint=name + '_klogp')], hint=name + '_succ')
    q = g.add('Sub', [one, p], hint=name + '_q')
    return g.add('Add', [value, g.add('Mul', [x, _log(g, q, name + '_logq')],
                                      hint=name + '_xlogq')], hint=name + '_logpdf')


def _discrete_log_density(g, node, x, params):
    """Poisson, negative binomial and its generalized (mean, dispersion) form."""
    name, distr = node.name, node.op.distribution
    one = scalar(g, 1.0, np.float64, 'one')
    if distr == 'poisson':
        lam, = params
        value = g.add('Sub', [g.add('Mul', [x, _log(g, lam, name + '_loglam')],
                                    hint=name + '_xlog'),
                              lgamma(g, g.add('Add', [x, one], hint=name + '_x1'),
                                     name + '_lgx1')], hint=name + '_value')
        return g.add('Sub', [value, lam], hint=name + '_logpdf')
    if distr == 'negative_binomial':
        return _nb_log_density(g, name, x, *params)
    mu, alpha = params
    k = g.add('Div', [one, alpha], hint=name + '_k')
    p = g.add('Div', [one, g.add('Add', [g.add('Mul', [mu, alpha], hint=name + '_ma'), one],
                                 hint=name + '_den')], hint=name + '_p')
    return _nb_log_density(g, name, x, k, p)


def _gamma_log_density(g, name, x, alpha, beta):
    """a log b + (a - 1) log x - b x - lgamma(a) (beta a rate)."""
    one = scalar(g, 1.0, np.float64, 'one')
    value = g.add('Add', [g.add('Mul', [alpha, _log(g, beta, name + '_logb')],
                                hint=name + '_alogb'),
                          g.add('Mul', [g.add('Sub', [alpha, one], hint=name + '_am1'),
                                        _log(g, x, name + '_logx')], hint=name + '_power')],
                  hint=name + '_sum')
    value = g.add('Sub', [value, g.add('Mul', [beta, x], hint=name + '_bx')],
                  hint=name + '_decay')
    return g.add('Sub', [value, lgamma(g, alpha, name + '_lga')], hint=name + '_logpdf')


@translator('_random_pdf_dirichlet')
def random_pdf_dirichlet(g, node):
    """lgamma(sum alpha) - sum lgamma(alpha) + sum (alpha - 1) log x over the last axis."""
    name = node.name
    x = cast(g, node.input(0), np.float64, hint=name + '_x')
    alpha = cast(g, node.input(1), np.float64, hint=name + '_alpha')
    rank, lead = len(node.in_shape(0)), len(node.in_shape(1))
    if lead < rank:
        alpha = unsqueeze(g, alpha, list(range(lead - 1, rank - 1)), hint=name + '_alpha')
    keep = rank == 1            # a single vector gives a (1,) density
    total = reduce(g, 'ReduceSum', alpha, [-1], keepdims=keep, hint=name + '_total')
    norm = g.add('Sub', [lgamma(g, total, name + '_lgt'),
                         reduce(g, 'ReduceSum', lgamma(g, alpha, name + '_lga'), [-1],
                                keepdims=keep, hint=name + '_sumlga')], hint=name + '_norm')
    power = g.add('Mul', [g.add('Sub', [alpha, scalar(g, 1.0, np.float64, 'one')],
                                hint=name + '_am1'), _log(g, x, name + '_logx')],
                  hint=name + '_power')
    log = g.add('Add', [norm, reduce(g, 'ReduceSum', power, [-1], keepdims=keep,
                                     hint=name + '_sumpow')], hint=name + '_logpdf')
    value = log if node.op.is_log else g.add('Exp', [log], hint=name + '_pdf')
    cast(g, value, node.out_dtype(), out=node.outputs[0])


@translator('_random_pdf_uniform', '_random_pdf_normal', '_random_pdf_exponential',
            '_random_pdf_gamma', '_random_pdf_poisson', '_random_pdf_negative_binomial',
            '_random_pdf_generalized_negative_binomial')
def random_pdf(g, node):
    x = cast(g, node.input(0), np.float64, hint=node.name + '_x')
    rank = len(node.in_shape(0))
    params = []
    for i in range(1, node.num_inputs):
        p = cast(g, node.input(i), np.float64, hint='%s_p%d' % (node.name, i))
        lead = len(node.in_shape(i))
        params.append(unsqueeze(g, p, list(range(lead, rank)), hint=node.name + '_param')
                      if lead < rank else p)
    log = _log_density(g, node, x, params)
    value = log if node.op.is_log else g.add('Exp', [log], hint=node.name + '_pdf')
    cast(g, value, node.out_dtype(), out=node.outputs[0])
