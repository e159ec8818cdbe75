"""``mx.executor_manager``: MXNet's module path for the legacy data-parallel executor
manager. The implementation lives in :mod:`symmod.executor.manager`."""
from .executor.manager import (DataParallelExecutorGroup, DataParallelExecutorManager,
                               _bind_exec, _check_arguments, _load_data, _load_general,
                               _load_label, _split_input_slice)

__all__ = ['DataParallelExecutorGroup', 'DataParallelExecutorManager']
