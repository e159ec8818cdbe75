"""VGG 11/13/16/19, with or without BatchNorm (Simonyan and Zisserman, 2014), with
MXNet 1.9.1's layer order, initializers and parameter names."""
from ....context import cpu
from ....initializer import Xavier
from ...block import HybridBlock
from ... import nn
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ['VGG', 'vgg11', 'vgg13', 'vgg16', 'vgg19', 'vgg11_bn', 'vgg13_bn', 'vgg16_bn',
           'vgg19_bn', 'get_vgg']


class VGG(HybridBlock):
    """Stacks of 3x3 convolutions, each stack max-pooled, then two dense layers.

    Parameters
    ----------
    layers : list of int
        Convolutions per stack.
    filters : list of int
        Channels of each stack.
    classes : int, default 1000
        Number of classes.
    batch_norm : bool, default False
        BatchNorm after each convolution.
    """

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters)
        with self.name_scope():
            self.features = self._make_features(layers, filters, batch_norm)
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation='relu',
                                           weight_initializer='normal',
                                           bias_initializer='zeros'))
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer='normal',
                                   bias_initializer='zeros')

    @staticmethod
    def _make_features(layers, filters, batch_norm):
        featurizer = nn.HybridSequential(prefix='')
        for num, channels in zip(layers, filters):
            for _ in range(num):
                featurizer.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                         weight_initializer=Xavier(rnd_type='gaussian',
                                                                   factor_type='out',
                                                                   magnitude=2),
                                         bias_initializer='zeros'))
                if batch_norm:
                    featurizer.add(nn.BatchNorm())
                featurizer.add(nn.Activation('relu'))
            featurizer.add(nn.MaxPool2D(strides=2))
        return featurizer

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


# layers -> (convolutions per stack, channels per stack)
vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers, pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """VGG with ``num_layers`` (11, 13, 16 or 19) layers.

    Parameters
    ----------
    num_layers : int
        11, 13, 16 or 19.
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root`` (never downloaded).
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.
    **kwargs
        For the network (``classes``, ``batch_norm``, ...).
    """
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    if pretrained:
        suffix = '_bn' if kwargs.get('batch_norm') else ''
        load_pretrained(net, 'vgg%d%s' % (num_layers, suffix), ctx, root)
    return net


def vgg11(**kwargs):
    """VGG-11; keywords as for :func:`get_vgg`."""
    return get_vgg(11, **kwargs)


def vgg13(**kwargs):
    """VGG-13; keywords as for :func:`get_vgg`."""
    return get_vgg(13, **kwargs)


def vgg16(**kwargs):
    """VGG-16; keywords as for :func:`get_vgg`."""
    return get_vgg(16, **kwargs)


def vgg19(**kwargs):
    """VGG-19; keywords as for :func:`get_vgg`."""
    return get_vgg(19, **kwargs)


def vgg11_bn(**kwargs):
    """VGG-11 with BatchNorm; keywords as for :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(11, **kwargs)


def vgg13_bn(**kwargs):
    """VGG-13 with BatchNorm; keywords as for :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(13, **kwargs)


def vgg16_bn(**kwargs):
    """VGG-16 with BatchNorm; keywords as for :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(16, **kwargs)


def vgg19_bn(**kwargs):
    """VGG-19 with BatchNorm; keywords as for :func:`get_vgg`."""
    kwargs['batch_norm'] = True
    return get_vgg(19, **kwargs)
