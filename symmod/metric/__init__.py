"""``mx.metric``: online evaluation metrics for training and scoring."""
from .base import EvalMetric, check_label_shapes
from .registry import register, alias, create
from .composite import CompositeEvalMetric
from .classification import Accuracy, TopKAccuracy, F1, MCC, PCC
from .regression import MAE, MSE, RMSE, PearsonCorrelation
from .probabilistic import CrossEntropy, NegativeLogLikelihood, Perplexity
from .custom import Loss, Torch, Caffe, CustomMetric, np

__all__ = ['EvalMetric', 'check_label_shapes', 'register', 'alias', 'create',
           'CompositeEvalMetric', 'Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'PCC',
           'MAE', 'MSE', 'RMSE', 'PearsonCorrelation', 'CrossEntropy',
           'NegativeLogLikelihood', 'Perplexity', 'Loss', 'Torch', 'Caffe',
           'CustomMetric', 'np']

from .._suggest import missing_attribute as _missing_attribute  # noqa: E402
__getattr__ = _missing_attribute(__name__)     # mx.metric.<typo>: names the closest class
