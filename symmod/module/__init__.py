"""``mx.mod``: modules — BaseModule, Module, BucketingModule, SequentialModule,
PythonModule and PythonLossModule."""
from .base_module import BaseModule
from .module import Module
from .bucketing_module import BucketingModule
from .sequential_module import SequentialModule
from .python_module import PythonModule, PythonLossModule
from . import executor_group  # noqa: E402,F401  (MXNet's module path of the group)
