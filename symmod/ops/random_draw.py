"""Random sampling operators, so that sampling works inside symbolic graphs:

- ``_random_<distr>`` (aliases ``random_<distr>``, and ``uniform``/``normal``): samples of
  ``shape`` with scalar parameters;
- ``_random_<distr>_like``: samples of the shape of the input;
- ``_sample_<distr>`` (alias ``sample_<distr>``): ``shape`` samples for every element of
  the parameter arrays given as inputs;
- ``_sample_multinomial``, ``_random_randint``, ``_shuffle``, ``_sample_unique_zipfian``.

Every draw comes from the one generator ``mx.random.seed`` seeds, at forward time, so a
bound graph run after ``mx.random.seed(n)`` repeats its samples. The samplers are not
differentiable: their inputs get zero gradients, as in MXNet.
"""
import math

import numpy as np

from ..base import MXNetError, parse_bool, parse_dtype, parse_float, parse_int, parse_tuple
from .common import int_shape, store_cast, store_from, zero_grad
from .registry import Operator, Param, ShapeError, register, unify

__all__ = ['DISTRIBUTIONS']


def _rng():
    from .. import random
    return random.get_rng()


def _gen_neg_binomial(rng, mu, alpha, size):
    """Negative binomial with mean ``mu`` and dispersion ``alpha`` (a gamma-Poisson
    mixture; ``alpha`` 0 is Poisson(``mu``))."""
    mu = np.broadcast_to(np.asarray(mu, np.float64), size)
    alpha = np.broadcast_to(np.asarray(alpha, np.float64), size)
    rate = np.where(alpha > 0, rng.gamma(1.0 / np.maximum(alpha, 1e-300), mu * alpha), mu)
    return rng.poisson(rate)


# distribution -> (parameters with their defaults for the scalar form, the names MXNet gives
# the inputs of the array form, draw(rng, *parameters, size))
DISTRIBUTIONS = {
    'uniform': ((('low', 0.0), ('high', 1.0)), ('low', 'high'),
                lambda rng, low, high, size: rng.uniform(low, high, size)),
    'normal': ((('loc', 0.0), ('scale', 1.0)), ('mu', 'sigma'),
               lambda rng, loc, scale, size: rng.normal(loc, scale, size)),
    'gamma': ((('alpha', 1.0), ('beta', 1.0)), ('alpha', 'beta'),
              lambda rng, alpha, beta, size: rng.gamma(alpha, beta, size)),
    'exponential': ((('lam', 1.0),), ('lam',),
                    lambda rng, lam, size: rng.exponential(1.0 / np.asarray(lam, np.float64),
                                                           size)),
    'poisson': ((('lam', 1.0),), ('lam',), lambda rng, lam, size: rng.poisson(lam, size)),
    'negative_binomial': ((('k', 1), ('p', 1.0)), ('k', 'p'),
                          lambda rng, k, p, size: rng.negative_binomial(k, p, size)),
    'generalized_negative_binomial': ((('mu', 1.0), ('alpha', 1.0)), ('mu', 'alpha'),
                                      _gen_neg_binomial),
}
_FLOATS = ('float16', 'float32', 'float64')


def _parse_out_dtype(value):
    dtype = parse_dtype(value)
    if dtype is not None and dtype.name not in _FLOATS:
        raise ValueError('expected one of float16, float32, float64 or None, found %r' % value)
    return dtype


def _sample_type(opname, given, inferred, default):
    """MXNet's rule: the inferred output dtype, checked against ``dtype``, else ``dtype``,
    else the default."""
    if inferred is not None:
        if given is not None and np.dtype(inferred) != np.dtype(given):
            raise MXNetError('%s: output type %s does not match the requested type %s'
                             % (opname, np.dtype(inferred).name, np.dtype(given).name))
        return np.dtype(inferred)
    return np.dtype(given if given is not None else default)


def _checked_draw(opname, draw, params, shape):
    from ..ndarray.pending import ValueDependentError
    """Samples from ``draw``; invalid parameters (numpy's ValueError: a negative scale)
    are an MXNetError naming the operator, as MXNet's parameter checks are."""
    try:
        return np.asarray(draw(_rng(), *params, size=shape))
    except ValueError as err:
        raise ValueDependentError('%s: invalid distribution parameters: %s'
                                  % (opname, err)) from None


class _Sampler(Operator):
    backward_uses_inputs = False
    backward_uses_outputs = False

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        for grad, r in zip(in_grad, req):
            zero_grad(grad, r)


class _RandomScalar(_Sampler):
    """``_random_<distr>``: samples of ``shape`` with scalar parameters."""
    distribution = None
    default_dtype = 'float32'

    def list_arguments(self):
        return []

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = tuple(self.shape)
        if not shape:                       # legacy rules: () is an unknown shape
            return [], [out_shapes[0]], []
        try:
            return [], [unify(shape, out_shapes[0])], []
        except ShapeError:
            raise ShapeError('%s: output shape %s does not match shape=%s'
                             % (self.name, tuple(out_shapes[0]), shape)) from None

    def infer_type(self, in_types, out_types, aux_types):
        return [], [_sample_type(self.name, self.dtype, out_types[0], self.default_dtype)], []

    def _values(self):
        return [getattr(self, name) for name, _ in DISTRIBUTIONS[self.distribution][0]]

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        draw = DISTRIBUTIONS[self.distribution][2]
        store_cast(out, req[0], _checked_draw(self.name, draw, self._values(), out.shape))


