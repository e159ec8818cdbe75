"""``mx.kv`` / ``mx.kvstore``: key-value stores that sum gradients across devices.

``create('local')`` or ``create('device')`` gives the single-machine store; it can
also run the optimizer on every push (``set_optimizer``, Module's and Trainer's
``update_on_kvstore``).
"""
from .base import KVStoreBase, TestStore, create
from .local import KVStore

__all__ = ['KVStoreBase', 'KVStore', 'TestStore', 'create']
