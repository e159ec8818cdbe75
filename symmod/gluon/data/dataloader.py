"""DataLoader: mini-batches from a Dataset, in the order a BatchSampler gives.

With ``num_workers > 0`` the batches are assembled by a pool of *threads*, whatever
``thread_pool`` says: symmod never forks worker processes (MXNet's process workers
exist to escape its engine and to share memory, neither of which symmod needs, and
numpy releases the GIL in the heavy parts). Batches come out in the same order and
with the same contents as with ``num_workers=0``.
"""
import multiprocessing
from multiprocessing.pool import ThreadPool

import numpy as np

from ... import ndarray as nd
from ...context import cpu_pinned
from . import sampler as _sampler

__all__ = ['DataLoader', 'default_batchify_fn', 'default_mp_batchify_fn']


def default_batchify_fn(data):
    """Merge a list of samples into a batch.

    NDArrays are stacked along a new first axis; tuples are merged element by element
    into a list of batches; anything else goes through ``numpy.asarray`` and becomes an
    NDArray of the same dtype.

    Parameters
    ----------
    data : list
        The samples of one batch.

    Returns
    -------
    NDArray or list of NDArray

    Examples
    --------
    >>> x, y = default_batchify_fn([(mx.nd.ones((2,)), 0), (mx.nd.zeros((2,)), 1)])
    >>> x.shape, y.asnumpy()
    ((2, 2), array([0, 1]))
    """
    if isinstance(data[0], nd.NDArray):
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype)


# MXNet's worker processes stack into shared memory; symmod's worker threads do not need to
default_mp_batchify_fn = default_batchify_fn


def _as_in_context(data, ctx):
    """``data`` (an NDArray or nested lists of them) copied to ``ctx``."""
    if isinstance(data, nd.NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(item, ctx) for item in data]
    return data


def _thread_worker_fn(samples, batchify_fn, dataset):
    """One batch: read the samples at the given indices and merge them."""
    return batchify_fn([dataset[i] for i in samples])


class _MultiWorkerIter:
    """Batches computed by a thread pool, ``prefetch`` ahead, handed out in order."""

    def __init__(self, worker_pool, batchify_fn, batch_sampler, dataset, pin_memory=False,
                 pin_device_id=0, prefetch=0, timeout=120):
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._timeout = timeout
        self._pending = {}
        self._received = 0
        self._sent = 0
        self._iter = iter(batch_sampler)
        for _ in range(prefetch):
            self._push_next()

    def __len__(self):
        return len(self._batch_sampler)

    def _push_next(self):
        """Give the next batch of indices to the pool."""
        indices = next(self._iter, None)
        if indices is None:
            return
        self._pending[self._sent] = self._worker_pool.apply_async(
            _thread_worker_fn, (indices, self._batchify_fn, self._dataset))
        self._sent += 1

    def __next__(self):
        self._push_next()
        if self._received == self._sent:
            assert not self._pending, 'Data buffer should be empty at this moment'
            raise StopIteration
        result = self._pending.pop(self._received)
        try:
            batch = result.get(self._timeout)
        except multiprocessing.TimeoutError:
            raise multiprocessing.TimeoutError(
                'Worker timed out after %s seconds. This might be caused by a slow '
                'transform: increase `timeout` to allow slower data loading in each worker.'
                % self._timeout) from None
        if self._pin_memory:
            batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
        self._received += 1
        return batch

    next = __next__

    def __iter__(self):
        return self


class DataLoader:
    """Load mini-batches from a dataset.

    Parameters
    ----------
    dataset : Dataset
        Where the samples come from (numpy arrays and NDArrays work too).
    batch_size : int
        Samples per batch (required unless ``batch_sampler`` is given).
    shuffle : bool, default False
        Visit the samples in a new random order every epoch (``numpy.random``).
    sampler : Sampler
        The order of the samples; not together with ``shuffle``.
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        What to do with an incomplete last batch (see :class:`BatchSampler`).
    batch_sampler : Sampler
        Yields whole batches of indices; not together with ``batch_size``,
        ``shuffle``, ``sampler`` or ``last_batch``.
    batchify_fn : callable
        Merges a list of samples into a batch; by default :func:`default_batchify_fn`.
    num_workers : int, default 0
        Threads that read and merge batches ahead of time (0: in the calling thread).
        symmod always uses threads, never processes; the batches are the same.
    pin_memory : bool, default False
        Copy every batch to ``cpu_pinned(pin_device_id)``.
    pin_device_id : int, default 0
    prefetch : int, default ``2 * num_workers``
        How many batches the workers may prepare ahead.
    thread_pool : bool, default False
        Accepted for compatibility: the workers are threads either way.
    timeout : int, default 120
        Seconds to wait for a worker's batch before giving up.
    auto_reload : bool, default False
        Start preparing the next epoch's batches as soon as one epoch ends (and now).

    Examples
    --------
    >>> data = mx.gluon.data.ArrayDataset(mx.nd.arange(10).reshape((5, 2)), [0, 1, 2, 3, 4])
    >>> loader = mx.gluon.data.DataLoader(data, batch_size=2, last_batch='discard')
    >>> [(x.shape, y.asnumpy().tolist()) for x, y in loader]
    [((2, 2), [0, 1]), ((2, 2), [2, 3])]
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None,
                 num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        assert timeout > 0, 'timeout must be positive, given {}'.format(timeout)

        if batch_sampler is None:
            if batch_size is None:
                raise ValueError('batch_size must be specified unless batch_sampler is '
                                 'specified')
            if sampler is None:
                if shuffle:
                    sampler = _sampler.RandomSampler(len(dataset))
                else:
                    sampler = _sampler.SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError('shuffle must not be specified if sampler is specified')
            batch_sampler = _sampler.BatchSampler(sampler, batch_size,
                                                  last_batch if last_batch else 'keep')
        elif (batch_size is not None or shuffle or sampler is not None
              or last_batch is not None):
            raise ValueError('batch_size, shuffle, sampler and last_batch must not be '
                             'specified if batch_sampler is specified.')

        self._batch_sampler = batch_sampler
        self._num_workers = num_workers if num_workers >= 0 else 0
        self._prefetch = max(0, int(prefetch) if prefetch is not None
                             else 2 * self._num_workers)
        self._worker_pool = ThreadPool(self._num_workers) if self._num_workers > 0 else None
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        self.auto_reload = auto_reload
        self._iter = None
        if self.auto_reload:
            self.refresh()

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        batches, self._iter = self._iter, None     # an epoch's iterator is used once
        yield from batches
        if self._iter is None and self.auto_reload:
            self.refresh()

    def _same_thread_iter(self):
        for indices in self._batch_sampler:
            batch = self._batchify_fn([self._dataset[i] for i in indices])
            if self._pin_memory:
                batch = _as_in_context(batch, cpu_pinned(self._pin_device_id))
            yield batch

    def _prefetch_iter(self):
        if self._num_workers == 0:
            return self._same_thread_iter()
        return _MultiWorkerIter(self._worker_pool, self._batchify_fn, self._batch_sampler,
                                self._dataset, pin_memory=self._pin_memory,
                                pin_device_id=self._pin_device_id, prefetch=self._prefetch,
                                timeout=self._timeout)

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, '_worker_pool', None)
        if pool is not None:
            pool.terminate()

    def refresh(self):
        """Start a new epoch's iterator now (workers begin prefetching)."""
        self._iter = self._prefetch_iter()

    def clean(self):
        """Drop the prepared iterator; the next ``iter()`` starts a fresh one."""
        self._iter = None
