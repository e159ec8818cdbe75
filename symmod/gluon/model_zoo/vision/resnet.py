"""ResNet V1 (He et al., 2015) and V2 (pre-activation, He et al., 2016), 18 to 152 layers.

Blocks are created in MXNet 1.9.1's order with its prefixes, so the parameter names
(``resnetv10_stage1_conv0_weight`` ...) and pretrained files are MXNet's.
"""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ['ResNetV1', 'ResNetV2', 'BasicBlockV1', 'BasicBlockV2', 'BottleneckV1',
           'BottleneckV2', 'resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1',
           'resnet152_v1', 'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2',
           'resnet152_v2', 'get_resnet']


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _projection_v1(channels, stride, in_channels):
    """The 1x1 convolution + BatchNorm that reshapes the shortcut of a V1 block."""
    shortcut = nn.HybridSequential(prefix='')
    shortcut.add(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                           in_channels=in_channels))
    shortcut.add(nn.BatchNorm())
    return shortcut


class _ResidualV1(HybridBlock):
    """``relu(body(x) + shortcut(x))``; the shortcut is the identity or a projection."""

    def hybrid_forward(self, F, x):
        body = self.body(x)
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(self._sum(body, residual), act_type='relu')

    @staticmethod
    def _sum(body, residual):
        return body + residual


class BasicBlockV1(_ResidualV1):
    """Two 3x3 convolutions with BatchNorm (ResNet-18/34, V1).

    Parameters
    ----------
    channels : int
        Output channels.
    stride : int
        Stride of the first convolution.
    downsample : bool, default False
        Project the shortcut (when stride or channels change).
    in_channels : int, default 0
        Input channels (inferred when 0).
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(_conv3x3(channels, stride, in_channels))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(_conv3x3(channels, 1, channels))
        self.body.add(nn.BatchNorm())
        self.downsample = _projection_v1(channels, stride, in_channels) if downsample else None

    @staticmethod
    def _sum(body, residual):
        return residual + body      # MXNet's operand order (the graph's node names)


class BottleneckV1(_ResidualV1):
    """1x1 (reduce), 3x3, 1x1 (expand) convolutions with BatchNorm (ResNet-50+, V1).

    Parameters
    ----------
    channels : int
        Output channels (the inner convolutions have a quarter of them).
    stride : int
        Stride of the first convolution.
    downsample : bool, default False
        Project the shortcut.
    in_channels : int, default 0
        Input channels (inferred when 0).
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(_conv3x3(channels // 4, 1, channels // 4))
        self.body.add(nn.BatchNorm())
        self.body.add(nn.Activation('relu'))
        self.body.add(nn.Conv2D(channels, kernel_size=1, strides=1))
        self.body.add(nn.BatchNorm())
        self.downsample = _projection_v1(channels, stride, in_channels) if downsample else None


class _ResidualV2(HybridBlock):
    """Pre-activation block: BatchNorm and ReLU come before each convolution; the
    shortcut (projected when needed) starts after the first activation."""

    def _shortcut(self, channels, stride, downsample, in_channels):
        if downsample:
            return nn.Conv2D(channels, 1, stride, use_bias=False, in_channels=in_channels)
        return None

    def hybrid_forward(self, F, x):
        residual = x
        x = F.Activation(self.bn1(x), act_type='relu')
        if self.downsample:
            residual = self.downsample(x)
        for bn, conv in self._stages():
            x = F.Activation(bn(x), act_type='relu') if bn is not None else x
            x = conv(x)
        return x + residual


class BasicBlockV2(_ResidualV2):
    """Two pre-activated 3x3 convolutions (ResNet-18/34, V2). Parameters as for
    :class:`BasicBlockV1`."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = self._shortcut(channels, stride, downsample, in_channels)

    def _stages(self):
        return [(None, self.conv1), (self.bn2, self.conv2)]


class BottleneckV2(_ResidualV2):
    """Pre-activated 1x1, 3x3, 1x1 convolutions (ResNet-50+, V2). Parameters as for
    :class:`BottleneckV1`."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = self._shortcut(channels, stride, downsample, in_channels)

    def _stages(self):
        return [(None, self.conv1), (self.bn2, self.conv2), (self.bn3, self.conv3)]


class _ResNet(HybridBlock):
    """What the two versions share: the stem, the stages, the classifier."""

    def _stem(self, channels, thumbnail):
        if thumbnail:       # 32x32 inputs (CIFAR): one 3x3 convolution
            self.features.add(_conv3x3(channels, 1, 0))
        else:
            self.features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False))
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.MaxPool2D(3, 2, 1))

    @staticmethod
    def _make_layer(block, layers, channels, stride, stage_index, in_channels=0):
        layer = nn.HybridSequential(prefix='stage%d_' % stage_index)
        with layer.name_scope():
            layer.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                            prefix=''))
            for _ in range(layers - 1):
                layer.add(block(channels, 1, False, in_channels=channels, prefix=''))
        return layer

    def _stages(self, block, layers, channels):
        for i, num_layer in enumerate(layers):
            self.features.add(self._make_layer(block, num_layer, channels[i + 1],
                                               1 if i == 0 else 2, i + 1,
                                               in_channels=channels[i]))

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV1(_ResNet):
    """ResNet V1 (Deep Residual Learning for Image Recognition, He et al., 2015).

    Parameters
    ----------
    block : HybridBlock class
        BasicBlockV1 or BottleneckV1.
    layers : list of int
        Blocks per stage.
    channels : list of int
        Channels of the stem and of each stage (one more than ``layers``).
    classes : int, default 1000
        Number of classes.
    thumbnail : bool, default False
        A 3x3 stem for small (32x32) images.
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self._stem(channels[0], thumbnail)
            self._stages(block, layers, channels)
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])


class ResNetV2(_ResNet):
    """ResNet V2 (Identity Mappings in Deep Residual Networks, He et al., 2016): the
    input is BatchNorm-ed (no scale, no shift) and the blocks are pre-activated.
    Parameters as for :class:`ResNetV1` (blocks BasicBlockV2 or BottleneckV2)."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.BatchNorm(scale=False, center=False))
            self._stem(channels[0], thumbnail)
            self._stages(block, layers, channels)
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.GlobalAvgPool2D())
            self.features.add(nn.Flatten())
            self.output = nn.Dense(classes, in_units=channels[-1])


