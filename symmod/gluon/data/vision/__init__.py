"""``mx.gluon.data.vision``: image datasets and ``transforms``."""
from .datasets import MNIST, FashionMNIST, ImageRecordDataset, ImageFolderDataset
from . import transforms

__all__ = ['MNIST', 'FashionMNIST', 'ImageRecordDataset', 'ImageFolderDataset', 'transforms']
