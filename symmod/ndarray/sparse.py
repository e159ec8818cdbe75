"""``mx.nd.sparse`` (CSRNDArray, RowSparseNDArray and the sparse operators) is not provided
by symmod: arrays have dense storage only.

The module exists so that scripts importing it load; any use of it raises MXNetError.
"""


def __getattr__(name):
    if name.startswith('__'):
        raise AttributeError(name)
    from ..base import MXNetError
    raise MXNetError('mx.nd.sparse.%s: sparse storage is not supported by symmod (dense '
                     'NDArrays only)' % name)
