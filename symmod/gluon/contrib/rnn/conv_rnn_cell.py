"""Convolutional recurrent cells (``gluon.contrib.rnn``): Conv1D/2D/3D RNN, LSTM and GRU
cells, whose input-to-hidden and hidden-to-hidden transforms are convolutions instead
of dense products (Shi et al., 2015). Parameter names, gate order and graph node names
(``t<k>_i2h``, ``t<k>_h2h``, ``t<k>_slice`` ...) are MXNet 1.9.1's.

The hidden-to-hidden kernel must have odd sizes: it is padded to keep the state's
spatial shape, which is the shape the input convolution produces.
"""
from ....base import numeric_types
from ...rnn.base_cell import HybridRecurrentCell

__all__ = ['Conv1DRNNCell', 'Conv2DRNNCell', 'Conv3DRNNCell',
           'Conv1DLSTMCell', 'Conv2DLSTMCell', 'Conv3DLSTMCell',
           'Conv1DGRUCell', 'Conv2DGRUCell', 'Conv3DGRUCell']


def _conv_out_size(dimensions, kernels, pads, dilates):
    """Spatial output sizes of a stride-1 convolution (0 stays 0: not known yet)."""
    return tuple((x + 2 * p - d * (k - 1) - 1) + 1 if x else 0
                 for x, k, p, d in zip(dimensions, kernels, pads, dilates))


def _as_tuple(spec, dims, what):
    if isinstance(spec, numeric_types):
        return (int(spec),) * dims
    spec = tuple(spec)
    assert len(spec) == dims, ('For {dims}D convolution, the convolution settings can only be '
                               'either int or list/tuple of length {dims}: {what}={spec}'
                               .format(dims=dims, what=what, spec=spec))
    return spec


class _ConvCell(HybridRecurrentCell):
    """What the convolutional cells share: the four Parameters, the state shape, the two
    convolutions. Subclasses set ``_gate_names`` and the step arithmetic."""
    _gate_names = ()
    _num_states = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                 i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, dims, conv_layout, activation,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        self._i2h_kernel = _as_tuple(i2h_kernel, dims, 'i2h_kernel')
        self._stride = (1,) * dims
        self._i2h_pad = _as_tuple(i2h_pad, dims, 'i2h_pad')
        self._i2h_dilate = _as_tuple(i2h_dilate, dims, 'i2h_dilate')
        self._h2h_kernel = _as_tuple(h2h_kernel, dims, 'h2h_kernel')
        assert all(k % 2 == 1 for k in self._h2h_kernel), \
            'Only support odd number, get h2h_kernel= %s' % str(h2h_kernel)
        self._h2h_dilate = _as_tuple(h2h_dilate, dims, 'h2h_dilate')
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate,
                                                               self._h2h_kernel))
        self._channel_axis = conv_layout.find('C')
        channels_first = self._channel_axis == 1
        in_channels = self._input_shape[self._channel_axis - 1]
        spatial = self._input_shape[1:] if channels_first else self._input_shape[:-1]
        out_size = _conv_out_size(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate)
        rows = hidden_channels * len(self._gate_names)
        if channels_first:
            i2h_shape = (rows, in_channels) + self._i2h_kernel
            h2h_shape = (rows, hidden_channels) + self._h2h_kernel
            self._state_shape = (hidden_channels,) + out_size
        else:
            i2h_shape = (rows,) + self._i2h_kernel + (in_channels,)
            h2h_shape = (rows,) + self._h2h_kernel + (hidden_channels,)
            self._state_shape = out_size + (hidden_channels,)
        self._in_channels = in_channels
        self.i2h_weight = self.params.get('i2h_weight', shape=i2h_shape,
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=h2h_shape,
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size,) + self._state_shape, '__layout__': self._conv_layout}
                for _ in range(self._num_states)]

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return '{name}({inc} -> {outc}, {act}, {layout})'.format(
            name=self.__class__.__name__, inc=in_channels if in_channels else None,
            outc=shape[0], act=self._activation, layout=self._conv_layout)

    def _conv_forward(self, F, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                      prefix):
        filters = self._hidden_channels * len(self._gate_names)
        i2h = F.Convolution(data=inputs, num_filter=filters, kernel=self._i2h_kernel,
                            stride=self._stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                            weight=i2h_weight, bias=i2h_bias, layout=self._conv_layout,
                            name=prefix + 'i2h')
        h2h = F.Convolution(data=state, num_filter=filters, kernel=self._h2h_kernel,
                            dilate=self._h2h_dilate, pad=self._h2h_pad, stride=self._stride,
                            weight=h2h_weight, bias=h2h_bias, layout=self._conv_layout,
                            name=prefix + 'h2h')
        return i2h, h2h


class _ConvRNNCell(_ConvCell):
    _gate_names = ('',)

    def _alias(self):
        return 'conv_rnn'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        output = self._get_activation(F, i2h + h2h, self._activation, name=prefix + 'out')
        return output, [output]