class _RandomLike(_RandomScalar):
    """``_random_<distr>_like``: samples of the shape (and dtype) of the input ``data``."""

    def list_arguments(self):
        return ['data']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = unify(in_shapes[0], out_shapes[0])
        return [shape], [shape], []

    def infer_type(self, in_types, out_types, aux_types):
        dtype = in_types[0] if in_types[0] is not None else out_types[0]
        return [dtype], [dtype], []


class _SampleArrays(_Sampler):
    """``_sample_<distr>``: ``shape`` samples per element of the parameter inputs."""
    distribution = None
    params = (Param('shape', parse_tuple, (), 'Samples drawn per parameter set.'),
              Param('dtype', _parse_out_dtype, None, 'Output dtype (default float32).'))

    def check_params(self):
        if any(d <= 0 for d in self.shape):
            raise MXNetError('%s: shape parameter must be non-zero within each dimension, '
                             'found %s' % (self.name, tuple(self.shape)))

    def list_arguments(self):
        return list(DISTRIBUTIONS[self.distribution][1])

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        sample = tuple(self.shape)
        out = int_shape(out_shapes[0])
        batch = out[:len(out) - len(sample)] if out is not None and len(out) > len(sample) \
            else None
        for s in in_shapes:
            batch = unify(batch, s)
        outs = [out]
        if batch is not None:
            outs = [unify(tuple(batch) + sample, out)]
        return [batch] * len(in_shapes), outs, []

    def infer_type(self, in_types, out_types, aux_types):
        known = [t for t in in_types if t is not None]
        dtype = known[0] if known else None
        return ([dtype] * len(in_types),
                [_sample_type(self.name, self.dtype, out_types[0], 'float32')], [])

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        extra = (1,) * len(self.shape)
        params = [p.astype(np.float64).reshape(p.shape + extra) for p in in_data]
        draw = DISTRIBUTIONS[self.distribution][2]
        store_cast(out, req[0], _checked_draw(self.name, draw, params, out.shape))


def _register_distribution(distr):
    scalars, _, _ = DISTRIBUTIONS[distr]
    scalar_params = tuple(Param(name, parse_int if name == 'k' else parse_float, default)
                          for name, default in scalars)
    shaped = (Param('shape', parse_tuple, (), 'Shape of the output.'),
              Param('ctx', str, '', 'Context of the output (imperative calls only).'),
              Param('dtype', _parse_out_dtype, None, 'Output dtype (default float32).'))
    aliases = ('random_' + distr,) + ((distr,) if distr in ('uniform', 'normal') else ())
    register(type('_random_' + distr, (_RandomScalar,), {
        'name': '_random_' + distr, 'aliases': aliases, 'distribution': distr,
        'params': scalar_params + shaped,
        '__doc__': 'Samples of ``shape`` from the %s distribution (parameters %s).'
                   % (distr.replace('_', ' '), ', '.join(n for n, _ in scalars))}))
    register(type('_random_%s_like' % distr, (_RandomLike,), {
        'name': '_random_%s_like' % distr, 'distribution': distr, 'params': scalar_params,
        '__doc__': 'Samples of the shape of ``data`` from the %s distribution.'
                   % distr.replace('_', ' ')}))
    register(type('_sample_' + distr, (_SampleArrays,), {
        'name': '_sample_' + distr, 'aliases': ('sample_' + distr,), 'distribution': distr,
        '__doc__': '``shape`` samples from the %s distribution for every element of the '
                   'parameter arrays.' % distr.replace('_', ' ')}))


for _distr in DISTRIBUTIONS:
    _register_distribution(_distr)


@register
class _random_randint(_RandomScalar):
    """Integers drawn uniformly from [low, high), of ``shape``."""
    name = '_random_randint'
    aliases = ('random_randint',)
    default_dtype = 'int32'
    params = (Param('low', parse_int, doc='Lower bound (included).'),
              Param('high', parse_int, doc='Upper bound (excluded).'),
              Param('shape', parse_tuple, (), 'Shape of the output.'),
              Param('ctx', str, '', 'Context of the output (imperative calls only).'),
              Param('dtype', parse_dtype, None, 'int32 (default) or int64.'))

    def check_params(self):
        if self.dtype is not None and self.dtype.name not in ('int32', 'int64'):
            raise MXNetError('_random_randint: output type must be int32 or int64, found %s'
                             % self.dtype.name)
        if self.low >= self.high:
            raise MXNetError('_random_randint: low (%d) must be below high (%d)'
                             % (self.low, self.high))

    def forward(self, is_train, req, in_data, out_data, aux):
        out = out_data[0]
        store_cast(out, req[0], _rng().integers(self.low, self.high, out.shape))


