"""Samplers: the order in which a DataLoader visits the indices of a dataset.

A sampler is an iterable of indices with a length. ``BatchSampler`` groups another
sampler's indices into mini-batches and decides what happens to an incomplete last
batch ('keep', 'discard' or 'rollover' into the next epoch), exactly as MXNet 1.9.1.
"""
import numpy as np

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'SplitSampler', 'FilterSampler',
           'BatchSampler', 'IntervalSampler']

_LAST_BATCH_MODES = ('keep', 'discard', 'rollover')


class Sampler:
    """Base class of samplers: define ``__iter__`` (the indices) and ``__len__``."""

    def __iter__(self):
        raise TypeError('%s must define __iter__' % type(self).__name__)

    def __len__(self):
        raise TypeError('%s must define __len__' % type(self).__name__)


class SequentialSampler(Sampler):
    """The indices ``start, start + 1, ..., start + length - 1`` in order.

    Parameters
    ----------
    length : int
        How many indices.
    start : int, default 0
        The first index.

    Examples
    --------
    >>> list(mx.gluon.data.SequentialSampler(4, start=2))
    [2, 3, 4, 5]
    """

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh random permutation of ``[0, length)`` on every pass.

    The permutation comes from ``numpy.random.shuffle`` (seed it with
    ``numpy.random.seed``), as in MXNet.

    Parameters
    ----------
    length : int
        How many indices.
    """

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices)

    def __len__(self):
        return self._length


class SplitSampler(Sampler):
    """Part ``part_index`` of ``num_parts`` equal parts of ``[0, length)``, shuffled anew
    on every pass: each worker of a distributed job samples its own part (MXNet's
    distributed-training example sampler).

    Every part has ``length // num_parts`` indices (the rest, at most ``num_parts - 1``,
    is left out), so every worker runs the same number of batches.

    Parameters
    ----------
    length : int
        The number of samples of the dataset.
    num_parts : int, default 1
        How many parts (the number of workers).
    part_index : int, default 0
        Which part (the worker's rank).
    shuffle : bool, default True
        Shuffle the part (``numpy.random.shuffle``) on every pass.

    Examples
    --------
    >>> kv = mx.kv.create('dist_sync')
    >>> sampler = mx.gluon.data.SplitSampler(50000, kv.num_workers, kv.rank)
    >>> loader = mx.gluon.data.DataLoader(dataset, batch_size=64, sampler=sampler)
    """

    def __init__(self, length, num_parts=1, part_index=0, shuffle=True):
        if num_parts < 1 or not 0 <= part_index < num_parts:
            raise ValueError('SplitSampler: part_index must be in [0, num_parts), found '
                             'part_index=%d with num_parts=%d' % (part_index, num_parts))
        self._part_len = length // num_parts
        self._start = self._part_len * part_index
        self._shuffle = shuffle

    def __iter__(self):
        indices = np.arange(self._start, self._start + self._part_len)
        if self._shuffle:
            np.random.shuffle(indices)
        return iter(indices)

    def __len__(self):
        return self._part_len


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true.

    The dataset is scanned once, when the sampler is made.

    Parameters
    ----------
    fn : callable
        Takes a sample, returns a bool.
    dataset : Dataset
        The dataset to scan.
    """

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class BatchSampler(Sampler):
    """Group the indices of another sampler into mini-batches (lists of indices).

    Parameters
    ----------
    sampler : Sampler
        Where the indices come from.
    batch_size : int
        Size of a mini-batch.
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        What to do with the indices left when ``batch_size`` does not divide the
        sampler's length: 'keep' hands them out as a smaller last batch, 'discard'
        drops them, 'rollover' puts them at the front of the next pass.

    Examples
    --------
    >>> sampler = mx.gluon.data.SequentialSampler(10)
    >>> list(mx.gluon.data.BatchSampler(sampler, 3, 'keep'))
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    >>> batches = mx.gluon.data.BatchSampler(sampler, 3, 'rollover')
    >>> list(batches), list(batches)
    ([[0, 1, 2], [3, 4, 5], [6, 7, 8]], [[9, 0, 1], [2, 3, 4], [5, 6, 7]])
    """

    def __init__(self, sampler, batch_size, last_batch='keep'):
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for index in self._sampler:
            batch.append(index)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == 'keep':
                yield batch
            elif self._last_batch == 'rollover':
                self._prev = batch
            elif self._last_batch != 'discard':
                raise ValueError(_bad_mode_message(self._last_batch))

    def __len__(self):
        if self._last_batch == 'keep':
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == 'discard':
            return len(self._sampler) // self._batch_size
        if self._last_batch == 'rollover':
            return (len(self._prev) + len(self._sampler)) // self._batch_size
        raise ValueError(_bad_mode_message(self._last_batch))


def _bad_mode_message(mode):
    return ("last_batch must be one of 'keep', 'discard', or 'rollover', but got %s" % mode)


class IntervalSampler(Sampler):
    """Every ``interval``-th index of ``[0, length)``, then (with rollover) the skipped ones.

    MXNet 1.9.1 keeps this sampler in ``gluon.contrib.data``; symmod also offers it here.

    Parameters
    ----------
    length : int
        How many indices.
    interval : int
        Distance between two consecutive indices of one pass (at most ``length``).
    rollover : bool, default True
        After reaching the end, start again from the first skipped index until every
        index was visited; if False, stop after the first pass.

    Examples
    --------
    >>> list(mx.gluon.data.IntervalSampler(13, interval=3))
    [0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
    >>> list(mx.gluon.data.IntervalSampler(13, interval=3, rollover=False))
    [0, 3, 6, 9, 12]
    """

    def __init__(self, length, interval, rollover=True):
        assert interval <= length, \
            'Interval {} must be smaller than or equal to length {}'.format(interval, length)
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for offset in range(self._interval if self._rollover else 1):
            yield from range(offset, self._length, self._interval)

    def __len__(self):
        return self._length
