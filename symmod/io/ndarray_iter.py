"""``NDArrayIter``: mini-batches from arrays held in memory (numpy or NDArray)."""
import warnings
from collections import OrderedDict

import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray, array
from ..ndarray import device
from ..ndarray.sparse import array as sparse_array
from .desc import DataBatch, DataDesc
from .iterators import DataIter

__all__ = ['NDArrayIter']

_LAST_BATCH_HANDLES = ('pad', 'discard', 'roll_over')


def _init_data(data, allow_empty, default_name):
    """Normalise array / list / dict input to a sorted list of ``(name, NDArray)``.

    One array gets ``default_name``; a list of several gets ``_0_<name>``,
    ``_1_<name>``, ...; a dict keeps its keys. The result is sorted by name, as
    MXNet does, so ``provide_data`` follows alphabetical order.
    """
    assert (data is not None) or allow_empty, 'data must be given'
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)) or _is_plain_values(data):
        data = [data]       # a list of numbers is one array, not one input per number
    if isinstance(data, list):
        if not allow_empty:
            assert len(data) > 0, 'data must not be an empty list'
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([('_%d_%s' % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise TypeError('Input must be NDArray, numpy.ndarray, h5py.Dataset '
                        'a list of them or dict with them as values; found %s'
                        % type(data).__name__)
    assert data or allow_empty, 'data must not be empty'
    converted = {}
    for name, value in data.items():
        if isinstance(value, NDArray):
            converted[name] = value
            continue
        _check_numeric(name, value)
        try:
            converted[name] = array(value)
        except (TypeError, ValueError):
            raise TypeError("Invalid type '%s' for %s, should be NDArray, numpy.ndarray "
                            "or h5py.Dataset" % (type(value), name)) from None
    return sorted(converted.items())


def _is_plain_values(data):
    """True for a (nested) list of numbers (or strings): one array, as ``np.array`` reads
    it; a list of arrays stays a list of inputs."""
    if not isinstance(data, list) or not data:
        return False
    first = data[0]
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    return isinstance(first, (int, float, str, bytes, np.generic))


def _check_numeric(name, value):
    """TypeError naming the dtype found when an input holds strings or Python objects."""
    dtype = getattr(value, 'dtype', None)
    if dtype is None and isinstance(value, (list, tuple)):
        dtype = np.asarray(value).dtype if value else None
    if dtype is None or np.dtype(dtype).kind not in 'USOV':
        return
    kind = np.dtype(dtype).kind
    what = {'U': 'strings', 'S': 'byte strings', 'O': 'Python objects', 'V': 'records'}[kind]
    hint = '' if kind not in 'US' else (
        '. For class names as labels, map them to indices 0..K-1 first, e.g. '
        'classes, %s = np.unique(%s, return_inverse=True)' % (name, name))
    raise TypeError("Invalid type for %s: found an array of %s (dtype %s); NDArrayIter needs "
                    "numbers (an NDArray, numpy.ndarray or h5py.Dataset of a numeric dtype, "
                    "e.g. float32)%s" % (name, what, np.dtype(dtype), hint))


def _wrap(host, ctx):
    """A new NDArray on ``ctx`` that takes over the freshly made numpy array ``host``."""
    return NDArray(device.to_context(host, ctx), ctx)


def _along(axis, start, stop):
    """An index selecting ``start:stop`` on ``axis``."""
    return (slice(None),) * axis + (slice(start, stop),)


class NDArrayIter(DataIter):
    """Iterate over in-memory arrays in mini-batches.

    Parameters
    ----------
    data : array, list of arrays or dict of str to array
        The inputs (numpy arrays or NDArrays; numpy input becomes float32 like
        ``mx.nd.array``). A dict's keys become the input names; the inputs are
        listed in sorted name order.
    label : array, list of arrays or dict of str to array, optional
        The labels, given the same way.
    batch_size : int
        Examples per batch.
    shuffle : bool, optional
        Shuffle the examples at construction and at every ``reset()``. As in
        MXNet the permutation is drawn from numpy's global generator, so
        ``np.random.seed`` makes it repeatable (and gives MXNet's exact order).
    last_batch_handle : {'pad', 'discard', 'roll_over'}, optional
        What happens to the examples that do not fill a last whole batch:
        ``'pad'`` fills the batch with examples from the start of the data and
        reports the number of filler examples in ``batch.pad``; ``'discard'``
        drops them; ``'roll_over'`` keeps them and puts them at the front of
        the first batch of the next epoch (meant for training; that batch
        reports their number as ``pad``).
    data_name : str, optional
        Name of a single data array (default ``'data'``).
    label_name : str, optional
        Name of a single label array (default ``'softmax_label'``).
    layout : str, optional
        Axis names of the arrays; the position of ``'N'`` is the batch axis.

    Notes
    -----
    Batches that lie inside the data are views of the iterator's arrays (no
    copy); only padded or rolled-over batches are assembled into new arrays.
    Treat batch arrays as read-only.

    Unlike MXNet 1.9.1, every array must hold the same number of examples along
    the batch axis (MXNet fails later with an indexing error), and the batch
    axis is taken from ``layout`` for counting and shuffling too (MXNet counts
    and shuffles along axis 0 whatever the layout).

    Examples
    --------
    >>> data = np.arange(40).reshape((10, 2, 2))
    >>> labels = np.ones([10, 1])
    >>> it = mx.io.NDArrayIter(data, labels, 3, True, last_batch_handle='discard')
    >>> [batch.data[0].shape for batch in it]
    [(3, 2, 2), (3, 2, 2), (3, 2, 2)]
    >>> it.provide_data
    [DataDesc[data,(3, 2, 2),<class 'numpy.float32'>,NCHW]]
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False,
                 last_batch_handle='pad', data_name='data',
                 label_name='softmax_label', layout='NCHW'):
        super(NDArrayIter, self).__init__(batch_size)
        if last_batch_handle not in _LAST_BATCH_HANDLES:
            raise ValueError("last_batch_handle must be one of %s, found %r"
                             % (', '.join(repr(h) for h in _LAST_BATCH_HANDLES),
                                last_batch_handle))
        if int(batch_size) < 1:
            raise ValueError('batch_size must be a positive integer, found %r' % (batch_size,))
        self.layout = layout
        self._axis = max(DataDesc.get_batch_axis(layout), 0)
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        self._check_lengths()
        if any(arr.stype == 'csr' for _, arr in self.data + self.label) and \
                last_batch_handle != 'discard':
            raise NotImplementedError('`NDArrayIter` only supports ``CSRNDArray`` with '
                                      '`last_batch_handle` set to `discard`.')

        self.idx = np.arange(self.data[0][1].shape[self._axis])
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = int(batch_size)
        self.cursor = -self.batch_size
        self.num_data = self.idx.shape[0]
        self.reset()

        self.data_list = [x[1] for x in self.data] + [x[1] for x in self.label]
        self.num_source = len(self.data_list)
        # the incomplete last batch kept for the next epoch ('roll_over')
        self._cache_data = None
        self._cache_label = None

    def _check_lengths(self):
        """The first data array sets the number of examples, as in MXNet: a longer array
        contributes its first examples (MXNet's NDArrayIter accepts it, e.g. one weight
        vector for several data slices) with a warning; a shorter one is an error."""
        name0, arr0 = self.data[0]
        count = None if arr0.ndim <= self._axis else arr0.shape[self._axis]
        for sources in (self.data, self.label):
            for i, (name, arr) in enumerate(sources):
                if arr.ndim <= self._axis:
                    raise MXNetError("NDArrayIter: '%s' has shape %s, which has no batch axis "
                                     "%d (layout %r)" % (name, arr.shape, self._axis,
                                                         self.layout))
                if arr.shape[self._axis] < count:
                    raise MXNetError(
                        "NDArrayIter: every data and label array must hold at least as many "
                        "examples along the batch axis %d as '%s', which has %d (shape %s); "
                        "'%s' has %d (shape %s)" % (self._axis, name0, count, arr0.shape,
                                                    name, arr.shape[self._axis], arr.shape))
                if arr.shape[self._axis] > count:
                    warnings.warn(
                        "NDArrayIter: '%s' has %d examples along the batch axis but '%s' has "
                        "%d: only the first %d of '%s' are used" % (
                            name, arr.shape[self._axis], name0, count, count, name),
                        stacklevel=3)
                    sources[i] = (name, NDArray(arr.handle[_along(self._axis, 0, count)],
                                                arr.context))

    def _descs(self, sources):
        descs = []
        for name, arr in sources:
            shape = list(arr.shape)
            shape[self._axis] = self.batch_size
            descs.append(DataDesc(name, tuple(shape), arr.dtype, layout=self.layout))
        return descs

    @property
    def provide_data(self):
        """Name, shape (with ``batch_size`` on the batch axis) and dtype of each input."""
        return self._descs(self.data)

    @property
    def provide_label(self):
        """Name, shape and dtype of each label."""
        return self._descs(self.label)

    def hard_reset(self):
        """Start over from the first example, dropping any rolled-over examples."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Start the next epoch (reshuffling when ``shuffle``)."""
        if self.shuffle:
            self._shuffle_data()
        if self.last_batch_handle == 'roll_over' and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            # the cached tail of the last epoch fills the front of the first batch
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        """Move the cursor one batch on; return whether it is still inside the data."""
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        """The next batch; an incomplete last batch ends the epoch (and is cached)."""
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self._axis] != self.batch_size:
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    # ---- assembling batches ------------------------------------------------------
    def _getdata(self, sources, start=None, end=None):
        """Examples ``start:end`` of every source, as NDArray views."""
        assert start is not None or end is not None, 'should at least specify start or end'
        if not sources:
            return []       # no labels (prediction): nothing to slice
        start = 0 if start is None else start
        if end is None:
            end = self.num_data
        key = _along(self._axis, start, end)
        return [arr[start:end] if arr.stype == 'csr' else NDArray(arr._data[key], arr._ctx)
                for _, arr in sources]

    def _join(self, parts_per_source):
        """Concatenate, per source, a list of NDArrays along the batch axis."""
        joined = []
        for parts in zip(*parts_per_source):
            host = np.concatenate([np.asarray(p) for p in parts], axis=self._axis)
            joined.append(_wrap(host, parts[0].context))
        return joined

    def _concat(self, first, second):
        if not first or not second:
            return first if first else second
        assert len(first) == len(second), 'data source should contain the same size'
        return self._join([first, second])

    def _batchify(self, sources):
        assert self.cursor < self.num_data, 'DataIter needs reset.'
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            # first batch of an epoch after a roll-over: cached tail + head of the data
            assert self._cache_data is not None or self._cache_label is not None, \
                'next epoch should have cached data'
            cached = self._cache_data if self._cache_data is not None else self._cache_label
            head = self._getdata(sources, end=self.cursor + self.batch_size)
            if self._cache_data is not None:
                self._cache_data = None
            else:
                self._cache_label = None
            return self._concat(cached, head)
        if self.last_batch_handle == 'pad' and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            tail = self._getdata(sources, start=self.cursor)
            # the filler wraps around the data as many times as needed
            repeats, rest = divmod(pad, self.num_data)
            fill = [self._getdata(sources, end=self.num_data)] * repeats
            if rest:
                fill.append(self._getdata(sources, end=rest))
            return self._join([tail] + fill)
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._getdata(sources, self.cursor, end)

    def getdata(self):
        """The data arrays of the current batch."""
        return self._batchify(self.data)

    def getlabel(self):
        """The label arrays of the current batch."""
        return self._batchify(self.label)

    def getpad(self):
        """The number of filler examples in the current batch."""
        if self.last_batch_handle == 'pad' and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self):
        """Permute every source the same way (numpy's global generator, as MXNet)."""
        np.random.shuffle(self.idx)
        self.data = self._take(self.data)
        self.label = self._take(self.label)

    def _take(self, sources):
        return [(name, sparse_array(arr.asscipy()[self.idx], arr.context)) if arr.stype == 'csr'
                else (name, _wrap(np.take(np.asarray(arr), self.idx, axis=self._axis),
                                  arr.context))
                for name, arr in sources]
