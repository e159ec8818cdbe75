"""The step cells RNNCell, LSTMCell, GRUCell and LSTMPCell (gluon.contrib's projected LSTM): HybridBlocks whose ``hybrid_forward``
uses the same operators as MXNet 1.9.1 (two FullyConnected, ``elemwise_*``,
``SliceChannel``, activations) with the same node names (``t<k>_i2h`` ...), so they
run on NDArrays, on Symbols and hybridized."""
from .base_cell import HybridRecurrentCell

__all__ = ['RNNCell', 'LSTMCell', 'GRUCell', 'LSTMPCell']


class _GatedCell(HybridRecurrentCell):
    """The Parameters, state shape and repr the step cells share: ``gates`` blocks of
    ``hidden_size`` rows in each of i2h/h2h weight and bias."""

    def __init__(self, hidden_size, gates, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params,
                 num_states=1):
        super(_GatedCell, self).__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._num_states = num_states
        rows = gates * hidden_size
        self.i2h_weight = self.params.get('i2h_weight', shape=(rows, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=(rows, hidden_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}
                for _ in range(self._num_states)]

    def _mapping(self):
        shape = self.i2h_weight.shape
        return '{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0])

    def __repr__(self):
        return '{name}({mapping})'.format(name=self.__class__.__name__,
                                          mapping=self._mapping())

    def _transforms(self, F, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                    prefix, gates):
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias,
                               num_hidden=self._hidden_size * gates, name=prefix + 'i2h')
        h2h = F.FullyConnected(data=state, weight=h2h_weight, bias=h2h_bias,
                               num_hidden=self._hidden_size * gates, name=prefix + 'h2h')
        return i2h, h2h


