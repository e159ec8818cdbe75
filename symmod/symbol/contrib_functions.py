"""``mx.sym.contrib`` functions written over operators: rand_zipfian."""
import math

from .symbol import Symbol, _FUNCS

__all__ = ['rand_zipfian']


def rand_zipfian(true_classes, num_sampled, range_max):
    """Symbols of ``num_sampled`` classes drawn from the approximately log-uniform
    distribution, and the expected counts of the true and the sampled classes (see
    ``mx.nd.contrib.rand_zipfian``)."""
    if not isinstance(true_classes, Symbol):
        raise TypeError('true_classes must be a Symbol, found %s' % type(true_classes).__name__)
    log_range = math.log(range_max + 1)
    draws = _FUNCS['_random_uniform'](low=0, high=log_range, shape=(num_sampled,),
                                      dtype='float64')
    sampled = (draws.exp() - 1).astype('int64') % range_max
    true = true_classes.astype('float64')
    expected_true = ((true + 2.0) / (true + 1.0)).log() / log_range * num_sampled
    sampled64 = sampled.astype('float64')
    expected_sampled = ((sampled64 + 2.0) / (sampled64 + 1.0)).log() / log_range * num_sampled
    return sampled, expected_true, expected_sampled
