"""AlexNet (Krizhevsky, 2014: "One weird trick for parallelizing convolutional neural
networks"), with MXNet 1.9.1's layer order and parameter names."""
from ....context import cpu
from ...block import HybridBlock
from ... import nn
from ..model_store import DEFAULT_ROOT, load_pretrained

__all__ = ['AlexNet', 'alexnet']


class AlexNet(HybridBlock):
    """Five convolutions (three max-pooled) and two dropout-regularised dense layers;
    input 224x224.

    Parameters
    ----------
    classes : int, default 1000
        Number of classes.
    """

    def __init__(self, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                for channels, kernel, stride, pad, pool in ((64, 11, 4, 2, True),
                                                            (192, 5, 1, 2, True),
                                                            (384, 3, 1, 1, False),
                                                            (256, 3, 1, 1, False),
                                                            (256, 3, 1, 1, True)):
                    self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride,
                                                padding=pad, activation='relu'))
                    if pool:
                        self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation='relu'))
                    self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained=False, ctx=cpu(), root=DEFAULT_ROOT, **kwargs):
    """AlexNet.

    Parameters
    ----------
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root`` (never downloaded).
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default '$MXNET_HOME/models'
        Where the pretrained parameter files are kept.
    """
    net = AlexNet(**kwargs)
    if pretrained:
        load_pretrained(net, 'alexnet', ctx, root)
    return net