class RNNCell(_GatedCell):
    r"""Elman recurrent cell: ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    Parameters
    ----------
    hidden_size : int
        Number of features of the output and state.
    activation : str or callable, default 'tanh'
        'tanh', 'relu', 'sigmoid', 'softsign', another ``Activation`` act_type, a
        gluon ``nn.LeakyReLU`` or a function of ``(F-tensor, name=...)``.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Initializers of the input-to-hidden and hidden-to-hidden weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    input_size : int, default 0
        Number of input features; inferred at the first call when 0.
    prefix : str, optional
        Name prefix (``rnn<k>_`` when None).
    params : ParameterDict, optional
        Parameters to share.

    Inputs: ``data`` (N, C) and ``states``, a list with one (N, hidden_size) tensor.
    Outputs: ``out`` (N, hidden_size) and ``[out]``.

    Examples
    --------
    >>> cell = mx.gluon.rnn.RNNCell(8, activation='relu'); cell.initialize()
    >>> out, states = cell(mx.nd.ones((2, 5)), cell.begin_state(batch_size=2))
    >>> out.shape
    (2, 8)
    """

    def __init__(self, hidden_size, activation='tanh',
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super(RNNCell, self).__init__(hidden_size, 1, i2h_weight_initializer,
                                      h2h_weight_initializer, i2h_bias_initializer,
                                      h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return 'rnn'

    def __repr__(self):
        return '{name}({mapping}, {act})'.format(name=self.__class__.__name__,
                                                 mapping=self._mapping(),
                                                 act=self._activation)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._transforms(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                    h2h_bias, prefix, 1)
        i2h_plus_h2h = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
        output = self._get_activation(F, i2h_plus_h2h, self._activation, name=prefix + 'out')
        return output, [output]


class LSTMCell(_GatedCell):
    r"""Long short-term memory cell; the packed weights hold the gates in the order
    input, forget, candidate, output (as the fused ``RNN`` operator)::

        i, f, g, o = split(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh, 4)
        c_t = ract(f) * c_{t-1} + ract(i) * act(g)
        h_t = ract(o) * act(c_t)

    Parameters
    ----------
    hidden_size : int
        Number of features of the output and of both states (h and c).
    i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
    h2h_bias_initializer, input_size, params
        As for :class:`RNNCell`.
    prefix : str, optional
        Name prefix (``lstm<k>_`` when None).
    activation : str, default 'tanh'
        ``act`` above (an ``Activation`` act_type).
    recurrent_activation : str, default 'sigmoid'
        ``ract`` above, the gates' activation.

    Inputs: ``data`` (N, C) and ``states`` = [h, c], each (N, hidden_size). Outputs:
    ``out`` (N, hidden_size) and [h, c].

    Examples
    --------
    >>> cell = mx.gluon.rnn.LSTMCell(8); cell.initialize()
    >>> out, (h, c) = cell(mx.nd.ones((2, 5)), cell.begin_state(batch_size=2))
    >>> c.shape
    (2, 8)
    """

    def __init__(self, hidden_size,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None, activation='tanh',
                 recurrent_activation='sigmoid'):
        super(LSTMCell, self).__init__(hidden_size, 4, i2h_weight_initializer,
                                       h2h_weight_initializer, i2h_bias_initializer,
                                       h2h_bias_initializer, input_size, prefix, params,
                                       num_states=2)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return 'lstm'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._transforms(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                    h2h_bias, prefix, 4)
        gates = F.elemwise_add(i2h, h2h, name=prefix + 'plus0')
        slices = F.SliceChannel(gates, num_outputs=4, name=prefix + 'slice')
        ract, act = self._recurrent_activation, self._activation
        in_gate = self._get_activation(F, slices[0], ract, name=prefix + 'i')
        forget_gate = self._get_activation(F, slices[1], ract, name=prefix + 'f')
        in_transform = self._get_activation(F, slices[2], act, name=prefix + 'c')
        out_gate = self._get_activation(F, slices[3], ract, name=prefix + 'o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + 'mul0'),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + 'mul1'),
                                name=prefix + 'state')
        # MXNet squashes the new cell state with Activation(act_type=activation)
        squashed = F.Activation(next_c, act_type=act, name=prefix + 'activation0')
        next_h = F.elemwise_mul(out_gate, squashed, name=prefix + 'out')
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    r"""Gated recurrent unit cell, cuDNN's variant (the reset gate scales
    ``W_hn h + b_hn``); the packed weights hold the gates in the order reset, update,
    new::

        r = sigmoid(i2h_r + h2h_r);  z = sigmoid(i2h_z + h2h_z)
        n = tanh(i2h_n + r * h2h_n)
        h_t = (1 - z) * n + z * h_{t-1}

    Parameters
    ----------
    hidden_size : int
        Number of features of the output and state.
    i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
    h2h_bias_initializer, input_size, params
        As for :class:`RNNCell`.
    prefix : str, optional
        Name prefix (``gru<k>_`` when None).

    Examples
    --------
    >>> cell = mx.gluon.rnn.GRUCell(8); cell.initialize()
    >>> out, states = cell(mx.nd.ones((2, 5)), cell.begin_state(batch_size=2))
    """

    def __init__(self, hidden_size,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super(GRUCell, self).__init__(hidden_size, 3, i2h_weight_initializer,
                                      h2h_weight_initializer, i2h_bias_initializer,
                                      h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return 'gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        prev_h = states[0]
        i2h, h2h = self._transforms(F, inputs, prev_h, i2h_weight, h2h_weight, i2h_bias,
                                    h2h_bias, prefix, 3)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + 'i2h_slice')
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + 'h2h_slice')
        reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + 'plus0'),
                                  act_type='sigmoid', name=prefix + 'r_act')
        update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + 'plus1'),
                                   act_type='sigmoid', name=prefix + 'z_act')
        candidate = F.Activation(
            F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + 'mul0'),
                           name=prefix + 'plus2'),
            act_type='tanh', name=prefix + 'h_act')
        ones = F.ones_like(update_gate, name=prefix + 'ones_like0')
        keep_new = F.elemwise_sub(ones, update_gate, name=prefix + 'minus0')
        next_h = F.elemwise_add(F.elemwise_mul(keep_new, candidate, name=prefix + 'mul1'),
                                F.elemwise_mul(update_gate, prev_h, name=prefix + 'mul20'),
                                name=prefix + 'out')
        return next_h, [next_h]


