"""``MNISTIter``: batches from MNIST's IDX files, as MXNet's C++ MNISTIter delivers them."""
import gzip
import logging
import struct

import numpy as np

from ..base import MXNetError, parse_bool, parse_int
from .native import MXDataIter

_LOGGER = logging.getLogger(__name__)

__all__ = ['MNISTIter', 'read_idx']

_IMAGE_MAGIC = 2051
_LABEL_MAGIC = 2049


def _open(path):
    """Bytes of ``path``, gunzipped when the file starts with the gzip magic."""
    try:
        with open(path, 'rb') as f:
            raw = f.read()
    except OSError as err:
        raise MXNetError('MNISTIter: cannot open "%s": %s' % (path, err.strerror)) from None
    if raw[:2] == b'\x1f\x8b':
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as err:
            raise MXNetError('MNISTIter: "%s" is not a valid gzip file: %s' % (path, err)) from None
    return raw


def _part(count, num_parts, part_index):
    """The ``[start, end)`` slice of ``count`` items that part ``part_index`` reads."""
    start = int(float(count) / num_parts * part_index)
    end = int(float(count) / num_parts * (part_index + 1))
    return start, end


def read_idx(path, expected_magic, num_parts=1, part_index=0):
    """Read an MNIST IDX file (plain or gzip) as a uint8 array.

    Parameters
    ----------
    path : str
        The file.
    expected_magic : int
        2051 for an image file, 2049 for a label file.
    num_parts, part_index : int
        Read only part ``part_index`` of ``num_parts`` equal parts of the items.

    Returns
    -------
    numpy.ndarray
        ``(count, rows, cols)`` for images, ``(count,)`` for labels.
    """
    raw = _open(path)
    ndim = 3 if expected_magic == _IMAGE_MAGIC else 1
    header = 4 * (1 + ndim)
    magic = struct.unpack('>i', raw[:4])[0] if len(raw) >= 4 else None
    if magic != expected_magic:
        kind = 'image' if expected_magic == _IMAGE_MAGIC else 'label'
        raise MXNetError('MNISTIter: invalid mnist format: "%s" starts with magic number %s, '
                         'expected %d for an %s file' % (path, magic, expected_magic, kind))
    if len(raw) < header:
        raise MXNetError('MNISTIter: invalid mnist format: "%s" is shorter than its %d-byte '
                         'header' % (path, header))
    dims = struct.unpack('>%di' % ndim, raw[4:header])
    count, item = dims[0], int(np.prod(dims[1:], dtype=np.int64))
    if len(raw) - header < count * item:
        raise MXNetError('MNISTIter: invalid mnist format: "%s" declares %d items of %d bytes '
                         'but holds only %d bytes of data'
                         % (path, count, item, len(raw) - header))
    start, end = _part(count, num_parts, part_index)
    body = np.frombuffer(raw, dtype=np.uint8, count=(end - start) * item,
                         offset=header + start * item)
    return body.reshape((end - start,) + tuple(dims[1:]))


def mt19937_shuffle_order(n, seed):
    """The permutation of ``range(n)`` that MXNet's MNISTIter shuffle produces.

    MXNet calls ``std::shuffle`` with ``std::mt19937(seed)``; with the GNU C++
    library that build uses, this is the classic Fisher-Yates pass from the
    front, each swap partner drawn by rejection-and-divide from one 32-bit
    output. numpy's MT19937 with legacy seeding yields the same 32-bit stream.
    """
    stream = np.random.RandomState(seed % (1 << 32))._bit_generator
    raw = stream.random_raw(n + 64).tolist()
    pos = 0
    order = list(range(n))
    for i in range(1, n):
        scaling = 0xFFFFFFFF // (i + 1)
        past = (i + 1) * scaling
        while True:
            if pos == len(raw):
                raw.extend(stream.random_raw(1024).tolist())
            draw = raw[pos]
            pos += 1
            if draw < past:
                break
        j = draw // scaling
        order[i], order[j] = order[j], order[i]
    return np.asarray(order, dtype=np.int64)


