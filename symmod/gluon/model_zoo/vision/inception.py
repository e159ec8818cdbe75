"""Inception V3 (Szegedy et al., 2015), input 299x299, with MXNet 1.9.1's layer order
and parameter names (the mixed blocks are prefixed ``A1_`` ... ``E2_``)."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ['Inception3', 'inception_v3']

_SETTING_NAMES = ('channels', 'kernel_size', 'strides', 'padding')


def _basic_conv(**kwargs):
    """Convolution (no bias), BatchNorm (epsilon 1e-3), ReLU."""
    out = nn.HybridSequential(prefix='')
    out.add(nn.Conv2D(use_bias=False, **kwargs))
    out.add(nn.BatchNorm(epsilon=0.001))
    out.add(nn.Activation('relu'))
    return out


def _branch(use_pool, *conv_settings):
    """An optional pooling ('avg': 3x3 stride 1; 'max': 3x3 stride 2), then one basic
    convolution per setting ``(channels, kernel, strides, padding)``, None meaning the
    default."""
    out = nn.HybridSequential(prefix='')
    if use_pool == 'avg':
        out.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif use_pool == 'max':
        out.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in conv_settings:
        out.add(_basic_conv(**{name: value for name, value in zip(_SETTING_NAMES, setting)
                               if value is not None}))
    return out


def _concurrent(prefix, *branches):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        for use_pool, settings in branches:
            out.add(_branch(use_pool, *settings))
    return out


def _make_A(pool_features, prefix):
    return _concurrent(prefix,
                       (None, [(64, 1, None, None)]),
                       (None, [(48, 1, None, None), (64, 5, None, 2)]),
                       (None, [(64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)]),
                       ('avg', [(pool_features, 1, None, None)]))


def _make_B(prefix):
    return _concurrent(prefix,
                       (None, [(384, 3, 2, None)]),
                       (None, [(64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)]),
                       ('max', []))


def _make_C(channels_7x7, prefix):
    c = channels_7x7
    return _concurrent(prefix,
                       (None, [(192, 1, None, None)]),
                       (None, [(c, 1, None, None), (c, (1, 7), None, (0, 3)),
                               (192, (7, 1), None, (3, 0))]),
                       (None, [(c, 1, None, None), (c, (7, 1), None, (3, 0)),
                               (c, (1, 7), None, (0, 3)), (c, (7, 1), None, (3, 0)),
                               (192, (1, 7), None, (0, 3))]),
                       ('avg', [(192, 1, None, None)]))


def _make_D(prefix):
    return _concurrent(prefix,
                       (None, [(192, 1, None, None), (320, 3, 2, None)]),
                       (None, [(192, 1, None, None), (192, (1, 7), None, (0, 3)),
                               (192, (7, 1), None, (3, 0)), (192, 3, 2, None)]),
                       ('max', []))


def _split_pair():
    """1x3 and 3x1 convolutions side by side."""
    split = HybridConcurrent(axis=1, prefix='')
    split.add(_branch(None, (384, (1, 3), None, (0, 1))))
    split.add(_branch(None, (384, (3, 1), None, (1, 0))))
    return split


def _make_E(prefix):
    out = HybridConcurrent(axis=1, prefix=prefix)
    with out.name_scope():
        out.add(_branch(None, (320, 1, None, None)))
        branch_3x3 = nn.HybridSequential(prefix='')
        out.add(branch_3x3)
        branch_3x3.add(_branch(None, (384, 1, None, None)))
        branch_3x3.add(_split_pair())
        branch_3x3dbl = nn.HybridSequential(prefix='')
        out.add(branch_3x3dbl)
        branch_3x3dbl.add(_branch(None, (448, 1, None, None), (384, 3, None, 1)))
        branch_3x3dbl.add(_split_pair())
        out.add(_branch('avg', (192, 1, None, None)))
    return out


def make_aux(classes):
    """The auxiliary classifier head (not part of :class:`Inception3`'s forward)."""
    out = nn.HybridSequential(prefix='')
    out.add(nn.AvgPool2D(pool_size=5, strides=3))
    out.add(_basic_conv(channels=128, kernel_size=1))
    out.add(_basic_conv(channels=768, kernel_size=5))
    out.add(nn.Flatten())
    out.add(nn.Dense(classes))
    return out


class Inception3(HybridBlock):
    """Inception V3 (Rethinking the Inception Architecture for Computer Vision).

    Parameters
    ----------
    classes : int, default 1000
        Number of classes.
    """

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(_basic_conv(channels=32, kernel_size=3, strides=2))
            self.features.add(_basic_conv(channels=32, kernel_size=3))
            self.features.add(_basic_conv(channels=64, kernel_size=3, padding=1))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_basic_conv(channels=80, kernel_size=1))
            self.features.add(_basic_conv(channels=192, kernel_size=3))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_make_A(32, 'A1_'))
            self.features.add(_make_A(64, 'A2_'))
            self.features.add(_make_A(64, 'A3_'))
            self.features.add(_make_B('B_'))
            self.features.add(_make_C(128, 'C1_'))
            self.features.add(_make_C(160, 'C2_'))
            self.features.add(_make_C(160, 'C3_'))
            self.features.add(_make_C(192, 'C4_'))
            self.features.add(_make_D('D_'))
            self.features.add(_make_E('E1_'))
            self.features.add(_make_E('E2_'))
            self.features.add(nn.AvgPool2D(pool_size=8))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """Inception V3.

    Parameters
    ----------
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root`` (never downloaded).
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.
    """
    net = Inception3(**kwargs)
    if pretrained:
        load_pretrained(net, 'inceptionv3', ctx, root)
    return net
