"""mx.test_utils random inputs."""
import numpy as np
import pytest

import symmod as mx
from symmod import test_utils as tu


def test_rand_ndarray_dense():
    arr = tu.rand_ndarray((3, 4), dtype=np.float64)
    assert isinstance(arr, mx.nd.NDArray) and arr.shape == (3, 4) and arr.dtype == np.float64
    assert arr.context == tu.default_context()
    assert np.std(tu.rand_ndarray((2000,)).asnumpy()) > 0.8      # standard normal values


@pytest.mark.parametrize('stype', ['csr', 'row_sparse'])
def test_sparse_storage_is_refused_clearly(stype):
    with pytest.raises(mx.MXNetError, match=stype):
        tu.rand_ndarray((3, 4), stype, density=0.5)


def test_default_context_follows_set_default_context():
    old = tu.default_context()
    tu.set_default_context(mx.cpu(1))
    try:
        assert tu.default_context() == mx.cpu(1) == mx.current_context()
    finally:
        tu.set_default_context(old)


def test_shapes():
    for _ in range(20):
        shape = tu.rand_shape_nd(3, dim=4)
        assert len(shape) == 3 and all(1 <= d <= 4 for d in shape)
        assert all(0 <= d <= 2 for d in tu.rand_shape_2d(2, 2, allow_zero_size=True))
    assert len(tu.rand_shape_3d()) == 3


def test_random_arrays_and_samples():
    single = tu.random_arrays((2, 3))
    assert single.shape == (2, 3) and single.dtype == np.float32
    pair = tu.random_arrays((1,), ())
    assert pair[1].shape == ()
    uni = tu.random_uniform_arrays((100,), low=2, high=3)
    assert uni[0].min() >= 2 and uni[0].max() < 3
    pick = tu.random_sample(list(range(10)), 4)
    assert len(set(pick)) == 4 and set(pick) <= set(range(10))


def test_assign_each():
    x = np.array([[1., 4.], [9., 16.]])
    np.testing.assert_array_equal(tu.assign_each(x, np.sqrt), np.sqrt(x))
    np.testing.assert_array_equal(tu.assign_each2(x, x, lambda a, b: a - b), np.zeros((2, 2)))


def test_matrix_generators():
    m = tu.new_matrix_with_real_eigvals_nd((2, 3, 3))
    assert m.shape == (2, 3, 3)
    assert np.allclose(np.linalg.eigvals(m[0]).imag, 0, atol=1e-6)
    q = tu.new_orthonormal_matrix_2d(4)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-10)
    s = tu.new_sym_matrix_with_real_eigvals_nd((3, 3))
    np.testing.assert_allclose(s, s.T, atol=1e-10)
    np.testing.assert_array_equal(tu.get_identity_mat_batch(2).asnumpy(), [np.eye(2)] * 2)
    np.testing.assert_array_equal(tu.create_2d_tensor(3, 2).asnumpy(), [[0, 0], [1, 1], [2, 2]])
