"""``mx.optimizer``: the optimizers, their registry and the Updater.

Every optimizer MXNet 1.9.1 registers is here (plus AdamW), each in the file of its
family; the arithmetic of each update is one fused numba kernel (``kernels/``).
"""
from .optimizer import Optimizer, register, create
from .updater import Updater, get_updater
from .sgd import SGD, ccSGD, NAG
from .signum import Signum
from .adam import Adam, AdamW, Adamax, Nadam
from .lamb import LAMB
from .lars import LARS
from .lbsgd import LBSGD
from .rmsprop import RMSProp
from .adagrad import AdaGrad, AdaDelta
from .ftrl import Ftrl, FTML
from .dcasgd import DCASGD
from .sgld import SGLD
from .debug import Test
from . import contrib
from .contrib import GroupAdaGrad

__all__ = ['AdaDelta', 'AdaGrad', 'Adam', 'AdamW', 'Adamax', 'DCASGD', 'FTML', 'Ftrl', 'LARS',
           'LBSGD', 'NAG', 'Nadam', 'Optimizer', 'RMSProp', 'SGD', 'SGLD', 'Signum', 'LAMB',
           'Test', 'Updater', 'ccSGD', 'create', 'get_updater', 'register', 'contrib',
           'GroupAdaGrad']

from .._suggest import missing_attribute as _missing_attribute  # noqa: E402
__getattr__ = _missing_attribute(__name__)     # mx.optimizer.<typo>: names the closest class
