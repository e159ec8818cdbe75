"""``gluon.rnn``: the fused recurrent layers RNN, LSTM and GRU (one ``RNN`` operator
for all layers, directions and time steps)."""
from .rnn_layer import RNN, LSTM, GRU

__all__ = ['RNN', 'LSTM', 'GRU']
