"""_random_pdf_<distr> (alias random_pdf_<distr>): densities (or, with ``is_log``, their
logarithms) of ``sample`` under distributions whose parameter arrays match the leftmost
dimensions of ``sample``; differentiable with respect to the parameters (and to the sample
for the continuous distributions).

Conventions are MXNet's: gamma's ``beta`` and exponential's ``lam`` are rates; the
negative binomial counts failures (probability ``1 - p``) before ``k`` successes; the
generalized negative binomial has mean ``mu`` and dispersion ``alpha``; dirichlet's
``alpha`` and each sample are vectors along the last axis.
"""
import numpy as np

from ..base import parse_bool
from .common import store_from
from .registry import Operator, Param, ShapeError, register, unify
from .special import digamma, gammaln

__all__ = []


def _nb_logpdf(x, k, p):
    return gammaln(x + k) - gammaln(x + 1) - gammaln(k) + k * np.log(p) + x * np.log1p(-p)


def _nb_grads(x, k, p):
    return digamma(x + k) - digamma(k) + np.log(p), k / p - x / (1 - p)


def _gnb_params(mu, alpha):
    return 1.0 / alpha, 1.0 / (mu * alpha + 1.0)


def _gnb_grads(x, mu, alpha):
    limit, prob = _gnb_params(mu, alpha)
    d_limit, d_prob = _nb_grads(x, limit, prob)
    den = mu * alpha + 1.0
    return -d_prob * alpha / den ** 2, -d_limit / alpha ** 2 - d_prob * mu / den ** 2


def _zero(x):
    return np.zeros_like(x)


# distr -> (parameter names, log-density(x, *params), d log-density / d params,
#           d log-density / d x)
_PDFS = {
    'uniform': (('low', 'high'),
                lambda x, lo, hi: np.broadcast_to(-np.log(hi - lo), x.shape),
                lambda x, lo, hi: (np.broadcast_to(1 / (hi - lo), x.shape),
                                   np.broadcast_to(-1 / (hi - lo), x.shape)),
                lambda x, lo, hi: _zero(x)),
    'normal': (('mu', 'sigma'),
               lambda x, mu, s: -0.5 * ((x - mu) / s) ** 2 - np.log(s * np.sqrt(2 * np.pi)),
               lambda x, mu, s: ((x - mu) / s ** 2, (x - mu) ** 2 / s ** 3 - 1 / s),
               lambda x, mu, s: -(x - mu) / s ** 2),
    'gamma': (('alpha', 'beta'),
              lambda x, a, b: a * np.log(b) + (a - 1) * np.log(x) - b * x - gammaln(a),
              lambda x, a, b: (np.log(b) + np.log(x) - digamma(a), a / b - x),
              lambda x, a, b: (a - 1) / x - b),
    'exponential': (('lam',),
                    lambda x, lam: np.log(lam) - lam * x,
                    lambda x, lam: (1 / lam - x,),
                    lambda x, lam: np.broadcast_to(-lam, x.shape)),
    'poisson': (('lam',),
                lambda x, lam: x * np.log(lam) - gammaln(x + 1) - lam,
                lambda x, lam: (x / lam - 1,),
                lambda x, lam: _zero(x)),
    'negative_binomial': (('k', 'p'), _nb_logpdf, _nb_grads, lambda x, k, p: _zero(x)),
    'generalized_negative_binomial': (
        ('mu', 'alpha'),
        lambda x, mu, alpha: _nb_logpdf(x, *_gnb_params(mu, alpha)),
        _gnb_grads,
        lambda x, mu, alpha: _zero(x)),
}


class _Pdf(Operator):
    """Density of ``sample`` under element-wise parameter arrays."""
    params = (Param('is_log', parse_bool, False, 'Return the log-density.'),)
    distribution = None
    vector = False          # dirichlet: samples and parameters are vectors (last axis)

    def list_arguments(self):
        return ['sample'] + list(self._names())

    def _names(self):
        return _PDFS[self.distribution][0] if not self.vector else ('alpha',)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shapes = list(in_shapes)
        if any(s is None for s in shapes):
            return shapes, list(out_shapes), []
        sample = tuple(shapes[0])
        param = shapes[1]
        for s in shapes[2:]:
            param = unify(param, s)
        if len(param) > len(sample):
            raise ShapeError('%s: dimension of input samples (%d) must be at least dimension '
                             'of distribution parameters (%d)' % (self.name, len(sample),
                                                                   len(param)))
        lead = sample[:len(param)]
        if self.vector:
            lead = lead[:-1] + sample[-1:]
        shapes[1:] = [unify(s, lead) for s in shapes[1:]]
        if self.vector:
            out = (1,) if len(sample) == 1 else sample[:-1]
        else:
            out = sample
        return shapes, [unify(out, out_shapes[0])], []

    def _expand(self, x, param):
        """``param`` reshaped to broadcast against the sample ``x``."""
        if self.vector:
            return param.reshape(param.shape[:-1] + (1,) * (x.ndim - param.ndim)
                                 + param.shape[-1:])
        return param.reshape(param.shape + (1,) * (x.ndim - param.ndim))

    def _logpdf(self, x, params):
        if self.vector:
            alpha = params[0]
            return (gammaln(alpha.sum(-1)) - gammaln(alpha).sum(-1)
                    + ((alpha - 1) * np.log(x)).sum(-1))
        return _PDFS[self.distribution][1](x, *params)

    def _inputs(self, in_data):
        x = in_data[0].astype(np.float64)
        return x, [self._expand(x, p.astype(np.float64)) for p in in_data[1:]]

    def forward(self, is_train, req, in_data, out_data, aux):
        x, params = self._inputs(in_data)
        log = self._logpdf(x, params)
        value = log if self.is_log else np.exp(log)
        store_from(out_data[0], req[0], value.reshape(out_data[0].shape).astype(
            out_data[0].dtype))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, params = self._inputs(in_data)
        out = out_data[0].astype(np.float64)
        head = out_grad[0].astype(np.float64)
        scaling = head if self.is_log else head * out
        if self.vector:
            alpha = params[0]
            total = alpha.sum(-1, keepdims=True)
            scaling = scaling.reshape(x.shape[:-1] + (1,))
            d_params = [digamma(total) - digamma(alpha) + np.log(x)]
            d_x = (alpha - 1) / x
        else:
            scaling = scaling.reshape(x.shape)
            _, _, grads, grad_x = _PDFS[self.distribution]
            d_params = grads(x, *params)
            d_x = grad_x(x, *params)
        store_from(in_grad[0], req[0], (scaling * d_x).astype(in_grad[0].dtype))
        for grad, r, d, given in zip(in_grad[1:], req[1:], d_params, in_data[1:]):
            if r == 'null':
                continue
            full = scaling * d
            if self.vector:
                extra = tuple(range(given.ndim - 1, x.ndim - 1))
            else:
                extra = tuple(range(given.ndim, x.ndim))
            store_from(grad, r, full.sum(axis=extra).reshape(given.shape).astype(grad.dtype))


def _register(distr, vector=False):
    register(type('_random_pdf_' + distr, (_Pdf,), {
        'name': '_random_pdf_' + distr, 'aliases': ('random_pdf_' + distr,),
        'distribution': distr, 'vector': vector,
        '__doc__': 'Density (or log-density) of ``sample`` under the %s distribution with '
                   'parameters %s (arrays matching the leading dimensions of sample).'
                   % (distr.replace('_', ' '),
                      'alpha' if vector else ', '.join(_PDFS[distr][0]))}))


for _distr in _PDFS:
    _register(_distr)
_register('dirichlet', vector=True)
