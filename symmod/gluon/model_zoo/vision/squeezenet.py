"""SqueezeNet 1.0 and 1.1 (Iandola et al., 2016), with MXNet 1.9.1's layer order and
parameter names."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1']


def _fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix='')
    out.add(nn.Conv2D(channels, kernel_size, padding=padding))
    out.add(nn.Activation('relu'))
    return out


def _fire(squeeze, expand1x1, expand3x3):
    """A fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions side by side."""
    out = nn.HybridSequential(prefix='')
    out.add(_fire_conv(squeeze, 1))
    paths = HybridConcurrent(axis=1, prefix='')
    paths.add(_fire_conv(expand1x1, 1))
    paths.add(_fire_conv(expand3x3, 3, 1))
    out.add(paths)
    return out


# version -> (stem channels, stem kernel, layout: 'pool' or fire (squeeze, expand))
_LAYOUT = {
    '1.0': (96, 7, ['pool', (16, 64), (16, 64), (32, 128), 'pool', (32, 128), (48, 192),
                    (48, 192), (64, 256), 'pool', (64, 256)]),
    '1.1': (64, 3, ['pool', (16, 64), (16, 64), 'pool', (32, 128), (32, 128), 'pool',
                    (48, 192), (48, 192), (64, 256), (64, 256)]),
}


class SqueezeNet(HybridBlock):
    """SqueezeNet: fire modules between max-pools, a 1x1 convolution per class, global
    13x13 average pooling.

    Parameters
    ----------
    version : str
        '1.0' or '1.1'.
    classes : int, default 1000
        Number of classes.
    """

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        assert version in ['1.0', '1.1'], ('Unsupported SqueezeNet version {version}:'
                                           '1.0 or 1.1 expected'.format(version=version))
        stem_channels, stem_kernel, layout = _LAYOUT[version]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.Conv2D(stem_channels, kernel_size=stem_kernel, strides=2))
            self.features.add(nn.Activation('relu'))
            for item in layout:
                if item == 'pool':
                    self.features.add(nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True))
                else:
                    self.features.add(_fire(item[0], item[1], item[1]))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix='')
            self.output.add(nn.Conv2D(classes, kernel_size=1))
            self.output.add(nn.Activation('relu'))
            self.output.add(nn.AvgPool2D(13))
            self.output.add(nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """SqueezeNet ``version`` ('1.0' or '1.1').

    Parameters
    ----------
    version : str
        '1.0' or '1.1'.
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root`` (never downloaded).
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.
    """
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        load_pretrained(net, 'squeezenet%s' % version, ctx, root)
    return net


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0; keywords as for :func:`get_squeezenet`."""
    return get_squeezenet('1.0', **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1; keywords as for :func:`get_squeezenet`."""
    return get_squeezenet('1.1', **kwargs)
