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


def test_csr_weight_and_momentum_state_are_updated_as_dense_copies():
    dense_w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    weight = mx.nd.array(dense_w).tostype('csr')
    grad = mx.nd.array(np.ones((3, 4))).tostype('csr')
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    state = opt.create_state_multi_precision(0, weight)
    assert state.stype == 'csr'             # MXNet: the weight's stype under lazy_update
    for _ in range(2):
        opt.update_multi_precision(0, weight, grad, state)
    np.testing.assert_allclose(state.asnumpy(), -0.19, rtol=1e-6)
    np.testing.assert_allclose(weight.asnumpy(), dense_w - 0.29, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('weight_stype', ['row_sparse', 'default'])
def test_float16_lazy_update_runs_on_the_master_copy(weight_stype):
    """MXNet's Optimizer.update_multi_precision: the lazy row step on the float32 master
    copy, so rows without gradient keep their weight even with weight decay."""
    results = {}
    for dtype, mp in [(np.float32, False), (np.float16, True)]:
        weight = mx.nd.array(np.full((3, 2), 0.75), dtype=dtype).tostype(weight_stype)
        grad = mx.nd.sparse.row_sparse_array((np.full((1, 2), 0.5, dtype), [1]), shape=(3, 2),
                                             dtype=dtype)
        opt = mx.optimizer.Adam(learning_rate=0.01, wd=0.03, multi_precision=mp)
        state = opt.create_state_multi_precision(0, weight)
        opt.update_multi_precision(0, weight, grad, state)
        results[dtype] = weight.asnumpy()
        if mp:
            np.testing.assert_allclose(state[0].asnumpy(), results[np.float32], rtol=1e-7)
    np.testing.assert_array_equal(results[np.float16][[0, 2]], 0.75)
    np.testing.assert_array_equal(results[np.float16],
                                  results[np.float32].astype(np.float16))
