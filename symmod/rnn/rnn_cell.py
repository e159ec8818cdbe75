"""MXNet's module path ``mxnet.rnn.rnn_cell``: the cells, for code that imports
them from there (``from mxnet.rnn.rnn_cell import BaseRNNCell``)."""
from .params import RNNParams
from .base_cell import BaseRNNCell
from .cells import RNNCell, LSTMCell, GRUCell
from .composite import SequentialRNNCell, BidirectionalCell
from .modifiers import DropoutCell, ModifierCell, ZoneoutCell, ResidualCell
from .conv_cells import BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell
from .fused_cell import FusedRNNCell

__all__ = ['RNNParams', 'BaseRNNCell', 'RNNCell', 'LSTMCell', 'GRUCell',
           'SequentialRNNCell', 'BidirectionalCell', 'DropoutCell', 'ModifierCell',
           'ZoneoutCell', 'ResidualCell', 'BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell',
           'ConvGRUCell', 'FusedRNNCell']
