"""``mx.gluon.model_zoo.vision``: MXNet 1.9.1's image-classification architectures, with
its parameter names, so that its pretrained parameter files load.

AlexNet, DenseNet-121/161/169/201, Inception V3, ResNet V1/V2 (18, 34, 50, 101, 152),
SqueezeNet 1.0/1.1, VGG-11/13/16/19 with and without BatchNorm, MobileNet and
MobileNetV2 (width 1.0, 0.75, 0.5, 0.25). ``pretrained=True`` loads from ``root``
(``$MXNET_HOME/models``); nothing is downloaded (see ``model_store.get_model_file``).

Examples
--------
>>> net = mx.gluon.model_zoo.vision.get_model('resnet18_v1', classes=10)
>>> net.initialize()
>>> net(mx.nd.zeros((1, 3, 64, 64))).shape
(1, 10)
"""
from .alexnet import *              # noqa: F401,F403
from .densenet import *             # noqa: F401,F403
from .inception import *            # noqa: F401,F403
from .resnet import *               # noqa: F401,F403
from .squeezenet import *           # noqa: F401,F403
from .vgg import *                  # noqa: F401,F403
from .mobilenet import *            # noqa: F401,F403

# MXNet's model names -> constructors
_models = {
    'resnet18_v1': resnet18_v1, 'resnet34_v1': resnet34_v1,
    'resnet50_v1': resnet50_v1, 'resnet101_v1': resnet101_v1,
    'resnet152_v1': resnet152_v1, 'resnet18_v2': resnet18_v2,
    'resnet34_v2': resnet34_v2, 'resnet50_v2': resnet50_v2,
    'resnet101_v2': resnet101_v2, 'resnet152_v2': resnet152_v2,
    'vgg11': vgg11, 'vgg13': vgg13, 'vgg16': vgg16, 'vgg19': vgg19,
    'vgg11_bn': vgg11_bn, 'vgg13_bn': vgg13_bn, 'vgg16_bn': vgg16_bn,
    'vgg19_bn': vgg19_bn,
    'alexnet': alexnet,
    'densenet121': densenet121, 'densenet161': densenet161,
    'densenet169': densenet169, 'densenet201': densenet201,
    'squeezenet1.0': squeezenet1_0, 'squeezenet1.1': squeezenet1_1,
    'inceptionv3': inception_v3,
    'mobilenet1.0': mobilenet1_0, 'mobilenet0.75': mobilenet0_75,
    'mobilenet0.5': mobilenet0_5, 'mobilenet0.25': mobilenet0_25,
    'mobilenetv2_1.0': mobilenet_v2_1_0,
    'mobilenetv2_0.75': mobilenet_v2_0_75,
    'mobilenetv2_0.5': mobilenet_v2_0_5,
    'mobilenetv2_0.25': mobilenet_v2_0_25,
}


def get_model(name, **kwargs):
    """The network MXNet's model zoo calls ``name`` (e.g. ``'resnet18_v1'``).

    Parameters
    ----------
    name : str
        Model name (case-insensitive).
    pretrained : bool, default False
        Load the pretrained parameters from ``root`` (never downloaded).
    classes : int
        Number of classes of the output layer.
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.

    Returns
    -------
    HybridBlock
        The network.
    """
    key = name.lower()
    if key not in _models:
        raise ValueError('Model %s is not supported. Available options are\n\t%s'
                         % (name, '\n\t'.join(sorted(_models))))
    return _models[key](**kwargs)
