"""``mx.gluon.contrib.data``: the WikiText language-model datasets (``text``) and
IntervalSampler."""
from . import text
from .sampler import IntervalSampler

__all__ = ['text', 'IntervalSampler']
