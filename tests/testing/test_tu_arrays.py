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
def test_rand_ndarray_sparse(stype):
    arr = tu.rand_ndarray((30, 40), stype, density=0.25, dtype=np.float64)
    assert arr.stype == stype and arr.shape == (30, 40) and arr.dtype == np.float64
    dense = arr.asnumpy()
    assert 0 < np.count_nonzero(dense) < dense.size
    arr.check_format()
    assert tu.rand_ndarray((3, 4), stype, density=0).asnumpy().sum() == 0


def test_rand_sparse_ndarray_parts_and_options():
    rsp, (values, rows) = tu.rand_sparse_ndarray((6, 2), 'row_sparse', rsp_indices=np.array([1, 4]),
                                                 data_init=3.0)
    np.testing.assert_array_equal(rsp.indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(values, np.full((2, 2), 3.0))
    csr, (indptr, indices, data) = tu.rand_sparse_ndarray((4, 5), 'csr', density=0.5)
    np.testing.assert_array_equal(indptr.asnumpy(), csr.indptr.asnumpy())
    # powerlaw rows double their stored values (MXNet's generator)
    power, _ = tu.rand_sparse_ndarray((32, 1000), 'csr', density=0.1, distribution='powerlaw')
    counts = np.diff(power.indptr.asnumpy())
    assert counts[1] == 2 * counts[0] and counts[2] == 2 * counts[1]
    shuffled = tu.create_sparse_array((8, 30), 'csr', density=0.9, shuffle_csr_indices=True)
    with pytest.raises(mx.MXNetError, match='ascending'):
        shuffled.check_format()
    zd = tu.create_sparse_array_zd((5, 3), 'row_sparse', density=0.9, rsp_indices=[3, 0])
    np.testing.assert_array_equal(zd.indices.asnumpy(), [0, 3])


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
