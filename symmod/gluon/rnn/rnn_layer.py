"""Gluon's fused recurrent layers: RNN, LSTM and GRU.

Each layer keeps MXNet's per-layer Parameters (``l0_i2h_weight``, ``r1_h2h_bias``, ...)
and at run time joins them, flattened, into the flat vector of the fused ``RNN``
operator with ``_rnn_param_concat`` — the same graph MXNet 1.9.1 builds.
"""
import re

from ... import ndarray, symbol
from ..block import HybridBlock
from ..parameter import tensor_types

__all__ = ['RNN', 'LSTM', 'GRU']

_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}


class _RNNLayer(HybridBlock):
    """What the fused recurrent layers share: Parameters, states and the fused call."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan,
                 dtype, use_sequence_length=False, **kwargs):
        super(_RNNLayer, self).__init__(**kwargs)
        assert layout in ('TNC', 'NTC'), \
            "Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]

        gates, width, hidden = self._gates, input_size, hidden_size
        rec = hidden if self._projection_size is None else self._projection_size
        for i in range(num_layers):
            for j in ['l', 'r'][:self._dir]:
                self._register_param('%s%d_i2h_weight' % (j, i), (gates * hidden, width),
                                     i2h_weight_initializer, dtype)
                self._register_param('%s%d_h2h_weight' % (j, i), (gates * hidden, rec),
                                     h2h_weight_initializer, dtype)
                self._register_param('%s%d_i2h_bias' % (j, i), (gates * hidden,),
                                     i2h_bias_initializer, dtype)
                self._register_param('%s%d_h2h_bias' % (j, i), (gates * hidden,),
                                     h2h_bias_initializer, dtype)
                if self._projection_size is not None:
                    self._register_param('%s%d_h2r_weight' % (j, i), (rec, hidden),
                                         h2r_weight_initializer, dtype)
            width = rec * self._dir

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                                dtype=dtype)
        setattr(self, name, param)
        return param

    def __repr__(self):
        s = '{name}({mapping}, {_layout}'
        if self._num_layers != 1:
            s += ', num_layers={_num_layers}'
        if self._dropout != 0:
            s += ', dropout={_dropout}'
        if self._dir == 2:
            s += ', bidirectional'
        s += ')'
        shape = self.l0_i2h_weight.shape
        mapping = '{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0] // self._gates)
        return s.format(name=self.__class__.__name__, mapping=mapping, **self.__dict__)

    def _collect_params_with_prefix(self, prefix=''):
        # saved files use the names of the old unfused cell stack, as in MXNet
        if prefix:
            prefix += '.'
        pattern = re.compile(r'(l|r)(\d)_(i2h|h2h|h2r)_(weight|bias)\Z')
        bidirectional = any(pattern.match(k).group(1) == 'r' for k in self._reg_params)

        def convert_key(match):
            d, l, g, t = [match.group(i) for i in range(1, 5)]
            if bidirectional:
                return '_unfused.{}.{}_cell.{}_{}'.format(l, d, g, t)
            return '_unfused.{}.{}_{}'.format(l, g, t)

        ret = {prefix + convert_key(pattern.match(key)): val
               for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def state_info(self, batch_size=0):
        """One dict per state: shape (layers * directions, batch_size, size), layout
        ``'LNC'`` and dtype; an LSTM has the hidden state (projected when
        ``projection_size`` is set) and the cell state."""
        layers = self._num_layers * self._dir
        rec = self._hidden_size if self._projection_size is None else self._projection_size
        info = [{'shape': (layers, batch_size, rec), '__layout__': 'LNC',
                 'dtype': self._dtype}]
        if self._mode == 'lstm':
            info.append({'shape': (layers, batch_size, self._hidden_size),
                         '__layout__': 'LNC', 'dtype': self._dtype})
        return info

    def _unfuse(self):
        """The layer as a stack of step cells (HybridSequentialRNNCell) sharing its
        Parameters: ``l<i>_`` cells (and ``r<i>_`` ones in BidirectionalCells), with
        DropoutCells between layers when ``dropout`` is set."""
        assert not self._projection_size, '_unfuse does not support projection layer yet!'
        assert not self._lstm_state_clip_min and not self._lstm_state_clip_max, \
            '_unfuse does not support state clipping yet!'
        from . import cells, composite, modifiers

        def make_cell(prefix, input_size):
            kwargs = {'input_size': input_size, 'prefix': prefix,
                      'i2h_weight_initializer': self._i2h_weight_initializer,
                      'h2h_weight_initializer': self._h2h_weight_initializer,
                      'i2h_bias_initializer': self._i2h_bias_initializer,
                      'h2h_bias_initializer': self._h2h_bias_initializer}
            if self._mode in ('rnn_relu', 'rnn_tanh'):
                return cells.RNNCell(self._hidden_size, activation=self._mode[4:], **kwargs)
            cls = cells.LSTMCell if self._mode == 'lstm' else cells.GRUCell
            return cls(self._hidden_size, **kwargs)

        stack = composite.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            width = self._input_size
            for i in range(self._num_layers):
                if self._dir == 2:
                    stack.add(composite.BidirectionalCell(make_cell('l%d_' % i, width),
                                                          make_cell('r%d_' % i, width)))
                else:
                    stack.add(make_cell('l%d_' % i, width))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(modifiers.DropoutCell(self._dropout))
                width = self._hidden_size * self._dir
        return stack

    def cast(self, dtype):
        super(_RNNLayer, self).cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The initial states.

        Parameters
        ----------
        batch_size : int
            Batch size ('N' of the layout); needed for NDArray states.
        func : callable, default ndarray.zeros
            Makes each state from ``name``, ``shape``, ``__layout__``, ``dtype`` and
            ``kwargs``: ``ndarray.zeros``/``ndarray.ones``, or ``symbol.zeros`` /
            ``symbol.var`` for a symbolic graph.
        **kwargs
            More keyword arguments for ``func`` (``ctx``, ``dtype``, ...).

        Returns
        -------
        list
            The states, named ``<prefix>h0_<k>``.
        """
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            if info is not None:
                info.update(kwargs)
            else:
                info = kwargs
            states.append(func(name='%sh0_%d' % (self.prefix, i), **info))
        return states

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, ndarray.NDArray):
                batch_size = inputs.shape[self._layout.find('N')]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, tensor_types):
            states = [states]
        if self._use_sequence_length:
            return super(_RNNLayer, self).__call__(inputs, states, sequence_length, **kwargs)
        return super(_RNNLayer, self).__call__(inputs, states, **kwargs)

    def infer_shape(self, inputs, *args):
        """Set the Parameter shapes from the input (its 'C' axis is the input size)."""
        del args    # the states' shapes follow from the Parameters
        width = inputs.shape[self._layout.find('C')]
        for j in ['l', 'r'][:self._dir]:
            param = getattr(self, '%s0_i2h_weight' % j)
            param.shape = (param.shape[0], width)

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find('N')]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info['shape']:
                    raise ValueError('Invalid recurrent state shape. Expecting %s, got %s.'
                                     % (str(info['shape']), str(state.shape)))
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        # out is (output, states)
        return out[0] if self.skip_states else out

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        """Join the Parameters and run the fused operator."""
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, 0, 1)
        groups = ['i2h', 'h2h'] + (['h2r'] if self._projection_size is not None else [])
        params = [kwargs['{}{}_{}_{}'.format(d, l, g, t)].reshape(-1)
                  for t in ['weight', 'bias']
                  for l in range(self._num_layers)
                  for d in ['l', 'r'][:self._dir]
                  for g in groups
                  if g != 'h2r' or t != 'bias']
        params = F._internal._rnn_param_concat(*params, dim=0)
        rnn_args = list(states)
        if self._use_sequence_length:
            rnn_args.append(sequence_length)
        rnn = F.RNN(inputs, params, *rnn_args, use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2,
                    p=self._dropout, state_outputs=True, mode=self._mode,
                    lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max,
                    lstm_state_clip_nan=self._lstm_state_clip_nan)
        if self._mode == 'lstm':
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if self._layout == 'NTC':
            outputs = F.swapaxes(outputs, 0, 1)
        return outputs, states