@register
class _sample_multinomial(_Sampler):
    """``shape`` category indices drawn from each distribution in the last axis of
    ``data``; with ``get_prob`` also the log-probability of each draw (differentiable with
    respect to ``data``)."""
    name = '_sample_multinomial'
    aliases = ('sample_multinomial',)
    params = (Param('shape', parse_tuple, (), 'Samples drawn per distribution.'),
              Param('get_prob', parse_bool, False, 'Also return the log-probabilities.'),
              Param('dtype', parse_dtype, np.dtype(np.int32), 'Dtype of the indices.'))
    backward_uses_outputs = True

    def list_outputs(self):
        return ['output', 'prob'] if self.get_prob else ['output']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        data = int_shape(in_shapes[0])
        if data is None:
            return [None], list(out_shapes), []
        if not data:
            raise ShapeError('_sample_multinomial: data must have at least one axis')
        out = data[:-1] + tuple(self.shape)
        out = out or (1,)
        return [data], [unify(out, s) for s in out_shapes], []

    def infer_type(self, in_types, out_types, aux_types):
        outs = [self.dtype] + ([in_types[0]] if self.get_prob else [])
        return list(in_types), outs, []

    def forward(self, is_train, req, in_data, out_data, aux):
        probs = in_data[0].astype(np.float64)
        flat = probs.reshape(-1, probs.shape[-1])
        count = int(np.prod(self.shape)) if self.shape else 1
        cumulative = np.cumsum(flat, axis=1)
        draws = _rng().uniform(size=(flat.shape[0], count)) * cumulative[:, -1:]
        picks = np.empty((flat.shape[0], count), np.int64)
        for row in range(flat.shape[0]):
            picks[row] = np.searchsorted(cumulative[row], draws[row], side='right')
        picks = np.minimum(picks, flat.shape[1] - 1)
        store_cast(out_data[0], req[0], picks.reshape(out_data[0].shape))
        if self.get_prob:
            chosen = np.take_along_axis(flat, picks, axis=1)
            with np.errstate(divide='ignore'):
                store_cast(out_data[1], req[1], np.log(chosen).reshape(out_data[1].shape))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if req[0] == 'null':
            return
        grad = np.zeros(in_data[0].shape, np.float64)
        if self.get_prob:
            flat_grad = grad.reshape(-1, grad.shape[-1])
            flat_data = in_data[0].reshape(-1, grad.shape[-1]).astype(np.float64)
            rows = flat_grad.shape[0]
            picks = out_data[0].reshape(rows, -1).astype(np.int64)
            heads = out_grad[1].reshape(rows, -1).astype(np.float64)
            for row in range(rows):
                np.add.at(flat_grad[row], picks[row],
                          heads[row] / flat_data[row, picks[row]])
        store_from(in_grad[0], req[0], grad.astype(in_grad[0].dtype))


@register
class _shuffle(_Sampler):
    """``data`` with its first axis randomly permuted."""
    name = '_shuffle'
    aliases = ('shuffle',)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = unify(in_shapes[0], out_shapes[0])
        return [shape], [shape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        order = _rng().permutation(x.shape[0]) if x.ndim else None
        store_from(out_data[0], req[0], x if order is None else x[order])


@register
class _sample_unique_zipfian(_Sampler):
    """``shape = (batch, num_sampled)`` distinct integers of [0, range_max) per row, drawn
    from the approximately log-uniform (Zipfian) distribution
    ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``, and the number of draws each
    row needed."""
    name = '_sample_unique_zipfian'
    params = (Param('range_max', parse_int, doc='Number of classes.'),
              Param('shape', parse_tuple, (), '(batch_size, num_sampled).'))

    def check_params(self):
        if len(self.shape) != 2:
            raise MXNetError('_sample_unique_zipfian: shape must be (batch_size, num_sampled), '
                             'found %s' % (tuple(self.shape),))
        if self.shape[1] > self.range_max:
            raise MXNetError('_sample_unique_zipfian: num_sampled (%d) must not exceed '
                             'range_max (%d)' % (self.shape[1], self.range_max))

    def list_arguments(self):
        return []

    def list_outputs(self):
        return ['output', 'num_tries']

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        return [], [tuple(self.shape), (self.shape[0],)], []

    def infer_type(self, in_types, out_types, aux_types):
        return [], [np.dtype(np.int64), np.dtype(np.int64)], []

    def forward(self, is_train, req, in_data, out_data, aux):
        batch, wanted = self.shape
        log_range = math.log(self.range_max)
        rng = _rng()
        samples = np.empty((batch, wanted), np.int64)
        tries = np.empty(batch, np.int64)
        for row in range(batch):
            seen, picked, count = set(), [], 0
            while len(picked) < wanted:
                block = max(wanted - len(picked), 16)
                values = np.rint(np.exp(rng.uniform(0, log_range, block))).astype(np.int64) - 1
                for value in values:
                    count += 1
                    value = int(value) % self.range_max
                    if value not in seen:
                        seen.add(value)
                        picked.append(value)
                        if len(picked) == wanted:
                            break
            samples[row] = picked
            tries[row] = count
        store_from(out_data[0], req[0], samples)
        store_from(out_data[1], req[1], tries)

