"""Operators, one file per family; importing this package registers them all."""
from . import registry