class MNISTIter(MXDataIter):
    """Iterate over the MNIST digits stored in IDX files (plain or gzip-compressed).

    Behaves like MXNet's ``mx.io.MNISTIter``: pixels are scaled by 1/256 (so the
    largest value is 0.99609375), the shuffle happens once when the iterator is
    made (the same order MXNet gives for the same ``seed``), and an incomplete
    last batch is dropped. Arguments are keyword-only and may be given as
    strings (``batch_size='100'``), as MXNet's C++ parser accepts.

    Parameters
    ----------
    image : str, optional
        Path of the image file (default ``'./train-images-idx3-ubyte'``).
    label : str, optional
        Path of the label file (default ``'./train-labels-idx1-ubyte'``).
    batch_size : int, optional
        Batch size (default 128).
    shuffle : bool, optional
        Shuffle the examples once at construction (default True).
    flat : bool, optional
        Hand out images as ``(batch, 784)`` instead of ``(batch, 1, 28, 28)``.
    seed : int, optional
        Seed of the shuffle (default 0).
    silent : bool, optional
        Do not log the "MNISTIter: load ..." line.
    num_parts : int, optional
        Split the data into this many equal parts ...
    part_index : int, optional
        ... and read only this one (for distributed training).
    prefetch_buffer : int, optional
        Accepted for compatibility (batches are views of memory already loaded).
    ctx : str, optional
        Accepted for compatibility.
    dtype : str, optional
        Element type of the arrays handed out; None keeps float32.
    data_name : str, optional
        Name of the data input (default ``'data'``).
    label_name : str, optional
        Name of the label input (default ``'softmax_label'``).

    Examples
    --------
    >>> train = mx.io.MNISTIter(image='data/train-images-idx3-ubyte.gz',
    ...                         label='data/train-labels-idx1-ubyte.gz',
    ...                         batch_size=100, flat=True, silent=True)
    >>> train.provide_data
    [DataDesc[data,(100, 784),<class 'numpy.float32'>,NCHW]]
    """

    def __init__(self, *args, image='./train-images-idx3-ubyte',
                 label='./train-labels-idx1-ubyte', batch_size=128, shuffle=True,
                 flat=False, seed=0, silent=False, num_parts=1, part_index=0,
                 prefetch_buffer=4, ctx='gpu', dtype=None, data_name='data',
                 label_name='softmax_label', **kwargs):
        if args:
            raise TypeError('MNISTIter can only accept keyword arguments')
        # like MXNet's parameter parser, unknown keyword arguments are ignored
        self._batch_size = parse_int(batch_size)
        self._shuffle = parse_bool(shuffle)
        self._flat = parse_bool(flat)
        num_parts, part_index = parse_int(num_parts), parse_int(part_index)
        if self._batch_size < 1:
            raise MXNetError('MNISTIter: batch_size must be at least 1, found %d'
                             % self._batch_size)
        if num_parts < 1 or not 0 <= part_index < num_parts:
            raise MXNetError('MNISTIter: part_index must be in [0, num_parts), found '
                             'part_index=%d with num_parts=%d' % (part_index, num_parts))
        pixels = read_idx(image, _IMAGE_MAGIC, num_parts, part_index)
        labels = read_idx(label, _LABEL_MAGIC, num_parts, part_index)
        if labels.shape[0] != pixels.shape[0]:
            raise MXNetError('MNISTIter: "%s" holds %d images but "%s" holds %d labels'
                             % (image, pixels.shape[0], label, labels.shape[0]))
        count, rows, cols = pixels.shape
        if count < self._batch_size:
            raise MXNetError('MNISTIter: batch_size %d is larger than the %d images read '
                             'from "%s"' % (self._batch_size, count, image))
        images = pixels.astype(np.float32)
        images *= np.float32(1.0 / 256.0)
        labels = labels.astype(np.float32)
        if self._shuffle:
            order = mt19937_shuffle_order(count, parse_int(seed))
            images, labels = images[order], labels[order]
        if self._flat:
            self._images = images.reshape(count, rows * cols)
            shape_text = '(%d,%d)' % (self._batch_size, rows * cols)
        else:
            self._images = images.reshape(count, 1, rows, cols)
            shape_text = '[%d,1,%d,%d]' % (self._batch_size, rows, cols)
        self._labels = labels
        self._loc = 0
        if not parse_bool(silent):
            _LOGGER.info('MNISTIter: load %d images, shuffle=%d, shape=%s',
                         count, int(self._shuffle), shape_text)
        super(MNISTIter, self).__init__(data_name=data_name, label_name=label_name,
                                        dtype=dtype)

    def _before_first(self):
        self._loc = 0

    def _next_batch(self):
        start, stop = self._loc, self._loc + self._batch_size
        if stop > self._images.shape[0]:
            return None
        self._loc = stop
        # MXNet's MNISTIter reports an all-zero index (it never fills it in)
        index = np.zeros(self._batch_size, dtype=np.uint64)
        return self._images[start:stop], self._labels[start:stop], 0, index
