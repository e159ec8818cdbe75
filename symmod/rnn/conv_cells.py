"""Convolutional recurrent cells (ConvRNN, ConvLSTM, ConvGRU): the i2h and h2h
transforms are convolutions over image-shaped inputs and states (Shi et al. 2015)."""
import functools

from .. import symbol
from .base_cell import BaseRNNCell
from .cells import gru_update, lstm_update

__all__ = ['BaseConvRNNCell', 'ConvRNNCell', 'ConvLSTMCell', 'ConvGRUCell']

_LEAKY = functools.partial(symbol.LeakyReLU, act_type='leaky', slope=0.2)


class BaseConvRNNCell(BaseRNNCell):
    """Base class of the convolutional cells: holds the convolution settings, infers
    the state shape from ``input_shape`` and builds the i2h / h2h convolutions.

    The h2h convolution keeps the state's spatial size, so its kernel must be odd
    (it is padded by ``dilate * (kernel - 1) // 2``). See :class:`ConvRNNCell` for
    the parameters.
    """

    def __init__(self, input_shape, num_hidden,
                 h2h_kernel, h2h_dilate,
                 i2h_kernel, i2h_stride,
                 i2h_pad, i2h_dilate,
                 i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer,
                 activation, prefix='', params=None, conv_layout='NCHW'):
        super(BaseConvRNNCell, self).__init__(prefix=prefix, params=params)
        self._h2h_kernel = h2h_kernel
        assert (self._h2h_kernel[0] % 2 == 1) and (self._h2h_kernel[1] % 2 == 1), \
            "Only support odd number, get h2h_kernel= %s" % str(h2h_kernel)
        self._h2h_pad = (h2h_dilate[0] * (h2h_kernel[0] - 1) // 2,
                         h2h_dilate[1] * (h2h_kernel[1] - 1) // 2)
        self._h2h_dilate = h2h_dilate
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation

        # the state has the shape of the i2h convolution's output, batch left open
        probe = symbol.Convolution(data=symbol.Variable('data'), num_filter=num_hidden,
                                   kernel=i2h_kernel, stride=i2h_stride, pad=i2h_pad,
                                   dilate=i2h_dilate, layout=conv_layout)
        state_shape = probe.infer_shape(data=input_shape)[1][0]
        self._state_shape = (0,) + tuple(state_shape[1:])

        self._iW = self.params.get('i2h_weight', init=i2h_weight_initializer)
        self._hW = self.params.get('h2h_weight', init=h2h_weight_initializer)
        self._iB = self.params.get('i2h_bias', init=i2h_bias_initializer)
        self._hB = self.params.get('h2h_bias', init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{'shape': self._state_shape, '__layout__': self._conv_layout},
                {'shape': self._state_shape, '__layout__': self._conv_layout}]

    def _conv_forward(self, inputs, states, name):
        filters = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name='%si2h' % name, data=inputs, num_filter=filters,
                                 kernel=self._i2h_kernel, stride=self._i2h_stride,
                                 pad=self._i2h_pad, dilate=self._i2h_dilate,
                                 weight=self._iW, bias=self._iB, layout=self._conv_layout)
        h2h = symbol.Convolution(name='%sh2h' % name, data=states[0], num_filter=filters,
                                 kernel=self._h2h_kernel, dilate=self._h2h_dilate,
                                 pad=self._h2h_pad, stride=(1, 1),
                                 weight=self._hW, bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def __call__(self, inputs, states):
        raise NotImplementedError("BaseConvRNNCell is abstract class for convolutional RNN")


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional simple RNN cell: ``h_t = act(conv_i(x_t) + conv_h(h_{t-1}))``.

    Parameters
    ----------
    input_shape : tuple of int
        Shape of one step's input, e.g. (batch, channels, height, width).
    num_hidden : int
        Number of channels of the state and output.
    h2h_kernel : tuple of int, default (3, 3)
        Kernel of the state-to-state convolution (odd sizes only).
    h2h_dilate : tuple of int, default (1, 1)
        Dilation of the state-to-state convolution.
    i2h_kernel : tuple of int, default (3, 3)
        Kernel of the input-to-state convolution.
    i2h_stride : tuple of int, default (1, 1)
        Stride of the input-to-state convolution.
    i2h_pad : tuple of int, default (1, 1)
        Padding of the input-to-state convolution.
    i2h_dilate : tuple of int, default (1, 1)
        Dilation of the input-to-state convolution.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Initializers of the convolution weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the biases.
    activation : str or callable, default LeakyReLU with slope 0.2
        An ``Activation`` act_type or a symbol function.
    prefix : str, default ``'ConvRNN_'``
        Prefix of node names (and of the weights when ``params`` is None).
    params : RNNParams, optional
        Weight container to share weights.
    conv_layout : str, default 'NCHW'
        Layout of the convolutions (and of inputs and states).

    Examples
    --------
    >>> cell = mx.rnn.ConvRNNCell(input_shape=(1, 3, 16, 16), num_hidden=8)
    >>> outputs, states = cell.unroll(4, mx.sym.var('data'), layout='TNC')
    """

    def __init__(self, input_shape, num_hidden,
                 h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1),
                 i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 activation=_LEAKY, prefix='ConvRNN_', params=None, conv_layout='NCHW'):
        super(ConvRNNCell, self).__init__(
            input_shape=input_shape, num_hidden=num_hidden,
            h2h_kernel=h2h_kernel, h2h_dilate=h2h_dilate,
            i2h_kernel=i2h_kernel, i2h_stride=i2h_stride,
            i2h_pad=i2h_pad, i2h_dilate=i2h_dilate,
            i2h_weight_initializer=i2h_weight_initializer,
            h2h_weight_initializer=h2h_weight_initializer,
            i2h_bias_initializer=i2h_bias_initializer,
            h2h_bias_initializer=h2h_bias_initializer,
            activation=activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ('',)

    @property
    def state_info(self):
        return [{'shape': self._state_shape, '__layout__': self._conv_layout}]

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name='%sout' % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM cell (Shi et al., NIPS 2015): an :class:`LSTMCell` whose
    transforms are convolutions; gates ``_i _f _c _o`` are split along channels, and
    ``activation`` replaces tanh for the candidate and the output.

    Parameters are those of :class:`ConvRNNCell`; ``prefix`` defaults to
    ``'ConvLSTM_'``.
    """

    def __init__(self, input_shape, num_hidden,
                 h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1),
                 i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 activation=_LEAKY, prefix='ConvLSTM_', params=None, conv_layout='NCHW'):
        super(ConvLSTMCell, self).__init__(
            input_shape=input_shape, num_hidden=num_hidden,
            h2h_kernel=h2h_kernel, h2h_dilate=h2h_dilate,
            i2h_kernel=i2h_kernel, i2h_stride=i2h_stride,
            i2h_pad=i2h_pad, i2h_dilate=i2h_dilate,
            i2h_weight_initializer=i2h_weight_initializer,
            h2h_weight_initializer=h2h_weight_initializer,
            i2h_bias_initializer=i2h_bias_initializer,
            h2h_bias_initializer=h2h_bias_initializer,
            activation=activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ['_i', '_f', '_c', '_o']

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4,
                                    axis=self._conv_layout.find('C'), name='%sslice' % name)
        return lstm_update(self, gates, states[1], name, self._activation)


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU cell: a :class:`GRUCell` whose transforms are convolutions
    (gates ``_r _z _o`` split along channels), with ``activation`` for the candidate.

    Parameters are those of :class:`ConvRNNCell`; ``prefix`` defaults to
    ``'ConvGRU_'``.
    """

    def __init__(self, input_shape, num_hidden,
                 h2h_kernel=(3, 3), h2h_dilate=(1, 1),
                 i2h_kernel=(3, 3), i2h_stride=(1, 1),
                 i2h_pad=(1, 1), i2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 activation=_LEAKY, prefix='ConvGRU_', params=None, conv_layout='NCHW'):
        super(ConvGRUCell, self).__init__(
            input_shape=input_shape, num_hidden=num_hidden,
            h2h_kernel=h2h_kernel, h2h_dilate=h2h_dilate,
            i2h_kernel=i2h_kernel, i2h_stride=i2h_stride,
            i2h_pad=i2h_pad, i2h_dilate=i2h_dilate,
            i2h_weight_initializer=i2h_weight_initializer,
            h2h_weight_initializer=h2h_weight_initializer,
            i2h_bias_initializer=i2h_bias_initializer,
            h2h_bias_initializer=h2h_bias_initializer,
            activation=activation, prefix=prefix, params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ['_r', '_z', '_o']

    @property
    def state_info(self):
        return [{'shape': self._state_shape, '__layout__': self._conv_layout}]

    def __call__(self, inputs, states):
        self._counter += 1
        name = '%st%d_' % (self._prefix, self._counter)
        i2h, h2h = self._conv_forward(inputs, states, name)
        # as in MXNet, the gates are split on axis 1 (the channels of NCHW) for any layout
        return gru_update(self, i2h, h2h, states[0], name, self._activation)
