"""Creation operators in graphs take unknown dims (-1, or 0 under MXNet's legacy shape
rules) in ``shape`` and have them filled by shape inference from where the array is used,
as MXNet 1.9.1 does; imperatively a negative dimension is an MXNetError."""
import numpy as np
import pytest

import symmod as mx


def test_backward_inference_through_transpose_fills_every_unknown_dim():
    out = mx.sym.ones(shape=[2, 3]) + mx.sym.transpose(mx.sym.ones(shape=[-1, -1]))
    y = out.bind(mx.cpu(), args={}).forward()[0]
    np.testing.assert_array_equal(y.asnumpy(), np.full((2, 3), 2.0))


def test_known_and_unknown_dims_mixed():
    out = mx.sym.ones(shape=[2, -1]) + mx.sym.transpose(mx.sym.zeros(shape=[3, -1]))
    assert out.bind(mx.cpu(), args={}).forward()[0].shape == (2, 3)
    # partial inference reports the unknown dim as MXNet does (0 with legacy shapes)
    assert mx.sym.zeros(shape=(-1, 3)).infer_shape_partial() == ([], [(0, 3)], [])


@pytest.mark.parametrize('make', [lambda: mx.nd.ones(shape=(-1, 2)),
                                  lambda: mx.nd.zeros((2, -3)),
                                  lambda: mx.nd.empty((-1,)),
                                  lambda: mx.nd.full((-2, 1), 3)])
def test_negative_dims_are_refused_imperatively(make):
    with pytest.raises(mx.MXNetError, match='non-negative'):
        make()
