"""Convolution layers: Conv1D/2D/3D and their transposes (``Deconvolution``).

As in MXNet, a layer's parameter shapes come from the operator's own shape
inference on a data shape whose unknown entries are 0, so ``in_channels=0`` leaves
a 0 in the weight shape that the first forward pass fills in (deferred
initialization). Pooling and padding layers are in ``pooling_layers.py``.
"""
from ... import symbol
from ...base import numeric_types
from ..hybrid_block import HybridBlock
from .basic_layers import _activation_block

__all__ = ['Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose',
           'Conv3DTranspose']


def _infer_weight_shape(op_name, data_shape, kwargs):
    """The (partial) argument shapes of ``op_name`` applied to data of ``data_shape``."""
    data = symbol.var('data', shape=data_shape)
    out = getattr(symbol, op_name)(data, **kwargs)
    return out.infer_shape_partial()[0]


def _ntuple(value, n, what):
    """``value`` repeated ``n`` times when it is a number, else as given (length checked)."""
    if isinstance(value, numeric_types):
        return (value,) * n
    assert len(value) == n, '%s must be a number or a list of %d ints' % (what, n)
    return value


_LAYOUTS = {1: ('NCW',), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}


def _check_layout(layout, ndim):
    allowed = _LAYOUTS[ndim]
    assert layout in allowed, 'Only supports %s layout for now' % ' and '.join(
        "'%s'" % name for name in allowed)


class _Conv(HybridBlock):
    """What every convolution layer shares: the parameters (shaped by the operator's
    shape inference), the forward call, the optional activation and the repr.

    ``op_name`` is 'Convolution' or 'Deconvolution'; ``adj`` is the transposed
    layers' output padding.
    """

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', op_name='Convolution', adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            ndim = len(kernel_size)
            if isinstance(strides, numeric_types):
                strides = (strides,) * ndim
            if isinstance(padding, numeric_types):
                padding = (padding,) * ndim
            if isinstance(dilation, numeric_types):
                dilation = (dilation,) * ndim
            self._op_name = op_name
            self._kwargs = {'kernel': kernel_size, 'stride': strides, 'dilate': dilation,
                            'pad': padding, 'num_filter': channels, 'num_group': groups,
                            'no_bias': not use_bias, 'layout': layout}
            if adj is not None:
                self._kwargs['adj'] = adj
            data_shape = [0] * (ndim + 2)
            data_shape[layout.find('N')] = 1
            data_shape[layout.find('C')] = in_channels
            shapes = _infer_weight_shape(op_name, data_shape, self._kwargs)
            self.weight = self.params.get('weight', shape=shapes[1], init=weight_initializer,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get('bias', shape=shapes[2], init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            self.act = _activation_block(activation)

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            out = op(x, weight, name='fwd', **self._kwargs)
        else:
            out = op(x, weight, bias, name='fwd', **self._kwargs)
        if self.act is not None:
            out = self.act(out)
        return out

    def _alias(self):
        return 'conv'

    def __repr__(self):
        kw = self._kwargs
        ndim = len(kw['kernel'])
        text = '{name}({mapping}, kernel_size={kernel}, stride={stride}'
        if kw['pad'] != (0,) * ndim:
            text += ', padding={pad}'
        if kw['dilate'] != (1,) * ndim:
            text += ', dilation={dilate}'
        # MXNet 1.9.1 never prints output_padding (its check looks for a misspelt
        # attribute), so neither do we.
        if kw['num_group'] != 1:
            text += ', groups={num_group}'
        if self.bias is None:
            text += ', bias=False'
        if self.act:
            text += ', {}'.format(self.act)
        text += ')'
        shape = self.weight.shape
        return text.format(name=self.__class__.__name__,
                           mapping='{0} -> {1}'.format(shape[1] if shape[1] else None,
                                                       shape[0]), **kw)


class _Convolution(_Conv):
    """Conv1D/2D/3D: the ``Convolution`` operator over the last ``ndim`` axes."""

    def __init__(self, ndim, channels, kernel_size, strides, padding, dilation, groups,
                 layout, activation, use_bias, weight_initializer, bias_initializer,
                 in_channels, **kwargs):
        _check_layout(layout, ndim)
        kernel_size = _ntuple(kernel_size, ndim, 'kernel_size')
        op_name = kwargs.pop('op_name', 'Convolution')
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name, **kwargs)


class _ConvTranspose(_Conv):
    """The transposed convolutions: the ``Deconvolution`` operator with ``adj``."""

    def __init__(self, ndim, channels, kernel_size, strides, padding, output_padding,
                 dilation, groups, layout, activation, use_bias, weight_initializer,
                 bias_initializer, in_channels, **kwargs):
        _check_layout(layout, ndim)
        kernel_size = _ntuple(kernel_size, ndim, 'kernel_size')
        output_padding = _ntuple(output_padding, ndim, 'output_padding')
        op_name = kwargs.pop('op_name', 'Deconvolution')
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name=op_name, adj=output_padding, **kwargs)
        self.outpad = output_padding