# layers -> (block kind, blocks per stage, channels of the stem and the stages)
resnet_spec = {18: ('basic_block', [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ('basic_block', [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ('bottle_neck', [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ('bottle_neck', [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ('bottle_neck', [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{'basic_block': BasicBlockV1, 'bottle_neck': BottleneckV1},
                         {'basic_block': BasicBlockV2, 'bottle_neck': BottleneckV2}]


def get_resnet(version, num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """ResNet ``version`` (1 or 2) with ``num_layers`` layers (18, 34, 50, 101, 152).

    Parameters
    ----------
    version : int
        1 or 2.
    num_layers : int
        18, 34, 50, 101 or 152.
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root`` (never downloaded).
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.
    **kwargs
        For the network (``classes``, ``thumbnail``, ``prefix``, ...).
    """
    assert num_layers in resnet_spec, 'Invalid number of layers: %d. Options are %s' % (
        num_layers, str(resnet_spec.keys()))
    assert 1 <= version <= 2, 'Invalid resnet version: %d. Options are 1 and 2.' % version
    block_type, layers, channels = resnet_spec[num_layers]
    block_class = resnet_block_versions[version - 1][block_type]
    net = resnet_net_versions[version - 1](block_class, layers, channels, **kwargs)
    if pretrained:
        load_pretrained(net, 'resnet%d_v%d' % (num_layers, version), ctx, root)
    return net


def resnet18_v1(**kwargs):
    """ResNet-18 V1; keywords as for :func:`get_resnet`."""
    return get_resnet(1, 18, **kwargs)


def resnet34_v1(**kwargs):
    """ResNet-34 V1; keywords as for :func:`get_resnet`."""
    return get_resnet(1, 34, **kwargs)


def resnet50_v1(**kwargs):
    """ResNet-50 V1; keywords as for :func:`get_resnet`."""
    return get_resnet(1, 50, **kwargs)


def resnet101_v1(**kwargs):
    """ResNet-101 V1; keywords as for :func:`get_resnet`."""
    return get_resnet(1, 101, **kwargs)


def resnet152_v1(**kwargs):
    """ResNet-152 V1; keywords as for :func:`get_resnet`."""
    return get_resnet(1, 152, **kwargs)


def resnet18_v2(**kwargs):
    """ResNet-18 V2; keywords as for :func:`get_resnet`."""
    return get_resnet(2, 18, **kwargs)


def resnet34_v2(**kwargs):
    """ResNet-34 V2; keywords as for :func:`get_resnet`."""
    return get_resnet(2, 34, **kwargs)


def resnet50_v2(**kwargs):
    """ResNet-50 V2; keywords as for :func:`get_resnet`."""
    return get_resnet(2, 50, **kwargs)


def resnet101_v2(**kwargs):
    """ResNet-101 V2; keywords as for :func:`get_resnet`."""
    return get_resnet(2, 101, **kwargs)


def resnet152_v2(**kwargs):
    """ResNet-152 V2; keywords as for :func:`get_resnet`."""
    return get_resnet(2, 152, **kwargs)
