"""Data for tests and examples: ``download`` and the MNIST / CIFAR-10 helpers.

The files are looked for where MXNet 1.9.1 puts them (MNIST's ``.gz`` files in the current
directory for :func:`get_mnist`, unpacked IDX files under ``data/`` for
:func:`get_mnist_ubyte`); if they are absent they are downloaded from MXNet's URLs, and
when that fails (no network) the error says which files to put where.
"""
import errno
import gzip
import logging
import os
import shutil
import struct
import urllib.request
import zipfile

import numpy as np

from ..base import MXNetError
from ..io import DataIter, MNISTIter

__all__ = ['download', 'download_model', 'get_mnist', 'get_mnist_pkl', 'get_mnist_ubyte',
           'get_cifar10', 'get_mnist_iterator', 'get_zip_data', 'get_bz2_data',
           'get_im2rec_path', 'DummyIter']

_LOG = logging.getLogger(__name__)
_MNIST_URL = 'http://data.mxnet.io/data/mnist/'
_MNIST_FILES = ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte',
                't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte')


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Download ``url`` to a file unless it is already there; returns the file name.

    Parameters
    ----------
    url : str
    fname : str, optional
        Target file name (default: the last part of the URL).
    dirname : str, optional
        Directory for ``fname`` (created if needed).
    overwrite : bool
        Download even if the file exists.
    retries : int
        Further attempts after a failed one.
    """
    if retries < 0:
        raise ValueError('Number of retries should be at least 0')
    if fname is None:
        fname = url.split('/')[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        try:
            os.makedirs(dirname, exist_ok=True)
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise OSError('failed to create ' + dirname) from exc
    if not overwrite and os.path.exists(fname):
        _LOG.info('%s exists, skipping download', fname)
        return fname
    last_error = None
    for _ in range(retries + 1):
        tmp = fname + '.part'
        try:
            with urllib.request.urlopen(url, timeout=60) as response, open(tmp, 'wb') as out:
                shutil.copyfileobj(response, out)
            os.replace(tmp, fname)
            _LOG.info('downloaded %s into %s successfully', url, fname)
            return fname
        except OSError as err:      # URLError, timeouts and HTTP errors are OSErrors
            last_error = err
            if os.path.exists(tmp):
                os.remove(tmp)
    raise MXNetError('failed to download %s: %s. Without network access, put the file at %s'
                     % (url, last_error, os.path.abspath(fname)))


def download_model(model_name, dst_dir='./', meta_info=None):
    """Download ``<model_name>-symbol.json`` and ``-0000.params`` given their URLs.

    ``meta_info`` maps model names to ``{'symbol': url, 'params': url}``. Returns
    ``(path prefix, epoch 0)``, or ``(None, 0)`` for a name ``meta_info`` lacks.
    """
    meta_info = dict(meta_info or {})
    if model_name not in meta_info:
        return (None, 0)
    os.makedirs(dst_dir, exist_ok=True)
    meta = dict(meta_info[model_name])
    prefix = os.path.join(dst_dir, model_name)
    download(meta['symbol'], prefix + '-symbol.json')
    download(meta['params'], prefix + '-0000.params')
    return (prefix, 0)


def _locate(name, dirs, url=None):
    """Path of ``name`` (or ``name.gz``) in ``dirs``; downloaded into ``dirs[0]`` if absent."""
    for folder in dirs:
        for candidate in (name, name + '.gz'):
            path = os.path.join(folder, candidate)
            if os.path.exists(path):
                return path
    if url is None:
        raise MXNetError('%s not found in %s' % (name, ', '.join(map(os.path.abspath, dirs))))
    try:
        return download(url, dirname=dirs[0] or None)
    except MXNetError as err:
        raise MXNetError('MNIST file %s not found in %s and it cannot be downloaded (%s). '
                         'Put %s (or %s.gz) there; MXNet hosts them at %s'
                         % (name, ' or '.join(os.path.abspath(d) for d in dirs), err, name,
                            name, _MNIST_URL)) from None


def _read_idx(path):
    """An IDX file (gzip or plain) as a numpy array of its shape."""
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    if len(raw) < 4:
        raise MXNetError('%s is not an MNIST IDX file (too short)' % path)
    ndim = raw[3]
    if raw[:2] != b'\x00\x00' or raw[2] != 8 or ndim not in (1, 3):
        raise MXNetError('%s is not an MNIST IDX file of bytes (header %r)' % (path, raw[:4]))
    shape = struct.unpack('>' + 'I' * ndim, raw[4:4 + 4 * ndim])
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(shape)):
        raise MXNetError('%s: header says %s items, found %d bytes'
                         % (path, shape, data.size))
    return data.reshape(shape)


def get_mnist():
    """MNIST as numpy arrays (files from the current directory, else downloaded).

    Returns
    -------
    dict
        ``train_data``/``test_data``: float32 (N, 1, 28, 28) in [0, 1];
        ``train_label``/``test_label``: int8 (N,).
    """
    def read(label_name, image_name):
        label = _read_idx(_locate(label_name, [''], _MNIST_URL + label_name + '.gz'))
        image = _read_idx(_locate(image_name, [''], _MNIST_URL + image_name + '.gz'))
        image = image.reshape(len(label), 1, 28, 28).astype(np.float32) / 255
        return label.astype(np.int8), image

    train_lbl, train_img = read('train-labels-idx1-ubyte', 'train-images-idx3-ubyte')
    test_lbl, test_img = read('t10k-labels-idx1-ubyte', 't10k-images-idx3-ubyte')
    return {'train_data': train_img, 'train_label': train_lbl,
            'test_data': test_img, 'test_label': test_lbl}


def get_mnist_pkl():
    """Make sure ``data/mnist.pkl.gz`` exists (downloading it if absent)."""
    os.makedirs('data', exist_ok=True)
    if not os.path.exists('data/mnist.pkl.gz'):
        download('http://deeplearning.net/data/mnist/mnist.pkl.gz', dirname='data')


def get_mnist_ubyte():
    """Make sure the four unpacked MNIST IDX files are in ``data/``.

    They are taken from ``data/`` or the current directory (plain or ``.gz``), and
    otherwise downloaded as MXNet's ``mnist.zip``.
    """
    os.makedirs('data', exist_ok=True)
    missing = [n for n in _MNIST_FILES if not os.path.exists(os.path.join('data', n))]
    for name in list(missing):
        for folder in ('data', ''):
            packed = os.path.join(folder, name + '.gz')
            if os.path.exists(packed):
                with gzip.open(packed, 'rb') as src, \
                        open(os.path.join('data', name), 'wb') as dst:
                    shutil.copyfileobj(src, dst)
                missing.remove(name)
                break
            plain = os.path.join(folder, name)
            if folder == '' and os.path.exists(plain):
                shutil.copyfile(plain, os.path.join('data', name))
                missing.remove(name)
                break
    if missing:
        try:
            archive = download('http://data.mxnet.io/mxnet/data/mnist.zip', dirname='data')
        except MXNetError as err:
            raise MXNetError('MNIST files %s are missing from %s and cannot be downloaded (%s). '
                             'Put them (plain or .gz) there; MXNet hosts them at %s'
                             % (', '.join(missing), os.path.abspath('data'), err,
                                _MNIST_URL)) from None
        with zipfile.ZipFile(archive) as zf:
            zf.extractall('data')


def get_cifar10():
    """Make sure ``data/cifar/{train,test}.{rec,lst}`` exist (downloading if absent)."""
    os.makedirs('data', exist_ok=True)
    wanted = ['data/cifar/%s.%s' % (s, e) for s in ('train', 'test') for e in ('rec', 'lst')]
    if not all(os.path.exists(p) for p in wanted):
        archive = download('http://data.mxnet.io/mxnet/data/cifar10.zip', dirname='data')
        with zipfile.ZipFile(archive) as zf:
            zf.extractall('data')


def get_mnist_iterator(batch_size, input_shape, num_parts=1, part_index=0):
    """(train, validation) ``MNISTIter`` over ``data/`` (see :func:`get_mnist_ubyte`).

    Parameters
    ----------
    batch_size : int
    input_shape : tuple
        (1, 28, 28) for images, (784,) for flat vectors.
    num_parts, part_index : int
        Read one part of the data (distributed training).
    """
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    train = MNISTIter(image='data/train-images-idx3-ubyte', label='data/train-labels-idx1-ubyte',
                      input_shape=input_shape, batch_size=batch_size, shuffle=True, flat=flat,
                      num_parts=num_parts, part_index=part_index)
    val = MNISTIter(image='data/t10k-images-idx3-ubyte', label='data/t10k-labels-idx1-ubyte',
                    input_shape=input_shape, batch_size=batch_size, flat=flat,
                    num_parts=num_parts, part_index=part_index)
    return train, val


def get_zip_data(data_dir, url, data_origin_name):
    """Download the zip ``url`` into ``data_dir`` and extract it (once)."""
    origin = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(origin):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(origin) as zf:
            zf.extractall(path=data_dir)


def get_bz2_data(data_dir, data_name, url, data_origin_name):
    """Download the bz2 ``url`` into ``data_dir`` and decompress it to ``data_name`` (once)."""
    import bz2
    target = os.path.join(data_dir, data_name)
    origin = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(target):
        download(url, fname=origin, dirname=data_dir, overwrite=False)
        with bz2.BZ2File(origin, 'rb') as src, open(target, 'wb') as dst:
            shutil.copyfileobj(src, dst)
        os.remove(origin)


def get_im2rec_path(home_env='MXNET_HOME'):
    """Path of the ``im2rec.py`` tool (``$MXNET_HOME/tools`` or next to the package)."""
    root = os.environ.get(home_env) or os.path.dirname(os.path.dirname(__file__))
    for candidate in (os.path.join(root, 'tools', 'im2rec.py'),
                      os.path.join(root, '..', 'tools', 'im2rec.py'),
                      os.path.join(root, '..', '..', 'tools', 'im2rec.py')):
        if os.path.isfile(candidate):
            return candidate
    raise IOError('Could not find path to tools/im2rec.py')


class DummyIter(DataIter):
    """Yields the first batch of ``real_iter`` forever (for speed tests)."""

    def __init__(self, real_iter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        """The first batch of the real iterator, every time."""
        return self.the_batch
