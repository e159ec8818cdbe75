"""autograd into row_sparse gradient buffers: the rows MXNet 1.9.1's gradient holds
(values below were printed by MXNet 1.9.1 for the same calls)."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError


@pytest.mark.parametrize('op', ['Embedding', 'SparseEmbedding'])
def test_embedding_gradient_keeps_every_looked_up_row(op):
    w = mx.nd.ones((5, 3))
    w.attach_grad(stype='row_sparse')
    embed = (lambda x: mx.nd.Embedding(x, w, input_dim=5, output_dim=3, sparse_grad=True)) \
        if op == 'Embedding' else \
        (lambda x: mx.nd.contrib.SparseEmbedding(x, w, input_dim=5, output_dim=3))
    with mx.autograd.record():
        y = embed(mx.nd.array([0, 2, 2]))
        z = (y * 0).sum()       # a zero gradient: MXNet still holds rows 0 and 2
    z.backward()
    assert w.grad.stype == 'row_sparse'
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [0, 2])
    np.testing.assert_array_equal(w.grad.data.asnumpy(), np.zeros((2, 3)))
    with mx.autograd.record():
        y = embed(mx.nd.array([4]))
        z = (y * y).sum()
    z.backward()                # 'write': the previous rows are gone
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [4])
    np.testing.assert_array_equal(w.grad.data.asnumpy(), [[2, 2, 2]])


def test_lazy_update_moves_the_looked_up_rows_only():
    w = mx.nd.ones((4, 2))
    w.attach_grad(stype='row_sparse')
    with mx.autograd.record():
        z = mx.nd.Embedding(mx.nd.array([1, 3]), w, input_dim=4, output_dim=2,
                            sparse_grad=True).sum()
    z.backward()
    updater = mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=0.1))
    updater(0, w.grad, w)
    moved = np.flatnonzero((w.asnumpy() != 1).any(axis=1))
    np.testing.assert_array_equal(moved, [1, 3])


def test_dense_gradient_into_row_sparse_buffer_keeps_nonzero_rows_and_adds():
    w = mx.nd.ones((5, 3))
    w.attach_grad(grad_req='add', stype='row_sparse')
    with mx.autograd.record():
        z = (w[1:3] * w[1:3]).sum()
    z.backward()
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [1, 2])
    with mx.autograd.record():
        z = (w * mx.nd.array([[0], [0], [0], [1], [0]])).sum()
    z.backward()
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(w.grad.data.asnumpy(), [[2, 2, 2], [2, 2, 2], [1, 1, 1]])


def test_embedding_refuses_grad_req_add_like_mxnet():
    w = mx.nd.ones((5, 3))
    w.attach_grad(grad_req='add', stype='row_sparse')
    with mx.autograd.record():
        z = mx.nd.Embedding(mx.nd.array([1]), w, input_dim=5, output_dim=3,
                            sparse_grad=True).sum()
    with pytest.raises(MXNetError, match="doesn't support weight gradient calculation"):
        z.backward()


@pytest.mark.parametrize('stype', ['row_sparse', 'csr'])
def test_attach_grad_defaults_to_the_array_storage(stype):
    x = mx.nd.zeros((2, 3)).tostype(stype)
    x.attach_grad()
    assert x.grad.stype == stype
    x.attach_grad(stype='default')
    assert x.grad.stype == 'default'


@pytest.mark.parametrize('stype_x', ['default', 'row_sparse', 'csr'])
@pytest.mark.parametrize('stype_y', ['row_sparse', 'csr'])
def test_operators_without_sparse_kernel_are_recorded(stype_x, stype_y):
    # exp and x + x*y on sparse inputs run densely (MXNet's storage fallback); the tape
    # must still see the sparse variables
    rng = np.random.RandomState(0)
    xv, yv = rng.uniform(0.1, 1, (4, 5)), rng.uniform(0.1, 1, (4, 5))
    x = mx.nd.array(xv).tostype(stype_x)
    y = mx.nd.array(yv).tostype(stype_y)
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        z = mx.nd.exp(y) + x * y
    z.backward()
    assert x.grad.stype == stype_x and y.grad.stype == stype_y
    np.testing.assert_allclose(x.grad.asnumpy(), yv, rtol=1e-6)
    np.testing.assert_allclose(y.grad.asnumpy(), np.exp(yv) + xv, rtol=1e-6)


def test_sparse_dot_gradient_is_row_sparse():
    lhs = mx.nd.array([[0, 1, 0, 2], [3, 0, 0, 0]]).tostype('csr')
    for rhs in (mx.nd.ones((4, 3)).tostype('row_sparse'), mx.nd.ones((4, 3))):
        rhs.attach_grad(stype='row_sparse')
        with mx.autograd.record():
            y = mx.nd.dot(lhs, rhs)
        y.backward()
        assert rhs.grad.stype == 'row_sparse'
        np.testing.assert_allclose(rhs.grad.asnumpy(), lhs.asnumpy().T @ np.ones((2, 3)))


@pytest.mark.parametrize('stype', ['row_sparse', 'default'])
def test_sparse_and_dense_contributions_sum_like_mxnet(stype):
    # MXNet 1.9.1 prints these rows and values for the same calls (its add_n of the three
    # contributions falls back to dense and stores row_sparse)
    w = mx.nd.array(np.arange(18, dtype=np.float32).reshape(6, 3) / 4)
    w.attach_grad(stype=stype)
    with mx.autograd.record():
        a = mx.nd.Embedding(mx.nd.array([0, 2, 2]), w, input_dim=6, output_dim=3,
                            sparse_grad=True)
        b = mx.nd.contrib.SparseEmbedding(mx.nd.array([[2, 5], [1, 1]]), w, input_dim=6,
                                          output_dim=3)
        z = (a * 2).sum() + (b * b).sum() + \
            (mx.nd.slice_axis(w, axis=0, begin=4, end=5) * 3).sum() + (b[1] * 0).sum()
    z.backward()
    assert w.grad.stype == stype
    if stype == 'row_sparse':
        np.testing.assert_array_equal(w.grad.indices.asnumpy(), [0, 1, 2, 4, 5])
    np.testing.assert_allclose(w.grad.asnumpy(), [[2, 2, 2], [3, 4, 5], [7, 7.5, 8], [0, 0, 0],
                                                  [3, 3, 3], [7.5, 8, 8.5]])


def test_sparse_grad_embedding_backward_allocates_no_dense_weight_gradient():
    import tracemalloc
    w = mx.nd.zeros((200000, 32))        # 25.6 MB: a dense gradient would show
    w.attach_grad(stype='row_sparse')
    ids = mx.nd.array([3, 199999, 3, 7])
    with mx.autograd.record():
        z = (mx.nd.Embedding(ids, w, input_dim=200000, output_dim=32, sparse_grad=True) *
             2).sum()
    tracemalloc.start()
    try:
        z.backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [3, 7, 199999])
    np.testing.assert_array_equal(w.grad.data.asnumpy(), [[4] * 32, [2] * 32, [2] * 32])


def test_autograd_grad_returns_the_dense_value_of_a_sparse_embedding_gradient():
    w = mx.nd.ones((4, 2))
    w.attach_grad(stype='row_sparse')
    with mx.autograd.record():
        z = (mx.nd.Embedding(mx.nd.array([1, 1, 3]), w, input_dim=4, output_dim=2,
                             sparse_grad=True) * 3).sum()
    g, = mx.autograd.grad(z, [w])
    assert g.stype == 'default'
    np.testing.assert_array_equal(g.asnumpy(), [[0, 0], [6, 6], [0, 0], [3, 3]])


@pytest.mark.parametrize('stype', ['row_sparse', 'default'])
def test_csr_dot_gradient_holds_every_stored_column_like_mxnet(stype):
    # MXNet 1.9.1: the rhs gradient of dot(csr, w) holds one row per column the csr
    # stores, an explicit zero's column (3) included; dot(csr.T, w2) is row_sparse
    x = mx.nd.sparse.csr_matrix((np.array([1, 0, 2], np.float32), np.array([1, 3, 1]),
                                 np.array([0, 2, 3, 3])), shape=(3, 5))
    w = mx.nd.array(np.arange(10, dtype=np.float32).reshape(5, 2))
    w.attach_grad(stype=stype)
    with mx.autograd.record():
        y = mx.nd.sparse.dot(x, w)
        z = (y * mx.nd.array([[1, 2], [3, 4], [5, 6]])).sum()
    z.backward()
    assert y.stype == 'default' and w.grad.stype == stype
    if stype == 'row_sparse':
        np.testing.assert_array_equal(w.grad.indices.asnumpy(), [1, 3])
    expected = np.zeros((5, 2), np.float32)
    expected[1] = [7, 10]
    np.testing.assert_array_equal(w.grad.asnumpy(), expected)
    w2 = mx.nd.ones((3, 2))
    w2.attach_grad(stype=stype)
    with mx.autograd.record():
        y2 = mx.nd.sparse.dot(x, w2, transpose_a=True)
        z2 = y2.sum()
    z2.backward()
    assert y2.stype == 'row_sparse'
    np.testing.assert_array_equal(w2.grad.asnumpy(), [[1, 1], [2, 2], [0, 0]])
