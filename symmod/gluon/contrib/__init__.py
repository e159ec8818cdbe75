"""``mx.gluon.contrib``: MXNet's contributed gluon blocks: ``nn`` (Concurrent, Identity,
SyncBatchNorm, PixelShuffle), ``rnn`` (convolutional cells, LSTMPCell,
VariationalDropoutCell) and ``data`` (WikiText datasets, IntervalSampler)."""
from . import nn
from . import rnn
from . import data

__all__ = ['nn', 'rnn', 'data']
