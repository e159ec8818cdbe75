"""``mx.gluon.contrib``: MXNet's contributed gluon blocks: ``nn`` (Concurrent, Identity,
SyncBatchNorm, PixelShuffle), ``rnn`` (convolutional cells, LSTMPCell,
VariationalDropoutCell)."""
from . import nn
from . import rnn

__all__ = ['nn', 'rnn']
