"""``mx.init`` / ``mx.initializer``: how parameter arrays get their first values."""
from .base import InitDesc, Initializer, register, alias, create
from .basic import Zero, One, Constant, Uniform, Normal
from .scaled import Xavier, MSRAPrelu, Orthogonal
from .structured import Bilinear, LSTMBias, FusedRNN
from .combine import Load, Mixed

__all__ = ['InitDesc', 'Initializer', 'register', 'alias', 'create', 'Zero', 'One',
           'Constant', 'Uniform', 'Normal', 'Xavier', 'MSRAPrelu', 'Orthogonal',
           'Bilinear', 'LSTMBias', 'FusedRNN', 'Load', 'Mixed']

from .._suggest import missing_attribute as _missing_attribute  # noqa: E402
__getattr__ = _missing_attribute(__name__)     # mx.initializer.<typo>: names the closest class
