"""``mx.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity, SparseEmbedding,
SyncBatchNorm and PixelShuffle1D/2D/3D."""
from .basic_layers import (Concurrent, HybridConcurrent, Identity, SparseEmbedding,
                           SyncBatchNorm, PixelShuffle1D, PixelShuffle2D, PixelShuffle3D)

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SparseEmbedding', 'SyncBatchNorm',
           'PixelShuffle1D', 'PixelShuffle2D', 'PixelShuffle3D']
