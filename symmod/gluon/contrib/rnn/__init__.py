"""``mx.gluon.contrib.rnn``: the projected LSTM cell and variational dropout. They live
with the other cells (gluon/rnn/cells.py and modifiers.py); this is MXNet's path to
them."""
from ...rnn.cells import LSTMPCell
from ...rnn.modifiers import VariationalDropoutCell

__all__ = ['VariationalDropoutCell', 'LSTMPCell']
