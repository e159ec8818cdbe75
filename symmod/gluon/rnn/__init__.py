"""``gluon.rnn``: the fused recurrent layers RNN, LSTM and GRU (one ``RNN`` operator
for all layers, directions and time steps)."""
from .rnn_layer import RNN, LSTM, GRU
from .rnn_cell import (RecurrentCell, HybridRecurrentCell, RNNCell, LSTMCell, GRUCell,
                       SequentialRNNCell, HybridSequentialRNNCell, DropoutCell,
                       ModifierCell, ZoneoutCell, ResidualCell, BidirectionalCell)

__all__ = ['RNN', 'LSTM', 'GRU', 'RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell',
           'GRUCell', 'SequentialRNNCell', 'HybridSequentialRNNCell', 'DropoutCell',
           'ModifierCell', 'ZoneoutCell', 'ResidualCell', 'BidirectionalCell']
