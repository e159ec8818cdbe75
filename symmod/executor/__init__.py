"""Executors: a symbol bound to arrays, planned once, run many times."""
from .executor import Executor
