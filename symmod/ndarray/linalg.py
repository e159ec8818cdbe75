"""``mx.nd.linalg``: the linalg operators under their short names.

Every registered operator ``_linalg_<name>`` appears here as ``<name>`` (the same
function as ``mx.nd._internal._linalg_<name>``): gemm, gemm2, potrf, potri, trmm,
trsm, sumlogdiag, syrk, gelqf, syevd, inverse, det, slogdet, extractdiag, makediag,
extracttrian, maketrian.

Examples
--------
>>> a = mx.nd.array([[4, 2], [2, 5]])
>>> mx.nd.linalg.potrf(a).asnumpy()
array([[2., 0.],
       [1., 2.]], dtype=float32)
"""
from ..ops import registry
from .ndarray import _OPS

PREFIX = '_linalg_'
__all__ = sorted(n[len(PREFIX):] for n in registry.list_operators() if n.startswith(PREFIX))
globals().update({n: _OPS[PREFIX + n] for n in __all__})
