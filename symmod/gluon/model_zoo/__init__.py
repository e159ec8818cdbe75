"""``mx.gluon.model_zoo``: predefined network architectures (``vision``)."""
from . import vision

__all__ = ['vision']
