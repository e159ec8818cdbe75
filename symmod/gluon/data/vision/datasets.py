"""Vision datasets: MNIST / FashionMNIST from local IDX files, images in RecordIO files
and in class folders.

symmod does not download anything: ``MNIST`` and ``FashionMNIST`` read the standard
gzip-compressed IDX files (the names MXNet downloads) from ``root`` and say where to put
them when they are missing.
"""
import os
import warnings

import numpy as np

from ....base import MXNetError
from .... import ndarray as nd, recordio
from ....io.mnist import read_idx
from ..dataset import Dataset, RecordFileDataset
from . import image

__all__ = ['MNIST', 'FashionMNIST', 'ImageRecordDataset', 'ImageFolderDataset']

_IMAGE_MAGIC = 2051
_LABEL_MAGIC = 2049


def _data_dir():
    """MXNet's data folder: ``$MXNET_HOME``, else ``~/.mxnet``."""
    return os.getenv('MXNET_HOME', os.path.join(os.path.expanduser('~'), '.mxnet'))


class _LocalDataset(Dataset):
    """Samples ``(data[i], label[i])``, optionally passed through ``transform``."""

    def __init__(self, root, transform):
        self._root = os.path.expanduser(root)
        self._transform = transform
        self._data = None
        self._label = None
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)


class MNIST(_LocalDataset):
    """The MNIST handwritten digits (http://yann.lecun.com/exdb/mnist), read from ``root``.

    Sample ``i`` is ``(image, label)``: a ``(28, 28, 1)`` uint8 NDArray and a
    ``numpy.int32`` label. ``root`` must hold ``train-images-idx3-ubyte.gz`` and
    ``train-labels-idx1-ubyte.gz`` (``train=True``) or ``t10k-images-idx3-ubyte.gz`` and
    ``t10k-labels-idx1-ubyte.gz``; uncompressed files without ``.gz`` are read too.

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/mnist``
        The folder with the files.
    train : bool, default True
        The training set, or else the test set.
    transform : callable, default None
        Called as ``transform(image, label)``; returns the new sample. For example
        ``lambda data, label: (data.astype('float32') / 255, label)``.

    Examples
    --------
    >>> train = mx.gluon.data.vision.MNIST('examples/mnist/data', train=True)
    >>> image, label = train[0]
    >>> image.shape, image.dtype, int(label)
    ((28, 28, 1), <class 'numpy.uint8'>, 2)
    """
    _files = {True: ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
              False: ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')}
    _source = 'http://yann.lecun.com/exdb/mnist/'

    def __init__(self, root=os.path.join(_data_dir(), 'datasets', 'mnist'),
                 train=True, transform=None):
        self._train = train
        super().__init__(root, transform)

    def _locate(self, name):
        for candidate in (name, name[:-len('.gz')]):
            path = os.path.join(self._root, candidate)
            if os.path.isfile(path):
                return path
        wanted = ', '.join(self._files[self._train])
        raise MXNetError(
            '%s: cannot find "%s" in "%s". symmod does not download data sets: put the '
            'files %s (from %s, gzip-compressed or not) into that folder, or pass '
            'root=<folder that holds them>.'
            % (type(self).__name__, name, self._root, wanted, self._source))

    def _get_data(self):
        image_name, label_name = self._files[self._train]
        images_path, labels_path = self._locate(image_name), self._locate(label_name)
        label = read_idx(labels_path, _LABEL_MAGIC).astype(np.int32)
        pixels = read_idx(images_path, _IMAGE_MAGIC)
        if pixels.shape[0] != label.shape[0]:
            raise MXNetError('%s: "%s" holds %d images but "%s" holds %d labels'
                             % (type(self).__name__, images_path, pixels.shape[0],
                                labels_path, label.shape[0]))
        self._data = nd.array(pixels[:, :, :, None], dtype=np.uint8)
        self._label = label


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST (https://github.com/zalandoresearch/fashion-mnist), a
    drop-in replacement for MNIST with the same file names and sample format.

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/fashion-mnist``
        The folder with the IDX files.
    train : bool, default True
        The training set, or else the test set.
    transform : callable, default None
        Called as ``transform(image, label)``.
    """
    _source = 'https://github.com/zalandoresearch/fashion-mnist'

    def __init__(self, root=os.path.join(_data_dir(), 'datasets', 'fashion-mnist'),
                 train=True, transform=None):
        super().__init__(root, train, transform)


class ImageRecordDataset(RecordFileDataset):
    """Images and labels stored in a RecordIO file (made by ``im2rec`` or ``pack_img``).

    Sample ``i`` is ``(image, label)``: an ``(h, w, 3)`` RGB (``flag=1``) or
    ``(h, w, 1)`` grey (``flag=0``) uint8 NDArray and the record header's label (a float,
    or a float32 array for several labels).

    Parameters
    ----------
    filename : str
        The ``.rec`` file (its ``.idx`` index must lie next to it).
    flag : {0, 1}, default 1
        0: grey images; 1: colour images.
    transform : callable, default None
        Called as ``transform(image, label)``.
    """

    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        header, buf = recordio.unpack(super().__getitem__(idx))
        img = nd.array(image.decode(buf, self._flag), dtype=np.uint8)
        if self._transform is not None:
            return self._transform(img, header.label)
        return img, header.label


class ImageFolderDataset(Dataset):
    """Images in one sub-folder per class (``root/car/0001.jpg``, ``root/bus/023.png``).

    Class labels are the indices of the sub-folder names in sorted order; files other
    than ``.jpg``, ``.jpeg`` and ``.png`` are skipped with a warning. Images are
    decoded with Pillow.

    Parameters
    ----------
    root : str
        The folder holding one sub-folder per class.
    flag : {0, 1}, default 1
        0: ``(h, w, 1)`` grey images; 1: ``(h, w, 3)`` RGB images.
    transform : callable, default None
        Called as ``transform(image, label)``.

    Attributes
    ----------
    synsets : list of str
        The class names; ``synsets[i]`` is the name of label ``i``.
    items : list of (str, int)
        ``(file name, label)`` of every image.
    """

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = ['.jpg', '.jpeg', '.png']
        self._list_images(self._root)

    def _list_images(self, root):
        if not os.path.isdir(root):
            raise MXNetError('ImageFolderDataset: "%s" is not a folder' % root)
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn('Ignoring %s, which is not a directory.' % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn('Ignoring %s of type %s. Only support %s'
                                  % (filename, ext, ', '.join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        filename, label = self.items[idx]
        img = nd.array(image.read_image(filename, self._flag), dtype=np.uint8)
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
