"""NDArray slice assignment broadcasts like MXNet's, including a one-element array into a
single element (numpy alone refuses that)."""
import numpy as np

import symmod as mx


def test_assignments():
    a = mx.nd.zeros((3,))
    a[1] = mx.nd.array([5])
    a[2] = np.array([[7.0]])
    np.testing.assert_array_equal(a.asnumpy(), [0, 5, 7])
    b = mx.nd.zeros((2, 3))
    b[0] = mx.nd.array([4])
    b[1, 1:] = mx.nd.array([1, 2])
    b[:, 0] += 1
    np.testing.assert_array_equal(b.asnumpy(), [[5, 4, 4], [1, 1, 2]])
    b[:] = 0
    assert not b.asnumpy().any()
