"""``mx.gluon.loss``: loss functions as HybridBlocks, each returning one loss value per
sample (PoissonNLLLoss: one value in all).

- element by element (pointwise.py): L1Loss, L2Loss, SoftmaxCrossEntropyLoss,
  SigmoidBinaryCrossEntropyLoss, KLDivLoss, HuberLoss, HingeLoss, SquaredHingeLoss,
  LogisticLoss, PoissonNLLLoss;
- over pairs and triplets (pairwise.py): TripletLoss, CosineEmbeddingLoss, SDMLLoss;
- over sequences (ctc.py): CTCLoss.
"""
from .base import Loss
from .pointwise import (L2Loss, L1Loss, SoftmaxCrossEntropyLoss, SoftmaxCELoss,
                        SigmoidBinaryCrossEntropyLoss, SigmoidBCELoss, HuberLoss, HingeLoss,
                        SquaredHingeLoss, LogisticLoss, KLDivLoss, PoissonNLLLoss)
from .pairwise import TripletLoss, CosineEmbeddingLoss, SDMLLoss
from .ctc import CTCLoss

__all__ = ['Loss', 'L2Loss', 'L1Loss', 'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss',
           'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'KLDivLoss', 'PoissonNLLLoss', 'TripletLoss',
           'CosineEmbeddingLoss', 'SDMLLoss', 'CTCLoss']
