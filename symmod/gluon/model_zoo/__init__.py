"""``mx.gluon.model_zoo``: predefined architectures (``vision``) and where their
pretrained parameters are kept (``model_store``)."""
from . import model_store
from . import vision

__all__ = ['model_store', 'vision']
