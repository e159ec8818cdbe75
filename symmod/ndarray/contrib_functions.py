"""``mx.nd.contrib`` functions written over operators: isinf, isfinite, isnan and
rand_zipfian (sampling candidate classes from the log-uniform distribution)."""
import math

import numpy as np

from .ndarray import NDArray, _op

__all__ = ['isinf', 'isfinite', 'isnan', 'rand_zipfian']


def isinf(data):
    """1 where ``data`` is +inf or -inf, else 0 (same dtype as ``data``)."""
    return data.abs() == np.inf


def isfinite(data):
    """1 where ``data`` is neither infinite nor NaN, else 0."""
    return _op('broadcast_logical_and')(data.abs() != np.inf, data == data)


def isnan(data):
    """1 where ``data`` is NaN, else 0."""
    return data != data


def rand_zipfian(true_classes, num_sampled, range_max, ctx=None):
    """Draw ``num_sampled`` candidate classes (with replacement) from the approximately
    log-uniform distribution ``P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)``.

    Returns
    -------
    sampled_classes : NDArray (int64)
    expected_count_true : NDArray (float64)
        ``num_sampled`` times the probability of each of ``true_classes``.
    expected_count_sampled : NDArray (float64)
        ``num_sampled`` times the probability of each sampled class.
    """
    if not isinstance(true_classes, NDArray):
        raise TypeError('true_classes must be an NDArray, found %s' % type(true_classes).__name__)
    ctx = ctx or true_classes.context
    log_range = math.log(range_max + 1)
    draws = _op('_random_uniform')(low=0, high=log_range, shape=(num_sampled,),
                                   dtype='float64').as_in_context(ctx)
    sampled = (draws.exp() - 1).astype('int64') % range_max
    true = true_classes.as_in_context(ctx).astype('float64')
    expected_true = ((true + 2.0) / (true + 1.0)).log() / log_range * num_sampled
    sampled64 = sampled.astype('float64')
    expected_sampled = ((sampled64 + 2.0) / (sampled64 + 1.0)).log() / log_range * num_sampled
    return sampled, expected_true, expected_sampled
