"""NDArray.copy and copyto on dense CPU arrays (their direct numpy path) keep MXNet's
behaviour: new independent storage, casting into the destination's dtype, the shape check,
and an operator error not yet reported travelling with the copy."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError


def test_copy_is_independent_and_keeps_dtype_and_context():
    a = mx.nd.array(np.arange(12).reshape(3, 4), dtype='float64', ctx=mx.cpu(1))
    b = a.copy()
    assert b.dtype == np.float64 and b.context == mx.cpu(1) and b.shape == (3, 4)
    assert not np.shares_memory(a.asnumpy(), b.asnumpy())
    a[:] = 0
    np.testing.assert_array_equal(b.asnumpy(), np.arange(12).reshape(3, 4))


def test_copy_of_a_strided_view_is_contiguous():
    base = mx.nd.array(np.arange(24).reshape(4, 6))
    view = mx.nd.NDArray(base.asnumpy()[:, ::2], base.context)
    out = view.copy()
    assert out.asnumpy().flags.c_contiguous
    np.testing.assert_array_equal(out.asnumpy(), np.arange(24).reshape(4, 6)[:, ::2])


def test_copyto_casts_into_the_destination_and_checks_the_shape():
    src = mx.nd.array([[1.7, -2.2, 3.5]])
    dst = mx.nd.zeros((1, 3), dtype='int32')
    assert src.copyto(dst) is dst
    np.testing.assert_array_equal(dst.asnumpy(), [[1, -2, 3]])
    assert src.copyto(src) is src
    with pytest.raises(ValueError, match=r'shape mismatch, destination \(3,\) vs source '
                                         r'\(1, 3\)'):
        src.copyto(mx.nd.zeros((3,)))
    with pytest.raises(ValueError, match='shape mismatch'):
        src.copyto(mx.nd.zeros((3, 1)))


def _failed_take():
    """An array whose writer (take with an index out of range) failed, not yet read."""
    return mx.nd.take(mx.nd.ones((2, 2)), mx.nd.array([0, 5]), mode='raise')


def test_copy_and_copyto_carry_an_unreported_operator_error():
    """An operator's error is reported at the first read of its output (MXNet's engine);
    a copy made before that read raises it at its own first read."""
    copied = _failed_take().copy()
    with pytest.raises(MXNetError, match='take: indices out of bound'):
        copied.asnumpy()
    target = mx.nd.zeros((2, 2))
    _failed_take().copyto(target)
    with pytest.raises(MXNetError, match='take: indices out of bound'):
        target.asnumpy()
