"""The step-by-step cells: RNNCell (Elman), LSTMCell and GRUCell.

Each step is built from the same operators as MXNet's cells (one FullyConnected for
the input and one for the state, a SliceChannel into gates, activations and
elementwise products), with MXNet's node names, so graphs, checkpoints and numbers
line up with MXNet's.
"""
from .. import symbol, initializer
from .base_cell import BaseRNNCell

__all__ = ['RNNCell', 'LSTMCell', 'GRUCell']


def lstm_update(cell, gates, prev_c, name, activation):
    """The LSTM state update from the four sliced gates (input, forget, candidate,
    output); ``activation`` squashes the candidate and the new cell state.

    Returns ``(next_h, [next_h, next_c])``. Shared with :class:`ConvLSTMCell`.
    """
    in_gate = symbol.Activation(gates[0], act_type='sigmoid', name='%si' % name)
    forget_gate = symbol.Activation(gates[1], act_type='sigmoid', name='%sf' % name)
    in_transform = cell._get_activation(gates[2], activation, name='%sc' % name)
    out_gate = symbol.Activation(gates[3], act_type='sigmoid', name='%so' % name)
    next_c = symbol._internal._plus(forget_gate * prev_c, in_gate * in_transform,
                                    name='%sstate' % name)
    next_h = symbol._internal._mul(out_gate, cell._get_activation(next_c, activation),
                                   name='%sout' % name)
    return next_h, [next_h, next_c]


def gru_update(cell, i2h, h2h, prev_h, name, activation):
    """The GRU state update from the i2h and h2h transforms (each holding the r, z and
    candidate parts); ``activation`` squashes the candidate.

    Returns ``(next_h, [next_h])``. Shared with :class:`ConvGRUCell`.
    """
    i2h_r, i2h_z, i2h_o = symbol.SliceChannel(i2h, num_outputs=3, name='%s_i2h_slice' % name)
    h2h_r, h2h_z, h2h_o = symbol.SliceChannel(h2h, num_outputs=3, name='%s_h2h_slice' % name)
    reset_gate = symbol.Activation(i2h_r + h2h_r, act_type='sigmoid', name='%s_r_act' % name)
    update_gate = symbol.Activation(i2h_z + h2h_z, act_type='sigmoid', name='%s_z_act' % name)
    candidate = cell._get_activation(i2h_o + reset_gate * h2h_o, activation,
                                     name='%s_h_act' % name)
    next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * prev_h,
                                    name='%sout' % name)
    return next_h, [next_h]


class RNNCell(BaseRNNCell):
    """Simple recurrent cell: ``h_t = act(W_i x_t + b_i + W_h h_{t-1} + b_h)``.

    Parameters
    ----------
    num_hidden : int
        Size of the output and state.
    activation : str or callable, default 'tanh'
        An ``Activation`` act_type ('tanh', 'relu', ...) or a symbol function
        called as ``activation(x, name=...)``.
    prefix : str, default ``'rnn_'``
        Prefix of node names (and of the weights when ``params`` is None).
    params : RNNParams, optional
        Weight container to share weights; a new one if None.

    Examples
    --------
    >>> cell = mx.rnn.RNNCell(10, prefix='rnn_')
    >>> outputs, states = cell.unroll(3, mx.sym.var('data'))
    >>> [o.name for o in outputs]
    ['rnn_t0_out', 'rnn_t1_out', 'rnn_t2_out']
    """

    def __init__(self, num_hidden, activation='tanh', prefix='rnn_', params=None):
        super(RNNCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias')
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'}]

    @property
    def _gate_names(self):
        return ('',)

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden, name='%si2h' % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden, name='%sh2h' % name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class LSTMCell(BaseRNNCell):
    """Long short-term memory cell.

    The packed i2h/h2h weights hold the gates in the order input, forget, cell
    candidate, output (``_i _f _c _o`` in :meth:`unpack_weights`)::

        i, f, c~, o = split(W_i x_t + b_i + W_h h_{t-1} + b_h, 4)
        c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(c~)
        h_t = sigmoid(o) * tanh(c_t)

    Parameters
    ----------
    num_hidden : int
        Size of the output and of both states (h and c).
    prefix : str, default ``'lstm_'``
        Prefix of node names (and of the weights when ``params`` is None).
    params : RNNParams, optional
        Weight container to share weights; a new one if None.
    forget_bias : float, default 1.0
        Initial value of the forget gate's part of ``i2h_bias`` (through the
        variable's ``LSTMBias`` initializer; Jozefowicz et al. 2015).

    Examples
    --------
    >>> cell = mx.rnn.LSTMCell(200, prefix='lstm_')
    >>> outputs, states = cell.unroll(5, mx.sym.var('data'), merge_outputs=True)
    >>> outputs.list_arguments()
    ['data', 'lstm_i2h_weight', 'lstm_i2h_bias', 'lstm_h2h_weight', 'lstm_h2h_bias']
    """

    def __init__(self, num_hidden, prefix='lstm_', params=None, forget_bias=1.0):
        super(LSTMCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._hW = self.params.get('h2h_weight')
        # the forget bias lives in i2h_bias, set by the variable's initializer
        self._iB = self.params.get('i2h_bias',
                                   init=initializer.LSTMBias(forget_bias=forget_bias))
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'},
                {'shape': (0, self._num_hidden), '__layout__': 'NC'}]

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden * 4, name='%si2h' % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden * 4, name='%sh2h' % name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name='%sslice' % name)
        return lstm_update(self, gates, states[1], name, 'tanh')


class GRUCell(BaseRNNCell):
    """Gated recurrent unit, in cuDNN's variant (the reset gate scales the
    transformed state ``W_h h + b_h``, not the state itself)::

        r = sigmoid(i2h_r + h2h_r)
        z = sigmoid(i2h_z + h2h_z)
        h~ = tanh(i2h_o + r * h2h_o)
        h_t = (1 - z) * h~ + z * h_{t-1}

    The packed weights hold the gates in the order ``_r _z _o``.

    Parameters
    ----------
    num_hidden : int
        Size of the output and state.
    prefix : str, default ``'gru_'``
        Prefix of node names (and of the weights when ``params`` is None).
    params : RNNParams, optional
        Weight container to share weights; a new one if None.

    Examples
    --------
    >>> cell = mx.rnn.GRUCell(50, prefix='gru_')
    >>> outputs, states = cell.unroll(4, mx.sym.var('data'), layout='TNC')
    """

    def __init__(self, num_hidden, prefix='gru_', params=None):
        super(GRUCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._iW = self.params.get('i2h_weight')
        self._iB = self.params.get('i2h_bias')
        self._hW = self.params.get('h2h_weight')
        self._hB = self.params.get('h2h_bias')

    @property
    def state_info(self):
        return [{'shape': (0, self._num_hidden), '__layout__': 'NC'}]

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        # MXNet's GRU names its nodes '<prefix>t<k>__i2h' etc. (double underscore)
        name = '%st%d_' % (self._prefix, self._counter)
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB,
                                    num_hidden=self._num_hidden * 3, name='%s_i2h' % name)
        h2h = symbol.FullyConnected(data=states[0], weight=self._hW, bias=self._hB,
                                    num_hidden=self._num_hidden * 3, name='%s_h2h' % name)
        return gru_update(self, i2h, h2h, states[0], name, 'tanh')
