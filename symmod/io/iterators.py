"""The data-iterator protocol (``DataIter``) and two wrappers around other
iterators: ``ResizeIter`` (fixed number of batches per epoch) and
``PrefetchingIter`` (reads ahead on background threads)."""
import threading

from .desc import DataBatch, DataDesc

__all__ = ['DataIter', 'ResizeIter', 'PrefetchingIter']


class DataIter:
    """Base class of symmod's data iterators.

    An iterator hands out :class:`DataBatch` objects, one per ``next()`` call,
    and raises ``StopIteration`` at the end of an epoch; ``reset()`` starts the
    next epoch. Subclasses implement ``iter_next`` (advance, return whether a
    batch is there) and ``getdata`` / ``getlabel`` / ``getpad`` / ``getindex``
    (read the current batch), or override ``next`` directly. They also expose
    ``provide_data`` and ``provide_label``: lists of :class:`DataDesc`.

    Parameters
    ----------
    batch_size : int, optional
        Number of examples per batch.

    Examples
    --------
    >>> it = mx.io.NDArrayIter(mx.nd.ones((10, 3)), batch_size=5)
    >>> for batch in it:
    ...     print(batch.data[0].shape)
    (5, 3)
    (5, 3)
    """

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Go back to the beginning of the data."""

    def next(self):
        """The next batch.

        Returns
        -------
        DataBatch

        Raises
        ------
        StopIteration
            At the end of the data.
        """
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(),
                             pad=self.getpad(), index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Advance to the next batch; return True if there is one."""

    def getdata(self):
        """The data arrays (list of NDArray) of the current batch."""

    def getlabel(self):
        """The label arrays (list of NDArray) of the current batch."""

    def getindex(self):
        """The example indices of the current batch (numpy array), or None."""
        return None

    def getpad(self):
        """How many examples at the end of the current batch are padding."""


class _WrapperIter(DataIter):
    """An iterator handing out batches of other iterators: ``iter_next`` stores
    the batch in ``current_batch``, and the getters read it."""

    def __init__(self):
        super(_WrapperIter, self).__init__()
        self.current_batch = None

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_WrapperIter):
    """Make an iterator yield exactly ``size`` batches per epoch.

    When the wrapped iterator runs out before ``size`` batches it is reset and
    continues; when it has more, the rest is left for the next epoch (unless
    ``reset_internal``).

    Parameters
    ----------
    data_iter : DataIter
        The iterator to resize.
    size : int
        Batches per epoch.
    reset_internal : bool
        Whether ``reset()`` also resets the wrapped iterator.

    Examples
    --------
    >>> nd_iter = mx.io.NDArrayIter(mx.nd.ones((100, 10)), batch_size=25)
    >>> resized = mx.io.ResizeIter(nd_iter, 2)
    >>> sum(1 for _ in resized)
    2
    """

    def __init__(self, data_iter, size, reset_internal=True):
        super(ResizeIter, self).__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, 'default_bucket_key'):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


class _Prefetcher:
    """One background thread reading batches from one iterator.

    The thread waits for ``taken`` (the previous batch was consumed), reads the
    next batch into ``batch`` (None at the end of the data, or the exception it
    raised in ``error``) and sets ``ready``. It holds no reference to the
    PrefetchingIter, so that one can be garbage-collected and stop it.
    """

    def __init__(self, data_iter):
        self.data_iter = data_iter
        self.ready = threading.Event()
        self.taken = threading.Event()
        self.taken.set()
        self.running = True
        self.batch = None
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name='symmod-prefetch')
        self.thread.start()

    def _run(self):
        while True:
            self.taken.wait()
            if not self.running:
                return
            try:
                self.batch = self.data_iter.next()
            except StopIteration:
                self.batch = None
            except Exception as err:   # handed to the consumer's thread
                self.batch, self.error = None, err
            self.taken.clear()
            self.ready.set()

    def wait(self):
        self.ready.wait()
        if self.error is not None:
            err, self.error = self.error, None
            raise err

    def request(self):
        self.ready.clear()
        self.taken.set()

    def stop(self):
        self.running = False
        self.taken.set()
        if self.thread is not threading.current_thread():
            self.thread.join()


class PrefetchingIter(_WrapperIter):
    """Read batches from one or more iterators ahead of time, on background threads.

    While the model works on one batch the next is being prepared. With several
    iterators their batches are joined: data and labels are concatenated as
    lists, in iterator order.

    Parameters
    ----------
    iters : DataIter or list of DataIter
        The iterators to read from (all must yield the same number of batches).
    rename_data : list of dict, optional
        For iterator ``i``, a map ``{old_name: new_name}`` covering every entry of
        its ``provide_data``.
    rename_label : list of dict, optional
        The same for ``provide_label``.

    Examples
    --------
    >>> iter1 = mx.io.NDArrayIter({'data': mx.nd.ones((100, 10))}, batch_size=25)
    >>> iter2 = mx.io.NDArrayIter({'data': mx.nd.ones((100, 10))}, batch_size=25)
    >>> piter = mx.io.PrefetchingIter([iter1, iter2],
    ...                               rename_data=[{'data': 'data_1'}, {'data': 'data_2'}])
    >>> [d.name for d in piter.provide_data]
    ['data_1', 'data_2']
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super(PrefetchingIter, self).__init__()
        if not isinstance(iters, list):
            iters = [iters]
        self.n_iter = len(iters)
        assert self.n_iter > 0, 'PrefetchingIter needs at least one iterator'
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self._workers = [_Prefetcher(it) for it in iters]

    def __del__(self):
        for worker in getattr(self, '_workers', ()):
            worker.stop()

    @staticmethod
    def _renamed(descs_per_iter, renames):
        if renames is None:
            return sum(descs_per_iter, [])
        return sum([[DataDesc(rename[x.name], x.shape, x.dtype)
                     if isinstance(x, DataDesc) else DataDesc(*x) for x in descs]
                    for rename, descs in zip(renames, descs_per_iter)], [])

    @property
    def provide_data(self):
        return self._renamed([it.provide_data for it in self.iters], self.rename_data)

    @property
    def provide_label(self):
        return self._renamed([it.provide_label for it in self.iters], self.rename_label)

    def reset(self):
        for worker in self._workers:
            worker.ready.wait()      # let a read in flight finish first
        for it in self.iters:
            it.reset()
        for worker in self._workers:
            worker.error = None
            worker.request()

    def iter_next(self):
        for worker in self._workers:
            worker.wait()
        batches = [worker.batch for worker in self._workers]
        if batches[0] is None:
            for batch in batches:
                assert batch is None, 'Number of entry mismatches between iterators'
            return False
        for batch in batches:
            assert batch.pad == batches[0].pad, 'Number of entry mismatches between iterators'
        self.current_batch = DataBatch(sum([b.data for b in batches], []),
                                       sum([b.label for b in batches], []),
                                       batches[0].pad, batches[0].index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        for worker in self._workers:
            worker.request()
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration
