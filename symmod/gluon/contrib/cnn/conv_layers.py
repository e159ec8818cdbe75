"""DeformableConvolution and ModulatedDeformableConvolution layers: a plain convolution
predicts the sampling offsets (and, modulated, the masks) of a deformable convolution
(``_contrib_DeformableConvolution`` / ``_contrib_ModulatedDeformableConvolution``).
Parameter names and order are MXNet 1.9.1's."""
from .... import symbol
from ....base import numeric_types
from ...hybrid_block import HybridBlock
from ...nn import Activation

__all__ = ['DeformableConvolution', 'ModulatedDeformableConvolution']


def _pairs(kernel_size, strides, padding, dilation):
    if isinstance(kernel_size, numeric_types):
        kernel_size = (kernel_size,) * 2
    n = len(kernel_size)
    fix = (lambda v: (v,) * n if isinstance(v, numeric_types) else tuple(v))
    return tuple(kernel_size), fix(strides), fix(padding), fix(dilation)


class _Deformable(HybridBlock):
    """What the two layers share: the settings of the offset convolution and of the
    deformable one, their Parameters, the activation and the repr."""
    _offset_channels_per_tap = 2
    _weights_first = False      # the modulated layer creates its own weights first

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups,
                 num_deformable_group, layout, use_bias, in_channels, activation,
                 weight_initializer, bias_initializer, offset_weight_initializer,
                 offset_bias_initializer, offset_use_bias, adj, prefix, params):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            assert layout in ('NCHW', 'NHWC'), "Only supports 'NCHW' and 'NHWC' layout for now"
            kernel, strides, padding, dilation = _pairs(kernel_size, strides, padding,
                                                        dilation)
            taps = kernel[0] * kernel[1]
            common = {'kernel': kernel, 'stride': strides, 'dilate': dilation, 'pad': padding,
                      'num_group': groups, 'layout': layout}
            self._kwargs_offset = dict(
                common, num_filter=self._offset_channels_per_tap * taps * num_deformable_group,
                no_bias=not offset_use_bias)
            self._kwargs_deformable_conv = dict(common, num_filter=channels,
                                                num_deformable_group=num_deformable_group,
                                                no_bias=not use_bias)
            self.offset_split_index = num_deformable_group * 2 * taps
            if adj:
                self._kwargs_offset['adj'] = adj
                self._kwargs_deformable_conv['adj'] = adj
            if self._weights_first:
                self._deformable_params(kernel, channels, use_bias, weight_initializer,
                                        bias_initializer)
                self._offset_params(layout, in_channels, offset_use_bias,
                                    offset_weight_initializer, offset_bias_initializer)
            else:
                self._offset_params(layout, in_channels, offset_use_bias,
                                    offset_weight_initializer, offset_bias_initializer)
                self._deformable_params(kernel, channels, use_bias, weight_initializer,
                                        bias_initializer)
            self.act = Activation(activation, prefix=activation + '_') if activation else None

    def _offset_params(self, layout, in_channels, use_bias, weight_init, bias_init):
        data_shape = [0] * 4
        data_shape[layout.find('N')] = 1
        data_shape[layout.find('C')] = in_channels
        offset = symbol.Convolution(symbol.var('data', shape=data_shape), **self._kwargs_offset)
        shapes = offset.infer_shape_partial()[0]
        self.offset_weight = self.params.get('offset_weight', shape=shapes[1], init=weight_init,
                                             allow_deferred_init=True)
        self.offset_bias = self.params.get('offset_bias', shape=shapes[2], init=bias_init,
                                           allow_deferred_init=True) if use_bias else None

    def _deformable_params(self, kernel, channels, use_bias, weight_init, bias_init):
        # the input channels are left for the first call to infer, as in MXNet
        self.deformable_conv_weight = self.params.get(
            'deformable_conv_weight', shape=(channels, 0) + kernel, init=weight_init,
            allow_deferred_init=True)
        self.deformable_conv_bias = self.params.get(
            'deformable_conv_bias', shape=(channels,), init=bias_init,
            allow_deferred_init=True) if use_bias else None

    def _offsets(self, F, x, offset_weight, offset_bias):
        args = [x, offset_weight] + ([] if offset_bias is None else [offset_bias])
        return F.Convolution(*args, cudnn_off=True, **self._kwargs_offset)

    def _finish(self, out):
        return self.act(out) if self.act else out

    def __repr__(self):
        kw = self._kwargs_deformable_conv
        n = len(kw['kernel'])
        text = '{name}({mapping}, kernel_size={kernel}, stride={stride}'
        if kw['pad'] != (0,) * n:
            text += ', padding={pad}'
        if kw['dilate'] != (1,) * n:
            text += ', dilation={dilate}'
        if kw['num_group'] != 1:
            text += ', groups={num_group}'
        if self.deformable_conv_bias is None:
            text += ', bias=False'
        if self.act:
            text += ', {}'.format(self.act)
        text += ')'
        shape = self.deformable_conv_weight.shape
        return text.format(name=self.__class__.__name__,
                           mapping='{0} -> {1}'.format(shape[1] if shape[1] else None,
                                                       shape[0]), **kw)


class DeformableConvolution(_Deformable):
    """2-D deformable convolution (Dai et al., 2017): a convolution over ``x`` predicts
    the (dy, dx) moves of every kernel tap (``offset_weight`` / ``offset_bias``, zeros by
    default), then the deformable convolution samples ``x`` there.

    Parameters
    ----------
    channels : int
        Output channels.
    kernel_size, strides, padding, dilation : int or tuple of 2 ints
        As for Conv2D (defaults (1, 1), (1, 1), (0, 0), (1, 1)).
    groups : int, default 1
    num_deformable_group : int, default 1
        Channel groups with their own offsets.
    layout : str, default 'NCHW'
    use_bias : bool, default True
    in_channels : int, default 0
    activation : str, optional
    weight_initializer, bias_initializer : Initializer, optional
    offset_weight_initializer, offset_bias_initializer : Initializer, default 'zeros'
    offset_use_bias : bool, default True
    """

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout='NCHW',
                 use_bias=True, in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer='zeros', offset_weight_initializer='zeros',
                 offset_bias_initializer='zeros', offset_use_bias=True,
                 op_name='DeformableConvolution', adj=None, prefix=None, params=None):
        self._op_name = op_name
        super().__init__(channels, kernel_size, strides, padding, dilation, groups,
                         num_deformable_group, layout, use_bias, in_channels, activation,
                         weight_initializer, bias_initializer, offset_weight_initializer,
                         offset_bias_initializer, offset_use_bias, adj, prefix, params)

    def _alias(self):
        return 'deformable_conv'

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        extra = {} if deformable_conv_bias is None else {'bias': deformable_conv_bias}
        out = F._contrib_DeformableConvolution(data=x, offset=offset,
                                               weight=deformable_conv_weight, name='fwd',
                                               **extra, **self._kwargs_deformable_conv)
        return self._finish(out)


class ModulatedDeformableConvolution(_Deformable):
    """2-D modulated deformable convolution (DCNv2, Zhu et al., 2018): the predicting
    convolution also gives one mask per tap, ``2 * sigmoid(m)``, that scales the samples.
    Parameters as for :class:`DeformableConvolution`."""
    _offset_channels_per_tap = 3
    _weights_first = True

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, num_deformable_group=1, layout='NCHW',
                 use_bias=True, in_channels=0, activation=None, weight_initializer=None,
                 bias_initializer='zeros', offset_weight_initializer='zeros',
                 offset_bias_initializer='zeros', offset_use_bias=True,
                 op_name='ModulatedDeformableConvolution', adj=None, prefix=None,
                 params=None):
        self._op_name = op_name
        super().__init__(channels, kernel_size, strides, padding, dilation, groups,
                         num_deformable_group, layout, use_bias, in_channels, activation,
                         weight_initializer, bias_initializer, offset_weight_initializer,
                         offset_bias_initializer, offset_use_bias, adj, prefix, params)

    def _alias(self):
        return 'modulated_deformable_conv'

    # MXNet 1.9.1 gives this layer no repr of its own: a Block's (its children)
    __repr__ = HybridBlock.__repr__

    def hybrid_forward(self, F, x, deformable_conv_weight, offset_weight,
                       deformable_conv_bias=None, offset_bias=None):
        predicted = self._offsets(F, x, offset_weight, offset_bias)
        offset = F.slice_axis(predicted, axis=1, begin=0, end=self.offset_split_index)
        mask = F.sigmoid(F.slice_axis(predicted, axis=1, begin=self.offset_split_index,
                                      end=None)) * 2
        extra = {} if deformable_conv_bias is None else {'bias': deformable_conv_bias}
        out = F._contrib_ModulatedDeformableConvolution(
            data=x, offset=offset, mask=mask, weight=deformable_conv_weight, name='fwd',
            **extra, **self._kwargs_deformable_conv)
        return self._finish(out)
