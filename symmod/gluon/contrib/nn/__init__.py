"""``mx.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity, SyncBatchNorm and
PixelShuffle1D/2D/3D. (MXNet's SparseEmbedding needs row-sparse storage, which symmod
does not have.)"""
from .basic_layers import (Concurrent, HybridConcurrent, Identity, SyncBatchNorm,
                           PixelShuffle1D, PixelShuffle2D, PixelShuffle3D)

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SyncBatchNorm',
           'PixelShuffle1D', 'PixelShuffle2D', 'PixelShuffle3D']
