"""MobileNet (Howard et al., 2017) and MobileNetV2 (Sandler et al., 2018) with width
multipliers 1.0, 0.75, 0.5 and 0.25, with MXNet 1.9.1's layer order and parameter
names."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ['MobileNet', 'MobileNetV2', 'mobilenet1_0', 'mobilenet_v2_1_0', 'mobilenet0_75',
           'mobilenet_v2_0_75', 'mobilenet0_5', 'mobilenet_v2_0_5', 'mobilenet0_25',
           'mobilenet_v2_0_25', 'get_mobilenet', 'get_mobilenet_v2']


class RELU6(HybridBlock):
    """``min(max(x, 0), 6)``."""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name='relu6')


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True,
              relu6=False):
    """Convolution (no bias), BatchNorm and, when ``active``, ReLU or ReLU6."""
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation('relu'))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    """A depthwise 3x3 convolution, then a pointwise 1x1 one."""
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1,
              num_group=dw_channels, relu6=relu6)
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """MobileNetV2's inverted residual: 1x1 expansion by ``t``, depthwise 3x3, linear 1x1
    projection, with a shortcut when the shape is kept.

    Parameters
    ----------
    in_channels : int
        Input channels.
    channels : int
        Output channels.
    t : int
        Expansion factor.
    stride : int
        Stride of the depthwise convolution.
    """

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            expanded = in_channels * t
            _add_conv(self.out, expanded, relu6=True)
            _add_conv(self.out, expanded, kernel=3, stride=stride, pad=1, num_group=expanded,
                      relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


def _scaled(channels, multiplier):
    return [int(c * multiplier) for c in channels]


class MobileNet(HybridBlock):
    """MobileNet: a strided 3x3 convolution, then 13 depthwise-separable convolutions.

    Parameters
    ----------
    multiplier : float, default 1.0
        Width multiplier of every layer's channels.
    classes : int, default 1000
        Number of classes.
    """

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1,
                          stride=2)
                dw_channels = _scaled([32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024],
                                      multiplier)
                channels = _scaled([64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2,
                                   multiplier)
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D())
                self.features.add(nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNetV2: 17 inverted residual bottlenecks between a strided 3x3 convolution
    and a 1x1 convolution to 1280 channels; the classifier is a 1x1 convolution.

    Parameters
    ----------
    multiplier : float, default 1.0
        Width multiplier of every layer's channels.
    classes : int, default 1000
        Number of classes.
    """

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='features_')
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                in_channels = _scaled([32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3
                                      + [160] * 3, multiplier)
                channels = _scaled([16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3
                                   + [160] * 3 + [320], multiplier)
                expansions = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for in_c, c, t, s in zip(in_channels, channels, expansions, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t,
                                                       stride=s))
                last_channels = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last_channels, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix='output_')
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix='pred_'),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _version_suffix(multiplier):
    """'1.0', '0.75', '0.5', '0.25': the multiplier as MXNet names the files."""
    suffix = '{0:.2f}'.format(multiplier)
    return suffix[:-1] if suffix in ('1.00', '0.50') else suffix


def get_mobilenet(multiplier, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """MobileNet with width ``multiplier``.

    Parameters
    ----------
    multiplier : float
        Width multiplier (1.0, 0.75, 0.5, 0.25 have pretrained files).
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root`` (never downloaded).
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.
    """
    net = MobileNet(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, 'mobilenet%s' % _version_suffix(multiplier), ctx, root)
    return net


def get_mobilenet_v2(multiplier, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """MobileNetV2 with width ``multiplier``; arguments as for :func:`get_mobilenet`."""
    net = MobileNetV2(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, 'mobilenetv2_%s' % _version_suffix(multiplier), ctx, root)
    return net


def mobilenet1_0(**kwargs):
    """MobileNet 1.0; keywords as for :func:`get_mobilenet`."""
    return get_mobilenet(1.0, **kwargs)


def mobilenet_v2_1_0(**kwargs):
    """MobileNetV2 1.0; keywords as for :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(1.0, **kwargs)


def mobilenet0_75(**kwargs):
    """MobileNet 0.75; keywords as for :func:`get_mobilenet`."""
    return get_mobilenet(0.75, **kwargs)


def mobilenet_v2_0_75(**kwargs):
    """MobileNetV2 0.75; keywords as for :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(0.75, **kwargs)


def mobilenet0_5(**kwargs):
    """MobileNet 0.5; keywords as for :func:`get_mobilenet`."""
    return get_mobilenet(0.5, **kwargs)


def mobilenet_v2_0_5(**kwargs):
    """MobileNetV2 0.5; keywords as for :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(0.5, **kwargs)


def mobilenet0_25(**kwargs):
    """MobileNet 0.25; keywords as for :func:`get_mobilenet`."""
    return get_mobilenet(0.25, **kwargs)


def mobilenet_v2_0_25(**kwargs):
    """MobileNetV2 0.25; keywords as for :func:`get_mobilenet_v2`."""
    return get_mobilenet_v2(0.25, **kwargs)
