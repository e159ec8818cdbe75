"""``gluon.rnn``: the fused recurrent layers RNN, LSTM and GRU (one ``RNN`` operator
for all layers, directions and time steps) and the recurrent cells (one step per call:
base_cell.py, cells.py, composite.py, modifiers.py; ``rnn_cell`` re-exports them under
MXNet's module path)."""
from .rnn_layer import RNN, LSTM, GRU
from .base_cell import RecurrentCell, HybridRecurrentCell
from .cells import RNNCell, LSTMCell, GRUCell, LSTMPCell
from .composite import SequentialRNNCell, HybridSequentialRNNCell, BidirectionalCell
from .modifiers import (DropoutCell, ModifierCell, ZoneoutCell, ResidualCell,
                        VariationalDropoutCell)
from . import rnn_cell

__all__ = ['RNN', 'LSTM', 'GRU', 'RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell',
           'GRUCell', 'SequentialRNNCell', 'HybridSequentialRNNCell', 'DropoutCell',
           'ModifierCell', 'ZoneoutCell', 'ResidualCell', 'BidirectionalCell', 'LSTMPCell',
           'VariationalDropoutCell']
