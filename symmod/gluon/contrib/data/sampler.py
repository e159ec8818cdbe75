"""IntervalSampler: indices taken at a fixed interval."""
from ...data import sampler

__all__ = ['IntervalSampler']


class IntervalSampler(sampler.Sampler):
    """Samples ``i, i + interval, i + 2 * interval, ...`` for ``i = 0`` and, with
    ``rollover``, for every start ``i < interval`` in turn (so every index once).

    Parameters
    ----------
    length : int
        Number of indices.
    interval : int
        The step (at most ``length``).
    rollover : bool, default True
        Continue from the next start after each pass.

    Examples
    --------
    >>> list(IntervalSampler(6, 3))
    [0, 3, 1, 4, 2, 5]
    >>> list(IntervalSampler(6, 3, rollover=False))
    [0, 3]
    """

    def __init__(self, length, interval, rollover=True):
        assert interval <= length, \
            'Interval {} must be smaller than or equal to length {}'.format(interval, length)
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self):
        return self._length
