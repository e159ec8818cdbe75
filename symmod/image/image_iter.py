"""``ImageIter``: the Python image iterator of ``mx.image``, over a RecordIO file or an
image list, with augmenters from ``CreateAugmenter`` (or the caller's list)."""
import logging
import os
import random

import numpy as np

from ..base import MXNetError, numeric_types
from .. import ndarray as nd
from .. import recordio
from ..io.iterators import DataIter
from ..io.desc import DataBatch
from .image import imdecode
from .augmenters import CreateAugmenter

_LOGGER = logging.getLogger(__name__)

__all__ = ['ImageIter']


def _read_imglist_file(path, dtype):
    """``({key: (label NDArray, file name)}, [keys])`` from a tab-separated ``.lst`` file."""
    imglist, keys = {}, []
    try:
        with open(path, encoding='utf-8') as fin:
            for number, line in enumerate(iter(fin.readline, ''), start=1):
                fields = line.strip().split('\t')
                try:
                    if len(fields) < 3:
                        raise ValueError('no label')
                    label = nd.array(fields[1:-1], dtype=dtype)
                    key = int(fields[0])
                except (ValueError, OverflowError) as err:
                    raise MXNetError('%s line %d: expected "index<TAB>label(s)<TAB>file name",'
                                     ' found %r (%s)' % (path, number, line[:60], err)) from None
                imglist[key] = (label, fields[-1])
                keys.append(key)
    except (OSError, UnicodeDecodeError) as err:
        raise MXNetError('%s: cannot read the image list: %s' % (path, err)) from None
    return imglist, keys


def _read_imglist(items, dtype):
    """The same from a Python list of ``[label(s)..., file name]`` entries (keys '1', '2', ...)."""
    imglist, keys = {}, []
    for index, item in enumerate(items, start=1):
        key = str(index)
        if len(item) > 2:
            label = nd.array(item[:-1], dtype=dtype)
        elif isinstance(item[0], numeric_types):
            label = nd.array([item[0]], dtype=dtype)
        else:
            label = nd.array(item[0], dtype=dtype)
        imglist[key] = (label, item[-1])
        keys.append(key)
    return imglist, keys


