"""Optimizer updates MXNet runs through its storage fallback: a row_sparse gradient that
stores no rows (rand_ndarray makes them at low density) and a csr weight."""
import numpy as np
import pytest

import symmod as mx


@pytest.mark.parametrize('make', [
    lambda: mx.optimizer.SGD(learning_rate=0.1, wd=0.1, lazy_update=False),
    lambda: mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.1, lazy_update=False),
    lambda: mx.optimizer.Adam(learning_rate=0.1, wd=0.1, lazy_update=False),
    lambda: mx.optimizer.Ftrl(learning_rate=0.1, wd=0.1),
])
def test_standard_update_with_no_stored_rows_equals_a_dense_zero_gradient(make):
    shape = (3, 2, 2)
    empty = mx.nd.sparse.zeros('row_sparse', shape)
    assert empty.indices.shape == (0,)
    dense, sparse = mx.nd.ones(shape), mx.nd.ones(shape)
    mx.optimizer.get_updater(make())(0, mx.nd.zeros(shape), dense)
    mx.optimizer.get_updater(make())(0, empty, sparse)
    np.testing.assert_allclose(sparse.asnumpy(), dense.asnumpy(), rtol=1e-6)


def test_lazy_update_with_no_stored_rows_changes_nothing():
    weight = mx.nd.ones((3, 2))
    mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=0.1, wd=0.1))(
        0, mx.nd.sparse.zeros('row_sparse', (3, 2)), weight)
    np.testing.assert_array_equal(weight.asnumpy(), 1)


@pytest.mark.parametrize('grad_stype', ['csr', 'default'])
def test_csr_weight_is_updated_as_its_dense_copy(grad_stype):
    dense_w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    dense_g = np.zeros((3, 4), np.float32)
    dense_g[1, 2], dense_g[2, 0] = 1.0, 2.0
    weight = mx.nd.array(dense_w).tostype('csr')
    grad = mx.nd.array(dense_g).tostype(grad_stype)
    mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, wd=0.01))(0, grad, weight)
    assert weight.stype == 'csr'
    np.testing.assert_allclose(weight.asnumpy(), dense_w - 0.1 * (dense_g + 0.01 * dense_w),
                               rtol=1e-6)
