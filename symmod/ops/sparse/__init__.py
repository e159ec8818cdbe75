"""Sparse storage rules and kernels of operators (see :mod:`.base`); importing the
package registers them all."""
from .base import (StorageImpl, register_storage, storage_impl, infer_storage, dense_forward,
                   dense_backward, store_array, new_output)
from . import elemwise
from . import dot
from . import rows
from . import nn
from . import custom

__all__ = ['StorageImpl', 'register_storage', 'storage_impl', 'infer_storage',
           'dense_forward', 'dense_backward', 'store_array', 'new_output']
