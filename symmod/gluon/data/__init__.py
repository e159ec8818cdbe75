"""``mx.gluon.data``: datasets, samplers and the DataLoader (``vision`` for images)."""
from .dataset import Dataset, SimpleDataset, ArrayDataset, RecordFileDataset
from .sampler import (Sampler, SequentialSampler, RandomSampler, FilterSampler, BatchSampler,
                      IntervalSampler, SplitSampler)
from .dataloader import DataLoader
from . import vision

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset', 'RecordFileDataset', 'Sampler',
           'SequentialSampler', 'RandomSampler', 'FilterSampler', 'BatchSampler',
           'IntervalSampler', 'SplitSampler', 'DataLoader', 'vision']
