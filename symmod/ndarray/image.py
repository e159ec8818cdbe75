"""``mx.nd.image``: the registered image operators ``_image_<name>`` as ``<name>``
(to_tensor, normalize, crop, resize, flips, random colour augmentations, lighting)."""
from ..ops import registry
from .ndarray import _OPS

PREFIX = '_image_'
__all__ = sorted(n[len(PREFIX):] for n in registry.list_operators() if n.startswith(PREFIX))
globals().update({n: _OPS[PREFIX + n] for n in __all__})
