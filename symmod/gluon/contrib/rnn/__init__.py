"""``mx.gluon.contrib.rnn``: the convolutional recurrent cells (conv_rnn_cell.py), the
projected LSTM cell and variational dropout (these two live with the other cells, in
gluon/rnn/cells.py and modifiers.py) and ``rnn_cell.dynamic_unroll``."""
from ...rnn.cells import LSTMPCell
from ...rnn.modifiers import VariationalDropoutCell
from . import rnn_cell
from .conv_rnn_cell import (Conv1DRNNCell, Conv2DRNNCell, Conv3DRNNCell, Conv1DLSTMCell,
                            Conv2DLSTMCell, Conv3DLSTMCell, Conv1DGRUCell, Conv2DGRUCell,
                            Conv3DGRUCell)

__all__ = ['Conv1DRNNCell', 'Conv2DRNNCell', 'Conv3DRNNCell',
           'Conv1DLSTMCell', 'Conv2DLSTMCell', 'Conv3DLSTMCell',
           'Conv1DGRUCell', 'Conv2DGRUCell', 'Conv3DGRUCell',
           'VariationalDropoutCell', 'LSTMPCell']
