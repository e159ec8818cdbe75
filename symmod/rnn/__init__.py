"""``mx.rnn``: MXNet 1.x's symbolic RNN toolkit — cells to unroll over time,
the bucketing sentence iterator, and checkpoint helpers for cell weights.

:class:`FusedRNNCell` runs a whole stack of layers as one fused ``RNN`` operator.
"""
from .params import RNNParams
from .base_cell import BaseRNNCell
from .cells import RNNCell, LSTMCell, GRUCell
from .composite import SequentialRNNCell, BidirectionalCell
from .modifiers import DropoutCell, ModifierCell, ZoneoutCell, ResidualCell
from .conv_cells import BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell
from .fused_cell import FusedRNNCell
from .io import encode_sentences, BucketSentenceIter
from .checkpoint import rnn_unroll, save_rnn_checkpoint, load_rnn_checkpoint, \
    do_rnn_checkpoint
from . import rnn_cell

__all__ = ['RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell',
           'SequentialRNNCell', 'BidirectionalCell', 'DropoutCell', 'ModifierCell',
           'ZoneoutCell', 'ResidualCell', 'BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell',
           'ConvGRUCell', 'FusedRNNCell', 'encode_sentences', 'BucketSentenceIter',
           'rnn_unroll', 'save_rnn_checkpoint', 'load_rnn_checkpoint', 'do_rnn_checkpoint']
