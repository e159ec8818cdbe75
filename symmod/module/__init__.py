"""``mx.mod``: modules — BaseModule, Module, BucketingModule."""
from .base_module import BaseModule
from .module import Module
from .bucketing_module import BucketingModule
