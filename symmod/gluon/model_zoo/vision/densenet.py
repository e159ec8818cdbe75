"""DenseNet 121/161/169/201 (Huang et al., 2016), with MXNet 1.9.1's layer order and
parameter names."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent, Identity
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ['DenseNet', 'densenet121', 'densenet161', 'densenet169', 'densenet201']


def _bn_relu_conv(out, channels, kernel_size, padding=0):
    out.add(nn.BatchNorm())
    out.add(nn.Activation('relu'))
    out.add(nn.Conv2D(channels, kernel_size=kernel_size, padding=padding, use_bias=False))


def _dense_layer(growth_rate, bn_size, dropout):
    """A bottleneck (1x1 then 3x3 convolution) whose ``growth_rate`` new channels are
    concatenated to its input."""
    new_features = nn.HybridSequential(prefix='')
    _bn_relu_conv(new_features, bn_size * growth_rate, 1)
    _bn_relu_conv(new_features, growth_rate, 3, padding=1)
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix='')
    out.add(Identity())
    out.add(new_features)
    return out


def _dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix='stage%d_' % stage_index)
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_dense_layer(growth_rate, bn_size, dropout))
    return out


def _transition(num_output_features):
    """BatchNorm, ReLU, 1x1 convolution and 2x2 average pooling between blocks."""
    out = nn.HybridSequential(prefix='')
    _bn_relu_conv(out, num_output_features, 1)
    out.add(nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """DenseNet (Densely Connected Convolutional Networks).

    Parameters
    ----------
    num_init_features : int
        Channels of the stem convolution.
    growth_rate : int
        Channels each dense layer adds.
    block_config : list of int
        Dense layers per block.
    bn_size : int, default 4
        Bottleneck width, as a multiple of ``growth_rate``.
    dropout : float, default 0
        Dropout after each dense layer.
    classes : int, default 1000
        Number of classes.
    """

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2,
                                        padding=3, use_bias=False))
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(_dense_block(num_layers, bn_size, growth_rate, dropout,
                                               i + 1))
                num_features += num_layers * growth_rate
                if i != len(block_config) - 1:
                    num_features //= 2
                    self.features.add(_transition(num_features))
            self.features.add(nn.BatchNorm())
            self.features.add(nn.Activation('relu'))
            self.features.add(nn.AvgPool2D(pool_size=7))
            self.features.add(nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# layers -> (stem channels, growth rate, dense layers per block)
densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """DenseNet with ``num_layers`` (121, 161, 169 or 201) layers.

    Parameters
    ----------
    num_layers : int
        121, 161, 169 or 201.
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root`` (never downloaded).
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.
    """
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    if pretrained:
        load_pretrained(net, 'densenet%d' % num_layers, ctx, root)
    return net


def densenet121(**kwargs):
    """DenseNet-121; keywords as for :func:`get_densenet`."""
    return get_densenet(121, **kwargs)


def densenet161(**kwargs):
    """DenseNet-161; keywords as for :func:`get_densenet`."""
    return get_densenet(161, **kwargs)


def densenet169(**kwargs):
    """DenseNet-169; keywords as for :func:`get_densenet`."""
    return get_densenet(169, **kwargs)


def densenet201(**kwargs):
    """DenseNet-201; keywords as for :func:`get_densenet`."""
    return get_densenet(201, **kwargs)
