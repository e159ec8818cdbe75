"""``gluon.nn``: layers (Dense, Activation, Dropout, BatchNorm, Flatten) and containers."""
from ..block import Block, HybridBlock, SymbolBlock
from .activations import Activation, LeakyReLU
from .basic_layers import (Sequential, HybridSequential, Dense, Dropout, BatchNorm, Flatten,
                           Lambda, HybridLambda)

__all__ = ['Block', 'HybridBlock', 'SymbolBlock', 'Activation', 'LeakyReLU', 'Sequential',
           'HybridSequential', 'Dense', 'Dropout', 'BatchNorm', 'Flatten', 'Lambda',
           'HybridLambda']
