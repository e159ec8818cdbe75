"""gluon Parameters with csr storage, as MXNet 1.9.1 has them: ``grad_stype='csr'`` gives a
dense weight with csr gradients (written by backward, densified by the optimizer, kept
csr by zero_grad); ``stype='csr'`` is accepted, but its data cannot be read as dense."""
import numpy as np
import pytest

import symmod as mx
from symmod import gluon


class _Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.w = self.params.get('w', shape=(3, 4), grad_stype='csr', init=mx.init.One())

    def hybrid_forward(self, F, x, w):
        return F.relu(F.broadcast_mul(w, x) * 2 + 1).sum()


@pytest.mark.parametrize('kvstore', ['device', None])
@pytest.mark.parametrize('hybridize', [False, True])
def test_csr_gradient_of_a_dense_weight_trains(hybridize, kvstore):
    net = _Net(prefix='net_')
    net.initialize()
    if hybridize:
        net.hybridize()
    assert net.w.data().stype == 'default' and net.w.grad().stype == 'csr'
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.1, 'momentum': 0.9}, kvstore=kvstore)
    x = np.arange(12, dtype=np.float32).reshape(3, 4) % 3
    for step in range(2):
        with mx.autograd.record():
            loss = net(mx.nd.array(x))
        loss.backward()
        grad = net.w.grad()
        assert grad.stype == 'csr'
        np.testing.assert_allclose(grad.asnumpy(), 2 * x)       # relu active everywhere
        assert grad.data.shape == (np.count_nonzero(x),)        # the zeros are not stored
        trainer.step(1)
    # momentum 0.9, lr 0.1, gradient 2x twice: 1 - 0.2x - (0.18x + 0.2x); MXNet gives the same
    assert net.w.data().stype == 'default'
    np.testing.assert_allclose(net.w.data().asnumpy(), 1 - 0.58 * x, rtol=1e-6)
    net.w.zero_grad()
    assert net.w.grad().stype == 'csr' and net.w.grad().data.shape == (0,)
    assert [g.stype for g in net.w.list_grad()] == ['csr']


def test_csr_weight_is_accepted_but_not_readable_as_dense():
    p = gluon.Parameter('c', shape=(3, 4), stype='csr')
    p.initialize()
    with pytest.raises(RuntimeError, match="via data\\(\\) because its storage type is csr"):
        p.data()
    with pytest.raises(RuntimeError, match='via list_data\\(\\) because its storage type'):
        p.list_data()
    with pytest.raises(RuntimeError, match='via row_sparse_data\\(\\) because its storage'):
        p.row_sparse_data(mx.nd.array([0]))
    # MXNet's csr arrays take no scalar assignment, which One() / Zero() use
    q = gluon.Parameter('c2', shape=(3, 4), stype='csr')
    with pytest.raises(ValueError, match='Assigning numeric types to CSRNDArray'):
        q.initialize(init=mx.init.One())
