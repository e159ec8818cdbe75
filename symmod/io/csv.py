"""``CSVIter``: batches from CSV files, as MXNet's C++ CSVIter delivers them."""
import os

import numpy as np

from ..base import MXNetError, parse_bool, parse_int, parse_tuple
from .mnist import _part as part_range
from .native import MXDataIter

__all__ = ['CSVIter']

_DTYPES = {'float32': np.float32, 'int32': np.int32, 'int64': np.int64}


def _csv_files(path):
    """The files behind ``path``: itself, or every file in it when it is a directory."""
    if os.path.isdir(path):
        return [os.path.join(path, name) for name in sorted(os.listdir(path))
                if os.path.isfile(os.path.join(path, name))]
    if not os.path.exists(path):
        raise MXNetError('CSVIter: cannot open "%s": No such file or directory' % path)
    return [path]


def _parse_values(fields, dtype, path):
    """Parse a list of number strings (read from ``path``) to ``dtype``."""
    if np.issubdtype(dtype, np.integer):
        try:
            return np.array(fields, dtype=np.int64).astype(dtype)
        except (ValueError, OverflowError):
            pass    # e.g. "1.5": parse as float, then truncate like strtol would
    try:
        return np.array(fields, dtype=np.float64).astype(dtype)
    except ValueError as err:
        raise MXNetError('CSVIter: cannot parse a number in "%s": %s' % (path, err)) from None


def read_csv(path, shape, dtype):
    """Read every row of a CSV file (or directory of files) into ``(rows,) + shape``."""
    size = int(np.prod(shape, dtype=np.int64))
    lines = []
    for name in _csv_files(path):
        try:
            with open(name, 'r', encoding='utf-8') as f:
                lines.extend(line.strip() for line in f)
        except (OSError, UnicodeDecodeError) as err:
            raise MXNetError('CSVIter: cannot read "%s": %s' % (name, err)) from None
    lines = [line for line in lines if line]
    fields = []
    for number, line in enumerate(lines):
        row = line.rstrip(',').split(',')
        if len(row) != size:
            raise MXNetError('CSVIter: The data size in CSV do not match size of shape: '
                             'specified shape=%s, the csv row-length=%d (row %d of "%s")'
                             % (tuple(shape), len(row), number, path))
        fields.extend(row)
    return _parse_values(fields, dtype, path).reshape((len(lines),) + tuple(shape))