class ImageIter(DataIter):
    """Iterate over images with augmentation, in Python (MXNet's ``mx.image.ImageIter``).

    The images come from a RecordIO file (``path_imgrec``, with ``path_imgidx``
    for shuffling and partitioning) or from image files listed in
    ``path_imglist`` / ``imglist`` under ``path_root``. Each image is decoded to
    RGB, passed through the augmenters and transposed to ``(channels, height,
    width)``; batches are float32 ``(batch_size,) + data_shape``, labels
    ``(batch_size,)`` or ``(batch_size, label_width)``.

    The last, incomplete batch of an epoch depends on ``last_batch_handle``:
    ``'pad'`` completes it from the start of the data (``pad`` counts the
    borrowed images) and ends the epoch; ``'discard'`` drops it;
    ``'roll_over'`` keeps it and completes it at the start of the next epoch.

    Parameters
    ----------
    batch_size : int
        Images per batch.
    data_shape : tuple of int
        ``(3, height, width)`` of the augmented images.
    label_width : int, optional, default 1
        Labels per image.
    path_imgrec : str, optional
        A ``.rec`` file (made by im2rec).
    path_imglist : str, optional
        A ``.lst`` file: ``key<TAB>label(s)<TAB>file name`` per line.
    path_root : str, optional
        Folder of the image files of the list.
    path_imgidx : str, optional
        The ``.idx`` file of ``path_imgrec`` (needed by ``shuffle`` and ``num_parts``).
    shuffle : bool, optional
        Shuffle the images at every reset (Python's ``random``).
    part_index, num_parts : int, optional
        Read only part ``part_index`` of ``num_parts`` equal parts.
    aug_list : list of Augmenter, optional
        The augmenters; default ``CreateAugmenter(data_shape, **kwargs)``.
    imglist : list, optional
        Entries ``[label(s)..., file name]`` instead of ``path_imglist``.
    data_name, label_name : str, optional
        Names in ``provide_data`` / ``provide_label``.
    dtype : {'float32', 'float64', 'int32', 'int64'}, optional
        Type the labels of an image list are parsed as.
    last_batch_handle : {'pad', 'discard', 'roll_over'}, optional
        What to do with the last, incomplete batch.
    **kwargs
        Passed to :func:`CreateAugmenter` (``resize``, ``rand_crop``, ``mean``, ...).

    Examples
    --------
    >>> it = mx.image.ImageIter(4, (3, 224, 224), path_imgrec='data/val.rec',
    ...                         resize=256, inter_method=1)
    >>> batch = it.next()
    >>> batch.data[0].shape
    (4, 3, 224, 224)
    """

    def __init__(self, batch_size, data_shape, label_width=1,
                 path_imgrec=None, path_imglist=None, path_root=None, path_imgidx=None,
                 shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name='data', label_name='softmax_label', dtype='float32',
                 last_batch_handle='pad', **kwargs):
        super(ImageIter, self).__init__()
        assert path_imgrec or path_imglist or (isinstance(imglist, list))
        assert dtype in ['int32', 'float32', 'int64', 'float64'], dtype + ' label not supported'
        if last_batch_handle not in ('pad', 'discard', 'roll_over'):
            raise ValueError("last_batch_handle must be 'pad', 'discard' or 'roll_over', "
                             "found %r" % (last_batch_handle,))
        num_threads = os.environ.get('MXNET_CPU_WORKER_NTHREADS', 1)
        _LOGGER.info('Using %s threads for decoding...', str(num_threads))
        _LOGGER.info('Set enviroment variable MXNET_CPU_WORKER_NTHREADS to a'
                     ' larger number to use more threads.')
        class_name = self.__class__.__name__
        self.imgidx = None
        if path_imgrec:
            _LOGGER.info('%s: loading recordio %s...', class_name, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, 'r')
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, 'r')
        else:
            self.imgrec = None

        imgkeys = None
        if path_imglist:
            _LOGGER.info('%s: loading image list %s...', class_name, path_imglist)
            self.imglist, imgkeys = _read_imglist_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            _LOGGER.info('%s: loading image list...', class_name)
            self.imglist, imgkeys = _read_imglist(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root

        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + tuple(data_shape))]
        if label_width > 1:
            self.provide_label = [(label_name, (batch_size, label_width))]
        else:
            self.provide_label = [(label_name, (batch_size,))]
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            assert self.imgidx is not None, \
                'shuffle and num_parts > 1 need path_imgidx with path_imgrec'
            self.seq = self.imgidx
        else:
            self.seq = None

        if num_parts > 1:
            assert part_index < num_parts
            per_part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * per_part:(part_index + 1) * per_part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self.reset()

    def reset(self):
        """Start a new epoch (reshuffling; a rolled-over batch is kept)."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != 'roll_over' or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Start a new epoch and forget any rolled-over batch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    def next_sample(self):
        """The next ``(label, encoded image)``; StopIteration at the end of the data."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != 'discard':
                    self.imgrec.reset()
                    self.cur = 0
                raise StopIteration
            self.cur += 1   # only for error messages: records read so far
            header, img = recordio.unpack(record)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != 'discard':
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            if self.imglist is None:
                return header.label, img
            return self.imglist[idx][0], img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, batch_data, batch_label, start=0):
        """Fill rows ``start...`` of the batch; return how many rows are filled."""
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    self.check_valid_image(data)
                except RuntimeError as err:
                    _LOGGER.debug('Invalid image, skipping:  %s', str(err))
                    continue
                data = self.augmentation_transform(data)
                assert i < self.batch_size, \
                    'Batch size must be multiples of augmenter output length'
                batch_data[i] = self.postprocess_data(data)
                # a one-element label fills a scalar row, as MXNet's broadcasting allows
                if isinstance(label, nd.NDArray):
                    label = label.asnumpy()
                batch_label[i] = np.asarray(label).reshape(batch_label.shape[1:])
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next batch.

        Returns
        -------
        DataBatch

        Raises
        ------
        StopIteration
            At the end of the epoch.
        """
        c, h, w = self.data_shape
        if self._cache_data is not None:
            # the batch rolled over from the previous epoch
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data = nd.zeros((self.batch_size, c, h, w))
            batch_label = self._new_label_batch()
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad != 0:
            if self.last_batch_handle == 'discard':
                raise StopIteration
            if self.last_batch_handle == 'roll_over' and self._cache_data is None:
                self._cache_data = batch_data
                self._cache_label = batch_label
                self._cache_idx = i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == 'pad':
                self._allow_read = False
            else:
                self._cache_data = None
                self._cache_label = None
                self._cache_idx = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    def _new_label_batch(self):
        """The label array a batch is filled into."""
        return nd.empty(self.provide_label[0][1])

    def check_data_shape(self, data_shape):
        """Require ``data_shape`` = ``(3, height, width)``."""
        if not len(data_shape) == 3:
            raise ValueError('data_shape should have length 3, with dimensions CxHxW')
        if not data_shape[0] == 3:
            raise ValueError('This iterator expects inputs to have 3 channels.')

    def check_valid_image(self, data):
        """Raise RuntimeError for an image with an empty shape (it is then skipped)."""
        if len(data[0].shape) == 0:
            raise RuntimeError('Data shape is wrong')

    def imdecode(self, s):
        """Decode image bytes to RGB; a broken image raises RuntimeError naming it."""
        try:
            return imdecode(s)
        except Exception as err:    # report which image, whatever the decoder raised
            raise RuntimeError('%s, %s' % (self._locate(), err)) from None

    def _locate(self):
        """Which image was read last, for error messages."""
        if self.seq is not None:
            idx = self.seq[(self.cur % self.num_image) - 1]
        else:
            idx = self.cur - 1      # position of the record in the file
        if self.imglist is not None:
            return 'Broken image filename: %s' % self.imglist[idx][1]
        return 'Broken image index: %s' % idx

    def read_image(self, fname):
        """The bytes of image file ``fname`` under ``path_root``."""
        path = fname if self.path_root is None else os.path.join(self.path_root, fname)
        with open(path, 'rb') as fin:
            return fin.read()

    def augmentation_transform(self, data):
        """Apply the augmenters in order."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """``(height, width, channels)`` -> ``(channels, height, width)``."""
        return nd.transpose(datum, axes=(2, 0, 1))
