"""``gluon.nn``: neural network layers and containers.

- containers: Sequential, HybridSequential, Lambda, HybridLambda
- basic layers: Dense, Dropout, Embedding, Flatten
- normalization: BatchNorm, LayerNorm, InstanceNorm, GroupNorm
- convolution: Conv1D/2D/3D, Conv1DTranspose/2DTranspose/3DTranspose
- pooling: MaxPool1D/2D/3D, AvgPool1D/2D/3D, GlobalMaxPool1D/2D/3D, GlobalAvgPool1D/2D/3D,
  and ReflectionPad2D
- activations: Activation, LeakyReLU, PReLU, ELU, SELU, GELU, Swish
"""
from ..block import Block, HybridBlock, SymbolBlock
from .activations import Activation, LeakyReLU, PReLU, ELU, SELU, Swish, GELU
from .basic_layers import (Sequential, HybridSequential, Dense, Dropout, BatchNorm, Embedding,
                           Flatten, Lambda, HybridLambda)
from .norm_layers import LayerNorm, InstanceNorm, GroupNorm
from .conv_layers import (Conv1D, Conv2D, Conv3D, Conv1DTranspose, Conv2DTranspose,
                          Conv3DTranspose)
from .pooling_layers import (MaxPool1D, MaxPool2D, MaxPool3D, AvgPool1D, AvgPool2D,
                             AvgPool3D, GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D,
                             GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D,
                             ReflectionPad2D)

__all__ = ['Block', 'HybridBlock', 'SymbolBlock',
           'Activation', 'LeakyReLU', 'PReLU', 'ELU', 'SELU', 'Swish', 'GELU',
           'Sequential', 'HybridSequential', 'Dense', 'Dropout', 'BatchNorm', 'Embedding',
           'Flatten', 'Lambda', 'HybridLambda',
           'LayerNorm', 'InstanceNorm', 'GroupNorm',
           'Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose',
           'Conv3DTranspose',
           'MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D',
           'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPool3D', 'GlobalAvgPool1D',
           'GlobalAvgPool2D', 'GlobalAvgPool3D', 'ReflectionPad2D']