class LSTMPCell(HybridRecurrentCell):
    r"""LSTM cell with a projection of the hidden output (Sak et al. 2014, MXNet's
    ``gluon.contrib.rnn.LSTMPCell``). The recurrent state fed back is the projection
    ``r`` rather than ``h``::

        i, f, g, o = split(W_ih x_t + b_ih + W_hr r_{t-1} + b_hh, 4)
        c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g)
        h_t = sigmoid(o) * tanh(c_t)
        r_t = W_rh h_t            (h2r_weight, no bias)

    Parameters
    ----------
    hidden_size : int
        Number of features of the cell state ``c`` (and of ``h``).
    projection_size : int
        Number of features of the output and of the recurrent state ``r``.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Initializers of the input-to-hidden (4*hidden_size, input_size) and
        projection-to-hidden (4*hidden_size, projection_size) weights.
    h2r_weight_initializer : str or Initializer, optional
        Initializer of the projection weight (projection_size, hidden_size).
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    input_size : int, default 0
        Number of input features; inferred at the first call when 0.
    prefix : str, optional
        Name prefix (``lstmp<k>_`` when None).
    params : ParameterDict, optional
        Parameters to share.

    Inputs: ``data`` (N, C) and ``states`` = [r (N, projection_size), c (N, hidden_size)].
    Outputs: ``out`` = r_t (N, projection_size) and [r_t, c_t].

    Examples
    --------
    >>> cell = mx.gluon.contrib.rnn.LSTMPCell(8, 3); cell.initialize()
    >>> out, (r, c) = cell(mx.nd.ones((2, 5)), cell.begin_state(batch_size=2))
    >>> out.shape, c.shape
    ((2, 3), (2, 8))
    """

    def __init__(self, hidden_size, projection_size,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, prefix=None, params=None):
        super(LSTMPCell, self).__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        rows = 4 * hidden_size
        # registered in MXNet's order, which is the order of hybrid_forward's arguments
        self.i2h_weight = self.params.get('i2h_weight', shape=(rows, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=(rows, projection_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2r_weight = self.params.get('h2r_weight', shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._projection_size), '__layout__': 'NC'},
                {'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}]

    def _alias(self):
        return 'lstmp'

    def __repr__(self):
        shape = self.i2h_weight.shape
        return '{name}({inp} -> {hidden} -> {proj})'.format(
            name=self.__class__.__name__, inp=shape[1] if shape[1] else None,
            hidden=shape[0], proj=self.h2r_weight.shape[0])

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight,
                       i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        rows = 4 * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias,
                               num_hidden=rows, name=prefix + 'i2h')
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias,
                               num_hidden=rows, name=prefix + 'h2h')
        # MXNet uses the operators here (unnamed _plus/_mul nodes in a graph)
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + 'slice')
        in_gate = F.Activation(gates[0], act_type='sigmoid', name=prefix + 'i')
        forget_gate = F.Activation(gates[1], act_type='sigmoid', name=prefix + 'f')
        in_transform = F.Activation(gates[2], act_type='tanh', name=prefix + 'c')
        out_gate = F.Activation(gates[3], act_type='sigmoid', name=prefix + 'o')
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform,
                                name=prefix + 'state')
        hidden = F.elemwise_mul(out_gate, F.Activation(next_c, act_type='tanh'),
                                name=prefix + 'hidden')
        next_r = F.FullyConnected(data=hidden, weight=h2r_weight, no_bias=True,
                                  num_hidden=self._projection_size, name=prefix + 'out')
        return next_r, [next_r, next_c]