class _ConvLSTMCell(_ConvCell):
    _gate_names = ('_i', '_f', '_c', '_o')
    _num_states = 2

    def _alias(self):
        return 'conv_lstm'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + 'slice',
                               axis=self._channel_axis)
        in_gate = F.Activation(gates[0], act_type='sigmoid', name=prefix + 'i')
        forget_gate = F.Activation(gates[1], act_type='sigmoid', name=prefix + 'f')
        in_transform = self._get_activation(F, gates[2], self._activation, name=prefix + 'c')
        out_gate = F.Activation(gates[3], act_type='sigmoid', name=prefix + 'o')
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform,
                                name=prefix + 'state')
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation),
                                name=prefix + 'out')
        return next_h, [next_h, next_c]


class _ConvGRUCell(_ConvCell):
    _gate_names = ('_r', '_z', '_o')

    def _alias(self):
        return 'conv_gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = 't%d_' % self._counter
        i2h, h2h = self._conv_forward(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + 'i2h_slice',
                                           axis=self._channel_axis)
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + 'h2h_slice',
                                           axis=self._channel_axis)
        reset_gate = F.Activation(i2h_r + h2h_r, act_type='sigmoid', name=prefix + 'r_act')
        update_gate = F.Activation(i2h_z + h2h_z, act_type='sigmoid', name=prefix + 'z_act')
        candidate = self._get_activation(F, i2h + reset_gate * h2h, self._activation,
                                         name=prefix + 'h_act')
        next_h = F.elemwise_add((1. - update_gate) * candidate, update_gate * states[0],
                                name=prefix + 'out')
        return next_h, [next_h]


def _doc(dims, kind):
    layout, example = {1: ('NCW', '(C, W)'), 2: ('NCHW', '(C, H, W)'),
                       3: ('NCDHW', '(C, D, H, W)')}[dims]
    states = '[h, c]' if kind == 'LSTM' else '[h]'
    return """{dims}D convolutional {kind} cell.

    Parameters
    ----------
    input_shape : tuple of int
        Shape of one step's input for one sample (no batch axis), in ``conv_layout``:
        ``{example}`` for '{layout}'.
    hidden_channels : int
        Channels of the state and the output.
    i2h_kernel, h2h_kernel : int or tuple of int
        Kernel sizes of the input and recurrent convolutions (h2h: odd sizes only).
    i2h_pad, i2h_dilate, h2h_dilate : int or tuple of int
        Padding and dilation of the convolutions (the recurrent one is padded to keep
        the state's shape).
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
    conv_layout : str, default '{layout}'
        Layout of inputs, states and weights ('{layout}' or channels last).
    activation : str or Block, default 'tanh'
        Activation of the output (RNN) or of the candidate (LSTM, GRU).
    prefix : str, optional
        Name prefix (``conv_{alias}<k>_`` when None).
    params : ParameterDict, optional
        Parameters to share.

    Inputs: ``data`` (batch,) + input_shape and ``states`` {states}, each (batch,) + the
    state shape. Outputs: the new hidden state and the new states.
    """.format(dims=dims, kind=kind, layout=layout, example=example, states=states,
               alias=kind.lower())

class Conv1DRNNCell(_ConvRNNCell):
    __doc__ = _doc(1, 'RNN')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0,), i2h_dilate=(1,), h2h_dilate=(1,),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         1, conv_layout, activation, prefix=prefix, params=params)


class Conv2DRNNCell(_ConvRNNCell):
    __doc__ = _doc(2, 'RNN')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0), i2h_dilate=(1, 1), h2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCHW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         2, conv_layout, activation, prefix=prefix, params=params)


class Conv3DRNNCell(_ConvRNNCell):
    __doc__ = _doc(3, 'RNN')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0, 0), i2h_dilate=(1, 1, 1), h2h_dilate=(1, 1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCDHW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         3, conv_layout, activation, prefix=prefix, params=params)


class Conv1DLSTMCell(_ConvLSTMCell):
    __doc__ = _doc(1, 'LSTM')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0,), i2h_dilate=(1,), h2h_dilate=(1,),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         1, conv_layout, activation, prefix=prefix, params=params)


class Conv2DLSTMCell(_ConvLSTMCell):
    __doc__ = _doc(2, 'LSTM')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0), i2h_dilate=(1, 1), h2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCHW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         2, conv_layout, activation, prefix=prefix, params=params)


class Conv3DLSTMCell(_ConvLSTMCell):
    __doc__ = _doc(3, 'LSTM')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0, 0), i2h_dilate=(1, 1, 1), h2h_dilate=(1, 1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCDHW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         3, conv_layout, activation, prefix=prefix, params=params)


class Conv1DGRUCell(_ConvGRUCell):
    __doc__ = _doc(1, 'GRU')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0,), i2h_dilate=(1,), h2h_dilate=(1,),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         1, conv_layout, activation, prefix=prefix, params=params)


class Conv2DGRUCell(_ConvGRUCell):
    __doc__ = _doc(2, 'GRU')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0), i2h_dilate=(1, 1), h2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCHW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         2, conv_layout, activation, prefix=prefix, params=params)


class Conv3DGRUCell(_ConvGRUCell):
    __doc__ = _doc(3, 'GRU')

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0, 0), i2h_dilate=(1, 1, 1), h2h_dilate=(1, 1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 conv_layout='NCDHW', activation='tanh', prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         3, conv_layout, activation, prefix=prefix, params=params)
