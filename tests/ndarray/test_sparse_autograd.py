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