class CSVIter(MXDataIter):
    """Iterate over rows of CSV files; each row is one example reshaped to ``data_shape``.

    Behaves like MXNet's ``mx.io.CSVIter`` (the C++ iterator with its batch
    loader): with ``round_batch`` (the default) a last incomplete batch is
    filled from the start of the file and ``pad`` says how many rows were
    borrowed; the ``reset()`` that follows is then ignored, so the next epoch
    continues where the borrowing stopped. Without ``round_batch`` the last
    batch is padded with the rows left over from the previous batch.

    Parameters
    ----------
    data_csv : str
        A CSV file, or a directory whose files are all read (in name order).
    data_shape : tuple of int
        The shape of one example; a row must hold ``prod(data_shape)`` numbers.
    label_csv : str, optional
        The label CSV file; ``'NULL'`` (default) gives all-zero labels.
    label_shape : tuple of int, optional
        The shape of one label (default ``(1,)``).
    batch_size : int
        Batch size.
    round_batch : bool, optional
        Fill the last batch from the start of the data (default True).
    dtype : {'float32', 'int32', 'int64'}, optional
        Type of the parsed numbers (default float32).
    num_parts, part_index : int, optional
        Read only part ``part_index`` of ``num_parts`` nearly equal parts of the rows
        (the split of ``MNISTIter``), e.g. one part per worker of a distributed job.
        MXNet's CSVIter ignores these arguments; symmod splits.
    prefetch_buffer, ctx : optional
        Accepted for compatibility.
    data_name, label_name : str, optional
        Input names in ``provide_data`` / ``provide_label``.

    Examples
    --------
    >>> it = mx.io.CSVIter(data_csv='data.csv', data_shape=(3,), batch_size=2)
    >>> it.provide_data
    [DataDesc[data,(2, 3),<class 'numpy.float32'>,NCHW]]
    """

    def __init__(self, *args, data_csv=None, data_shape=None, label_csv='NULL',
                 label_shape=(1,), batch_size=None, round_batch=True, prefetch_buffer=4,
                 ctx='gpu', dtype=None, data_name='data', label_name='softmax_label',
                 num_parts=1, part_index=0, **kwargs):
        if args:
            raise TypeError('CSVIter can only accept keyword arguments')
        for name, value in (('data_csv', data_csv), ('data_shape', data_shape),
                            ('batch_size', batch_size)):
            if value is None:
                raise MXNetError('CSVIter: Required parameter %s is not presented' % name)
        dtype_name = 'float32' if dtype is None else str(np.dtype(dtype))
        if dtype_name not in _DTYPES:
            raise MXNetError('CSVIter: %s is not supported for CSVIter (use float32, int32 '
                             'or int64)' % dtype_name)
        value_type = _DTYPES[dtype_name]
        self._batch_size = parse_int(batch_size)
        if self._batch_size < 1:
            raise MXNetError('CSVIter: batch_size must be at least 1, found %d'
                             % self._batch_size)
        self._round_batch = parse_bool(round_batch)
        self._data = read_csv(data_csv, parse_tuple(data_shape), value_type)
        count = self._data.shape[0]
        if label_csv is None or str(label_csv) == 'NULL':
            self._label = np.zeros((count, 1), dtype=value_type)
        else:
            self._label = read_csv(label_csv, parse_tuple(label_shape), value_type)
            if self._label.shape[0] < count:
                raise MXNetError('CSVIter: "%s" has %d rows but the label file "%s" only %d'
                                 % (data_csv, count, label_csv, self._label.shape[0]))
        num_parts, part_index = parse_int(num_parts), parse_int(part_index)
        if num_parts < 1 or not 0 <= part_index < num_parts:
            raise MXNetError('CSVIter: part_index must be in [0, num_parts), found '
                             'part_index=%d with num_parts=%d' % (part_index, num_parts))
        if num_parts > 1:
            start, end = part_range(count, num_parts, part_index)
            self._data, self._label = self._data[start:end], self._label[start:end]
            count = end - start
        if count == 0:
            raise MXNetError('CSVIter: "%s" holds no rows%s' % (
                data_csv, ' in part %d of %d' % (part_index, num_parts) if num_parts > 1
                else ''))
        # the batch loader's state: next row, rows borrowed by a round batch, and
        # buffers that keep their old contents between batches (as MXNet's do)
        self._row = 0
        self._num_overflow = 0
        self._data_buf = np.zeros((self._batch_size,) + self._data.shape[1:], value_type)
        self._label_buf = np.zeros((self._batch_size,) + self._label.shape[1:], value_type)
        self._index_buf = np.zeros(self._batch_size, dtype=np.uint64)
        super(CSVIter, self).__init__(data_name=data_name, label_name=label_name)

    def _before_first(self):
        if not self._round_batch or self._num_overflow == 0:
            self._row = 0
        else:
            self._num_overflow = 0

    def _fill(self, top, count):
        """Copy ``count`` rows from the current row into the buffers at ``top``."""
        rows = slice(self._row, self._row + count)
        self._data_buf[top:top + count] = self._data[rows]
        self._label_buf[top:top + count] = self._label[rows]
        self._index_buf[top:top + count] = np.arange(self._row, self._row + count)
        self._row += count

    def _next_batch(self):
        if self._num_overflow != 0:
            return None     # until reset(): the rows borrowed last time start the next epoch
        count = self._data.shape[0]
        take = min(self._batch_size, count - self._row)
        if take <= 0:
            return None
        self._fill(0, take)
        pad = 0
        if take < self._batch_size:
            missing = self._batch_size - take
            if self._round_batch:
                if missing > count:
                    raise MXNetError('CSVIter: number of input must be bigger than batch size '
                                     '(%d rows, batch_size %d)' % (count, self._batch_size))
                self._row = 0
                self._fill(take, missing)
                self._num_overflow = pad = missing
            else:
                pad = missing
        return (self._data_buf.copy(), self._label_buf.copy(), pad, self._index_buf.copy())