class Conv1D(_Convolution):
    """1-D convolution over the last axis of ``(batch, in_channels, width)`` data.

    ``out_width = (width + 2 * padding - dilation * (kernel_size - 1) - 1) // strides + 1``.
    The weight has shape ``(channels, in_channels / groups, kernel_size)``.

    Parameters
    ----------
    channels : int
        Number of output channels (filters).
    kernel_size : int or tuple of 1 int
        Window size.
    strides : int or tuple of 1 int, default 1
        Step of the window.
    padding : int or tuple of 1 int, default 0
        Zeros added on both sides.
    dilation : int or tuple of 1 int, default 1
        Spacing between window elements.
    groups : int, default 1
        Split input and output channels into this many independent groups.
    layout : str, default 'NCW'
        Only 'NCW'.
    activation : str, optional
        Activation applied to the output (see :class:`Activation`).
    use_bias : bool, default True
        Whether to add a bias per output channel.
    weight_initializer, bias_initializer : str or Initializer
        Initializers (the global one and 'zeros' by default).
    in_channels : int, default 0
        Input channels; inferred from the first batch when 0.

    Examples
    --------
    >>> conv = mx.gluon.nn.Conv1D(4, 3)
    >>> conv.initialize()
    >>> conv(mx.nd.ones((2, 3, 10))).shape
    (2, 4, 8)
    """

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout='NCW', activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(1, channels, kernel_size, strides, padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer,
                         in_channels, **kwargs)


class Conv2D(_Convolution):
    """2-D convolution over the last two axes of ``(batch, in_channels, height, width)``.

    Parameters are those of :class:`Conv1D` with 2 entries per tuple (defaults (1, 1),
    (0, 0), (1, 1)); ``layout`` is 'NCHW' ('NHWC' is accepted by MXNet; symmod's
    operator refuses channel-last). The weight has shape ``(channels, in_channels /
    groups, kh, kw)``.

    Examples
    --------
    >>> conv = mx.gluon.nn.Conv2D(8, (3, 3), padding=1, in_channels=3)
    >>> conv.weight.shape
    (8, 3, 3, 3)
    """

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout='NCHW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(2, channels, kernel_size, strides, padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer,
                         in_channels, **kwargs)


class Conv3D(_Convolution):
    """3-D convolution over the last three axes of ``(batch, in_channels, d, h, w)``.

    Parameters are those of :class:`Conv1D` with 3 entries per tuple; ``layout``
    defaults to 'NCDHW'. The weight has shape ``(channels, in_channels / groups,
    kd, kh, kw)``.

    Examples
    --------
    >>> conv = mx.gluon.nn.Conv3D(2, 2)
    >>> conv.initialize()
    >>> conv(mx.nd.ones((1, 1, 3, 4, 5))).shape
    (1, 2, 2, 3, 4)
    """

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout='NCDHW', activation=None,
                 use_bias=True, weight_initializer=None, bias_initializer='zeros',
                 in_channels=0, **kwargs):
        super().__init__(3, channels, kernel_size, strides, padding, dilation, groups, layout,
                         activation, use_bias, weight_initializer, bias_initializer,
                         in_channels, **kwargs)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution (the gradient of :class:`Conv1D` with respect to its
    input), often used to upsample.

    ``out_width = (width - 1) * strides - 2 * padding + dilation * (kernel_size - 1)
    + output_padding + 1``. The weight has shape ``(in_channels, channels / groups,
    kernel_size)``.

    Parameters
    ----------
    channels : int
        Number of output channels.
    output_padding : int or tuple of 1 int, default 0
        Extra size added on one side of the output.
    kernel_size, strides, padding, dilation, groups, layout, activation, use_bias,
    weight_initializer, bias_initializer, in_channels
        As for :class:`Conv1D`.

    Examples
    --------
    >>> up = mx.gluon.nn.Conv1DTranspose(2, 3, strides=2, in_channels=4)
    >>> up.initialize()
    >>> up(mx.nd.ones((1, 4, 5))).shape
    (1, 2, 11)
    """

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout='NCW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(1, channels, kernel_size, strides, padding, output_padding,
                         dilation, groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution; see :class:`Conv1DTranspose` (2 entries per tuple,
    ``layout`` 'NCHW' by default, weight ``(in_channels, channels / groups, kh, kw)``).

    Examples
    --------
    >>> up = mx.gluon.nn.Conv2DTranspose(3, 4, strides=2, padding=1)
    >>> up.initialize()
    >>> up(mx.nd.ones((1, 5, 8, 8))).shape
    (1, 3, 16, 16)
    """

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout='NCHW',
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(2, channels, kernel_size, strides, padding, output_padding,
                         dilation, groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution; see :class:`Conv1DTranspose` (3 entries per tuple,
    ``layout`` 'NCDHW' by default, weight ``(in_channels, channels / groups, kd, kh,
    kw)``).

    Examples
    --------
    >>> up = mx.gluon.nn.Conv3DTranspose(1, 2, strides=2)
    >>> up.initialize()
    >>> up(mx.nd.ones((1, 2, 2, 2, 2))).shape
    (1, 1, 4, 4, 4)
    """

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout='NCDHW',
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        super().__init__(3, channels, kernel_size, strides, padding, output_padding,
                         dilation, groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)
