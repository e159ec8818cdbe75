"""``mx.gluon.contrib``: MXNet's contributed gluon blocks: ``nn`` (Concurrent, Identity,
SyncBatchNorm, PixelShuffle), ``cnn`` (deformable convolutions), ``rnn`` (convolutional cells, LSTMPCell,
VariationalDropoutCell), ``data`` (WikiText datasets, IntervalSampler) and
``estimator`` (a training loop with event handlers)."""
from . import nn
from . import rnn
from . import cnn
from . import data
from . import estimator

__all__ = ['nn', 'rnn', 'cnn', 'data', 'estimator']
