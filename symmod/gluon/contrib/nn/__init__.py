"""``mx.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity, SyncBatchNorm and
PixelShuffle1D/2D/3D. (SparseEmbedding needs row-sparse storage, which symmod does not
have: building one raises an MXNetError naming gluon.nn.Embedding.)"""
from .basic_layers import (Concurrent, HybridConcurrent, Identity, SparseEmbedding,
                           SyncBatchNorm, PixelShuffle1D, PixelShuffle2D, PixelShuffle3D)

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SparseEmbedding', 'SyncBatchNorm',
           'PixelShuffle1D', 'PixelShuffle2D', 'PixelShuffle3D']
