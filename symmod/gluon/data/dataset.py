"""Datasets: indexable collections of samples, and their lazy views.

A dataset has ``__getitem__`` (the i-th sample) and ``__len__``. ``transform``,
``filter``, ``shard``, ``take`` and ``sample`` return new datasets that read the
original one on demand, as in MXNet 1.9.1.
"""
import os
import threading

from ...base import MXNetError
from ... import ndarray, recordio
from .sampler import Sampler, SequentialSampler, FilterSampler

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset', 'RecordFileDataset']


class Dataset:
    """Base class of datasets: define ``__getitem__`` and ``__len__``.

    numpy arrays and NDArrays can be used directly wherever a dataset is expected.
    """

    def __getitem__(self, idx):
        raise TypeError('%s must define __getitem__' % type(self).__name__)

    def __len__(self):
        raise TypeError('%s must define __len__' % type(self).__name__)

    def filter(self, fn):
        """A dataset of the samples for which ``fn(sample)`` is true.

        The whole dataset is read once to find them; a lazily transformed dataset is
        transformed again when a kept sample is read later.

        Parameters
        ----------
        fn : callable
            Takes a sample and returns a bool.

        Returns
        -------
        Dataset
        """
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """The ``index``-th of ``num_shards`` contiguous, nearly equal parts.

        The first ``len(self) % num_shards`` shards hold one sample more. Shard before
        shuffling so that every worker of a distributed job sees its own samples.

        Parameters
        ----------
        num_shards : int
            How many parts.
        index : int
            Which part, from 0.

        Returns
        -------
        Dataset

        Examples
        --------
        >>> data = mx.gluon.data.SimpleDataset(list(range(10)))
        >>> list(data.shard(3, 0)), list(data.shard(3, 2))
        ([0, 1, 2, 3], [7, 8, 9])
        """
        assert index < num_shards, 'Shard index of out bound: %d out of %d' % (index, num_shards)
        assert num_shards > 0, 'Number of shards must be greater than 0'
        assert index >= 0, 'Index must be non-negative'
        size, rest = divmod(len(self), num_shards)
        start = size * index + min(index, rest)
        end = start + size + (index < rest)
        return _SampledDataset(self, SequentialSampler(end - start, start))

    def take(self, count):
        """The first ``count`` samples (all of them if ``count`` is None or too large).

        Parameters
        ----------
        count : int or None

        Returns
        -------
        Dataset
        """
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` yields (drawn once, now).

        Parameters
        ----------
        sampler : Sampler

        Returns
        -------
        Dataset
        """
        if not isinstance(sampler, Sampler):
            raise TypeError('Invalid sampler type: %s. Expected gluon.data.Sampler instead.'
                            % type(sampler))
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """A dataset of ``fn(sample)`` (``fn(*sample)`` when samples are tuples).

        Parameters
        ----------
        fn : callable
            The transformation.
        lazy : bool, default True
            Transform each sample when it is read; False transforms all samples now
            (then a random ``fn`` gives the same result every epoch).

        Returns
        -------
        Dataset

        Examples
        --------
        >>> data = mx.gluon.data.ArrayDataset([1, 2], [10, 20])
        >>> data.transform(lambda x, y: (x * 2, y))[1]
        (4, 20)
        """
        transformed = _LazyTransformDataset(self, fn)
        if lazy:
            return transformed
        return SimpleDataset([sample for sample in transformed])

    def transform_first(self, fn, lazy=True):
        """Like :meth:`transform`, but ``fn`` only sees (and replaces) a sample's first
        element; labels pass through unchanged.

        Parameters
        ----------
        fn : callable
        lazy : bool, default True

        Returns
        -------
        Dataset
        """
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset over anything with ``len()`` and ``[]`` (a list, an array).

    Parameters
    ----------
    data : sequence
    """

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    """``fn`` applied to each sample as it is read (tuples are unpacked into ``fn``)."""

    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure:
    """Apply ``fn`` to the first element only (a class, so that it can be pickled)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices ``sampler`` yields."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Several equally long dataset-like objects side by side.

    Sample ``i`` is ``(x1[i], x2[i], ...)``, or ``x1[i]`` when only one is given.
    One-dimensional NDArrays are turned into numpy arrays (as MXNet does), so their
    elements come out as numpy scalars.

    Parameters
    ----------
    *args : datasets, lists, numpy arrays or NDArrays

    Examples
    --------
    >>> data = mx.gluon.data.ArrayDataset(mx.nd.ones((4, 2)), [0, 1, 0, 1])
    >>> x, y = data[3]
    >>> x.shape, y
    ((2,), 1)
    """

    def __init__(self, *args):
        assert len(args) > 0, 'Needs at least 1 arrays'
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            assert len(data) == self._length, \
                'All arrays must have the same length; array[0] has length %d ' \
                'while array[%d] has %d.' % (self._length, i + 1, len(data))
            if isinstance(data, ndarray.NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The raw records of a RecordIO file (``.rec``), read through its ``.idx`` index.

    Sample ``i`` is the bytes of the record with the ``i``-th key of the index.

    Parameters
    ----------
    filename : str
        Path of the ``.rec`` file; the index is the same path ending in ``.idx``.
    """

    def __init__(self, filename):
        self.idx_file = os.path.splitext(filename)[0] + '.idx'
        self.filename = filename
        if not os.path.isfile(self.idx_file):
            raise MXNetError('RecordFileDataset: the index file "%s" of "%s" does not exist'
                             % (self.idx_file, filename))
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, 'r')
        # seek + read share one file handle; DataLoader workers are threads
        self._lock = threading.Lock()

    def __getitem__(self, idx):
        with self._lock:
            return self._record.read_idx(self._record.keys[idx])

    def __getstate__(self):
        state = dict(self.__dict__)
        del state['_lock']
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self._lock = threading.Lock()

    def __len__(self):
        return len(self._record.keys)