class RNN(_RNNLayer):
    """A multi-layer Elman RNN with tanh or ReLU activation over a sequence::

        h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)

    Parameters
    ----------
    hidden_size : int
        Number of features of the hidden state.
    num_layers : int, default 1
        Number of stacked layers.
    activation : {'relu', 'tanh'}, default 'relu'
        The non-linearity.
    layout, dropout, bidirectional, i2h_weight_initializer, h2h_weight_initializer,
    i2h_bias_initializer, h2h_bias_initializer, input_size, dtype
        As for :class:`LSTM`.

    Inputs: ``data`` (T, N, C) in 'TNC', and optionally ``states``, a list with one
    (num_layers * directions, N, hidden_size) array. Outputs: ``out`` and, when
    ``states`` were given, the final states.

    Examples
    --------
    >>> layer = mx.gluon.rnn.RNN(100, 3)
    >>> layer.initialize()
    >>> out, hn = layer(mx.nd.ones((5, 3, 10)), mx.nd.zeros((3, 3, 100)))
    """

    def __init__(self, hidden_size, num_layers=1, activation='relu',
                 layout='TNC', dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 input_size=0, dtype='float32', **kwargs):
        super(RNN, self).__init__(hidden_size, num_layers, layout, dropout, bidirectional,
                                  input_size, i2h_weight_initializer, h2h_weight_initializer,
                                  i2h_bias_initializer, h2h_bias_initializer,
                                  'rnn_' + activation, None, None, None, None, False,
                                  dtype, **kwargs)


