"""``MXDataIter``: the behaviour MXNet's C++ iterators (MNISTIter, CSVIter) share.

In MXNet these iterators live in C++ and the Python side wraps them; symmod
implements them in Python on numpy but keeps the wrapper's behaviour: keyword
arguments only (given as values or their strings), the first batch read at
construction to learn the shapes, one data and one label array per batch,
labels of shape ``(batch, 1)`` handed out as ``(batch,)``.
"""
import logging

import numpy as np

from ..base import parse_dtype
from ..context import cpu
from ..ndarray import NDArray
from .desc import DataBatch, DataDesc
from .iterators import DataIter

_LOGGER = logging.getLogger(__name__)

__all__ = ['MXDataIter']


def _as_ndarray(array):
    """A batch array on the cpu: numpy arrays wrapped, NDArrays (sparse ones) as they are."""
    return array if isinstance(array, NDArray) else NDArray(array, cpu())


class MXDataIter(DataIter):
    """Base class of the file-reading iterators that MXNet implements in C++.

    Subclasses implement two methods: ``_before_first()`` (rewind) and
    ``_next_batch()``, which returns ``(data, label, pad, index)`` as numpy
    arrays (data and label with the batch on axis 0; or sparse NDArrays) or None
    at the end.

    Parameters
    ----------
    data_name : str, optional
        Name of the data input in ``provide_data``.
    label_name : str, optional
        Name of the label input in ``provide_label``.
    dtype : str or numpy dtype, optional
        Element type of the arrays handed out; None keeps the reader's type.
    """

    def __init__(self, data_name='data', label_name='softmax_label', dtype=None):
        super(MXDataIter, self).__init__()
        self._dtype = parse_dtype(dtype)
        self._debug_skip_load = False
        self._debug_at_begin = True
        self._current = None
        self.first_batch = None
        self.first_batch = self.next()
        data = self.first_batch.data[0]
        label = self.first_batch.label[0]
        self.provide_data = [DataDesc(data_name, data.shape, data.dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, label.dtype)]
        self.batch_size = data.shape[0]

    # ---- the iterator protocol -----------------------------------------------------
    def debug_skip_load(self):
        """Hand out the first batch forever (to time a model without data loading)."""
        self._debug_skip_load = True
        _LOGGER.info('Set debug_skip_load to be true, will simply return first batch')

    def reset(self):
        self._debug_at_begin = True
        self.first_batch = None
        self._before_first()

    def _advance(self):
        raw = self._next_batch()
        if raw is None:
            return False
        data, label, pad, index = raw
        if self._dtype is not None:
            data = data.astype(self._dtype, copy=False)
            label = label.astype(self._dtype, copy=False)
        if label.ndim > 1 and label.shape[1] == 1 and label.size == label.shape[0]:
            label = label.reshape(label.shape[0])
        self._current = (_as_ndarray(data), _as_ndarray(label), pad,
                         None if index is None else np.asarray(index, dtype=np.uint64))
        return True

    def _batch(self):
        data, label, pad, index = self._current
        return DataBatch(data=[data], label=[label], pad=pad, index=index)

    def next(self):
        if self._debug_skip_load and not self._debug_at_begin:
            return self._batch()
        if self.first_batch is not None:
            batch, self.first_batch = self.first_batch, None
            return batch
        self._debug_at_begin = False
        if self._advance():
            return self._batch()
        raise StopIteration

    def iter_next(self):
        if self.first_batch is not None:
            self.first_batch = None    # _current still holds it
            return True
        return self._advance()

    def getdata(self):
        return self._current[0]

    def getlabel(self):
        return self._current[1]

    def getindex(self):
        return self._current[3]

    def getpad(self):
        return self._current[2]
