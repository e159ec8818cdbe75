"""MXNet's module path ``mxnet.gluon.rnn.rnn_cell``: the recurrent cells, for code that
imports them from there (``from mxnet.gluon.rnn.rnn_cell import LSTMCell``). They live
in base_cell.py, cells.py, composite.py and modifiers.py; sequence.py holds the
sequence helpers."""
from .base_cell import RecurrentCell, HybridRecurrentCell
from .cells import RNNCell, LSTMCell, GRUCell
from .composite import SequentialRNNCell, HybridSequentialRNNCell, BidirectionalCell
from .modifiers import DropoutCell, ModifierCell, ZoneoutCell, ResidualCell
from .sequence import (_cells_begin_state, _cells_state_info, _format_sequence,  # noqa: F401
                       _get_begin_state, _mask_sequence_variable_length, _reverse_sequences)

__all__ = ['RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell', 'GRUCell',
           'SequentialRNNCell', 'HybridSequentialRNNCell', 'DropoutCell', 'ModifierCell',
           'ZoneoutCell', 'ResidualCell', 'BidirectionalCell']