class LSTM(_RNNLayer):
    """A multi-layer long short-term memory (LSTM) RNN over a sequence (gates i, f, g, o
    as in MXNet's fused ``RNN`` operator).

    Parameters
    ----------
    hidden_size : int
        Number of features of the hidden state.
    num_layers : int, default 1
        Number of stacked layers.
    layout : {'TNC', 'NTC'}, default 'TNC'
        Layout of input and output (T: time, N: batch, C: features).
    dropout : float, default 0
        Dropout on the outputs of each layer but the last, in training.
    bidirectional : bool, default False
        Run each layer both ways (the output has ``2 * hidden_size`` features).
    input_size : int, default 0
        Number of input features; inferred at the first call when 0.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Initializers of the input-to-hidden and hidden-to-hidden weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    projection_size : int, optional
        Project the hidden state to this size (``h2r_weight``; inference only on CPU).
    h2r_weight_initializer : str or Initializer, optional
        Initializer of the projection weights.
    state_clip_min, state_clip_max : float, optional
        Cell state clipping (cuDNN only in MXNet; refused by the CPU operator).
    state_clip_nan : bool, default False
        Clip NaN cell states too.
    dtype : str, default 'float32'
        Parameter dtype.

    Inputs: ``data`` and optionally ``states`` = [h0, c0], each
    (num_layers * directions, N, hidden_size). Outputs: ``out`` and, when ``states``
    were given, [hn, cn].

    Examples
    --------
    >>> layer = mx.gluon.rnn.LSTM(100, 3)
    >>> layer.initialize()
    >>> out = layer(mx.nd.ones((5, 3, 10)))
    """

    def __init__(self, hidden_size, num_layers=1, layout='TNC',
                 dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False,
                 dtype='float32', **kwargs):
        super(LSTM, self).__init__(hidden_size, num_layers, layout, dropout, bidirectional,
                                   input_size, i2h_weight_initializer, h2h_weight_initializer,
                                   i2h_bias_initializer, h2h_bias_initializer,
                                   'lstm', projection_size, h2r_weight_initializer,
                                   state_clip_min, state_clip_max, state_clip_nan,
                                   dtype, **kwargs)


class GRU(_RNNLayer):
    """A multi-layer gated recurrent unit (GRU) RNN over a sequence, in cuDNN's variant
    (the reset gate scales ``W_hn h + b_hn``).

    Parameters are those of :class:`LSTM` without the projection and the state clipping
    (``hidden_size``, ``num_layers``, ``layout``, ``dropout``, ``bidirectional``,
    ``input_size``, the four initializers, ``dtype``).

    Examples
    --------
    >>> layer = mx.gluon.rnn.GRU(100, 3, layout='NTC')
    >>> layer.initialize()
    >>> layer(mx.nd.ones((2, 5, 10))).shape
    (2, 5, 100)
    """

    def __init__(self, hidden_size, num_layers=1, layout='TNC',
                 dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 dtype='float32', **kwargs):
        super(GRU, self).__init__(hidden_size, num_layers, layout, dropout, bidirectional,
                                  input_size, i2h_weight_initializer, h2h_weight_initializer,
                                  i2h_bias_initializer, h2h_bias_initializer,
                                  'gru', None, None, None, None, False,
                                  dtype, **kwargs)

