"""``mx.gluon``: Parameters, Blocks, layers, losses and the Trainer.

Imperative models written with ``gluon`` train with ``autograd`` and
:class:`Trainer`; :class:`SymbolBlock` wraps a Symbol (a Module checkpoint) as a block.
"""
from .parameter import (DeferredInitializationError, Parameter, Constant, ParameterDict,
                        tensor_types)
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import rnn
from .trainer import Trainer
from . import loss
from . import utils
from . import data
from . import contrib
from . import model_zoo

__all__ = ['DeferredInitializationError', 'Parameter', 'Constant', 'ParameterDict',
           'tensor_types', 'Block', 'HybridBlock', 'SymbolBlock', 'nn', 'Trainer', 'loss',
           'utils']
