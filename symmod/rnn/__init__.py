"""``mx.rnn``: MXNet 1.x's symbolic RNN toolkit — cells to unroll over time,
the bucketing sentence iterator, and checkpoint helpers for cell weights.

FusedRNNCell is not provided: it needs MXNet's fused ``RNN`` operator, which
symmod does not have; stack :class:`LSTMCell` / :class:`GRUCell` /
:class:`RNNCell` in a :class:`SequentialRNNCell` instead.
"""
from .params import RNNParams
from .base_cell import BaseRNNCell
from .cells import RNNCell, LSTMCell, GRUCell
from .composite import SequentialRNNCell, BidirectionalCell
from .modifiers import DropoutCell, ModifierCell, ZoneoutCell, ResidualCell
from .conv_cells import BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell
from .io import encode_sentences, BucketSentenceIter
from .checkpoint import rnn_unroll, save_rnn_checkpoint, load_rnn_checkpoint, \
    do_rnn_checkpoint
from . import rnn_cell

__all__ = ['RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell',
           'SequentialRNNCell', 'BidirectionalCell', 'DropoutCell', 'ModifierCell',
           'ZoneoutCell', 'ResidualCell', 'BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell',
           'ConvGRUCell', 'encode_sentences', 'BucketSentenceIter',
           'rnn_unroll', 'save_rnn_checkpoint', 'load_rnn_checkpoint', 'do_rnn_checkpoint']
