"""``mx.gluon.contrib``: MXNet's contributed gluon blocks; here the recurrent cells of
``gluon.contrib.rnn`` (LSTMPCell, VariationalDropoutCell)."""
from . import rnn

__all__ = ['rnn']
