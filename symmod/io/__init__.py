"""``mx.io``: data descriptions, batches and data iterators."""
from .desc import DataDesc, DataBatch
from .iterators import DataIter, ResizeIter, PrefetchingIter
from .ndarray_iter import NDArrayIter
from .native import MXDataIter
from .mnist import MNISTIter
from .csv import CSVIter
from .libsvm import LibSVMIter
from .image_record import ImageRecordIter

__all__ = ['DataDesc', 'DataBatch', 'DataIter', 'ResizeIter', 'PrefetchingIter',
           'NDArrayIter', 'MXDataIter', 'MNISTIter', 'CSVIter', 'LibSVMIter', 'ImageRecordIter']
