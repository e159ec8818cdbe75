"""``mx.module.executor_group``: MXNet's module path of DataParallelExecutorGroup.

The group itself lives in :mod:`symmod.executor.group`; this module is the import path
MXNet code uses (``from mxnet.module.executor_group import DataParallelExecutorGroup``).
"""
from ..executor.group import (DataParallelExecutorGroup, _load_general, _load_data,  # noqa: F401
                              _load_label, _merge_multi_context, _prepare_group2ctxs)

__all__ = ['DataParallelExecutorGroup']
