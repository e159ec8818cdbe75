"""``mx.nd.zeros`` and ``mx.nd.ones`` with MXNet's legacy-shape rule.

Without NumPy-shape semantics (``mx.np_shape``/``mx.util.set_np_shape``) MXNet 1.x reads
a 0 dim as unknown and a 0-dim shape as no shape, so its ``_zeros``/``_ones`` operators
refuse ``()`` and shapes with a 0 dim; under NumPy-shape semantics they make scalars and
zero-size arrays. (``empty``, ``full`` and ``array`` make them in both modes, as in
MXNet.) symmod's own code creates such arrays internally through
``symmod.ndarray.ndarray.zeros``, which has no such rule.
"""
from ..base import MXNetError, integer_types
from ..util import is_np_shape
from . import ndarray as _nd

__all__ = ['zeros', 'ones']


def _check(op_name, shape, dtype):
    dims = (shape,) if isinstance(shape, integer_types) else tuple(shape)
    if not is_np_shape() and (not dims or 0 in dims):
        raise MXNetError('Operator %s inferring shapes failed: shape %s has %s, which means '
                         'an unknown shape without NumPy-shape semantics; turn them on with '
                         'mx.np_shape() or mx.util.set_np_shape(True) for scalars and '
                         'zero-size arrays\noperator attributes:\ndtype : %s\nshape : %s'
                         % (op_name, dims, 'no dimension' if not dims else 'a 0 dimension',
                            dtype or 'float32', dims))


def zeros(shape, ctx=None, dtype=None, stype=None, out=None, **kwargs):
    """An array of zeros (float32 unless ``dtype``; written into ``out`` when given).

    ``stype`` 'row_sparse' or 'csr' gives a sparse array with nothing stored. A shape
    ``()`` or one with a 0 dim needs NumPy-shape semantics (``mx.np_shape()``).
    """
    if out is None and stype in (None, 'default'):
        _check('_zeros', shape, dtype)
    return _nd.zeros(shape, ctx=ctx, dtype=dtype, stype=stype, out=out, **kwargs)


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of ones (float32 unless ``dtype``; written into ``out`` when given).

    A shape ``()`` or one with a 0 dim needs NumPy-shape semantics (``mx.np_shape()``).
    """
    if out is None:
        _check('_ones', shape, dtype)
    return _nd.ones(shape, ctx=ctx, dtype=dtype, out=out, **kwargs)
