"""``LibSVMIter``: CSR batches from LibSVM files, as MXNet's C++ LibSVMIter delivers them."""
import numpy as np

from ..base import MXNetError, parse_bool, parse_int, parse_tuple
from ..context import cpu
from ..ndarray.sparse_array import make_csr, new_sparse
from .libsvm_reader import read_libsvm
from .native import MXDataIter

__all__ = ['LibSVMIter']


def _check(condition, message):
    if not condition:
        raise MXNetError('LibSVMIter: ' + message)


class LibSVMIter(MXDataIter):
    """Iterate over a LibSVM file in batches of ``csr`` data.

    Each line is ``label index:value index:value ...`` with **zero-based** column indices
    in ascending order (a ``label:weight`` label and ``qid:`` fields are read and ignored).
    The data of a batch is a CSRNDArray of shape ``(batch_size,) + data_shape``. Without
    ``label_libsvm`` the label is a dense array of the lines' labels; with it, the label
    is a CSRNDArray read from that file's features (its label column is ignored).

    As in MXNet, only ``round_batch=True`` exists: a last incomplete batch is filled from
    the start of the data and ``pad`` says how many rows were borrowed; the ``reset()``
    that follows continues after them. With ``num_parts`` the files are cut into parts
    of about equal bytes (not rows) and only part ``part_index`` is read.

    Parameters
    ----------
    data_libsvm : str
        A LibSVM file, or a directory whose files are all read (in name order).
    data_shape : tuple of int
        The shape of one example: ``(num_features,)``.
    label_libsvm : str, optional
        A LibSVM file with the labels as features; ``'NULL'`` (default): the labels of
        ``data_libsvm``.
    label_shape : tuple of int, optional
        The shape of one label: ``(1,)`` (default) without ``label_libsvm``, larger with it.
    batch_size : int
        Batch size.
    round_batch : bool, optional
        Must be True (the default): MXNet's sparse batch loader has no other mode.
    num_parts, part_index : int, optional
        Read only part ``part_index`` of ``num_parts`` (e.g. one per distributed worker).
    prefetch_buffer, ctx : optional
        Accepted for compatibility.
    dtype : str, optional
        float32 (the only type MXNet's reader produces).
    data_name, label_name : str, optional
        Input names in ``provide_data`` / ``provide_label``.

    Examples
    --------
    >>> it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=3)
    >>> batch = it.next()
    >>> batch.data[0]
    <CSRNDArray 3x3 @cpu(0)>
    """

    def __init__(self, *args, data_libsvm=None, data_shape=None, label_libsvm='NULL',
                 label_shape=(1,), batch_size=None, round_batch=True, num_parts=1,
                 part_index=0, prefetch_buffer=4, ctx='gpu', dtype=None, data_name='data',
                 label_name='softmax_label', **kwargs):
        if args:
            raise TypeError('LibSVMIter can only accept keyword arguments')
        for name, value in (('data_libsvm', data_libsvm), ('data_shape', data_shape),
                            ('batch_size', batch_size)):
            _check(value is not None, 'Required parameter %s is not presented' % name)
        data_shape = parse_tuple(data_shape)
        label_shape = parse_tuple(label_shape)
        num_parts, part_index = parse_int(num_parts), parse_int(part_index)
        self._batch_size = parse_int(batch_size)
        _check(len(data_shape) == 1, 'dimension of data_shape is expected to be 1, found '
               'data_shape=%s' % (data_shape,))
        _check(num_parts > 0, 'number of parts should be positive, found %d' % num_parts)
        _check(0 <= part_index < num_parts, 'part_index must be in [0, num_parts), found '
               'part_index=%d with num_parts=%d' % (part_index, num_parts))
        _check(self._batch_size >= 1, 'batch_size must be at least 1, found %d'
               % self._batch_size)
        _check(parse_bool(round_batch), "sparse batch loader doesn't support round_batch == "
               "false (MXNet has only round_batch=True for sparse data)")
        _check(dtype is None or np.dtype(dtype) == np.float32,
               'dtype must be float32 (the values LibSVM files hold), found %s' % (dtype,))
        has_label_file = label_libsvm is not None and str(label_libsvm) != 'NULL'
        label_size = int(np.prod(label_shape))
        if has_label_file:
            _check(len(label_shape) == 1 and label_size > 1, 'label_shape is not expected '
                   'to be (1,) when label_libsvm is set, found %s' % (label_shape,))
        else:
            _check(label_size == 1, 'label_shape is expected to be (1,) when label_libsvm '
                   'is NULL, found %s' % (label_shape,))
        labels, self._data = read_libsvm(data_libsvm, data_shape[0], num_parts, part_index)
        count = self._data.shape[0]
        _check(count > 0, '"%s" holds no rows%s' % (
            data_libsvm, ' in part %d of %d' % (part_index, num_parts) if num_parts > 1
            else ''))
        if has_label_file:
            _, self._label = read_libsvm(label_libsvm, label_size, num_parts, part_index,
                                         'label_libsvm')
            _check(self._label.shape[0] >= count, '"%s" has %d rows but the label file '
                   '"%s" only %d' % (data_libsvm, count, label_libsvm, self._label.shape[0]))
        else:
            self._label = labels
        self._row = 0
        self._num_overflow = 0
        super(LibSVMIter, self).__init__(data_name=data_name, label_name=label_name)

    def _before_first(self):
        if self._num_overflow == 0:
            self._row = 0
        else:
            self._num_overflow = 0      # the borrowed rows already began the next pass

    def _next_batch(self):
        if self._num_overflow != 0:
            return None     # until reset()
        count = self._data.shape[0]
        take = min(self._batch_size, count - self._row)
        if take <= 0:
            return None
        rows = np.arange(self._row, self._row + take)
        self._row += take
        missing = self._batch_size - take
        if missing:
            _check(missing <= count, 'number of input must be bigger than batch size (%d '
                   'rows, batch_size %d)' % (count, self._batch_size))
            rows = np.concatenate([rows, np.arange(missing)])
            self._row = missing
            self._num_overflow = missing
        return self._csr(self._data[rows]), self._label_rows(rows), missing, rows

    def _label_rows(self, rows):
        if isinstance(self._label, np.ndarray):
            return self._label[rows]
        return self._csr(self._label[rows])

    @staticmethod
    def _csr(matrix):
        """A CSRNDArray of a scipy csr_matrix, with MXNet's int64 aux arrays."""
        storage = make_csr(matrix.data, matrix.indices.astype(np.int64),
                           matrix.indptr.astype(np.int64), matrix.shape)
        return new_sparse('csr', storage, cpu())
