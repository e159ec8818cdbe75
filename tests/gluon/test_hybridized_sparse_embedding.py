"""A hybridized block's sparse-gradient Embedding: the row_sparse weight gradient holds
every looked-up row, also one whose gradient sums to exactly zero, so lazy optimizer steps
match MXNet 1.9.1 (tests/data/gen/gen_hybridized_sparse_embedding_reference.py)."""
import pathlib

import numpy as np
import pytest

import symmod as mx

REF = np.load(pathlib.Path(__file__).resolve().parents[1] / 'data' / 'sparse'
              / 'hybridized_embedding_reference.npz')
STEPS = 3


class Net(mx.gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.emb = mx.gluon.nn.Embedding(6, 3, sparse_grad=True)

    def hybrid_forward(self, F, x, mask):
        return F.relu(F.broadcast_mul(self.emb(x) * 2 + 1, mask)) * 0.5


@pytest.mark.parametrize('hybridize', [True, False])
def test_lazy_adam_steps_keep_zero_gradient_rows_looked_up(hybridize):
    net = Net(prefix='net_')
    net.initialize()
    net.emb.weight.set_data(mx.nd.array(REF['w0']))
    if hybridize:
        net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'adam',
                               {'learning_rate': 0.1, 'wd': 0.1})
    for step in range(STEPS):
        x, mask = REF['x%d' % step], REF['mask%d' % step]
        with mx.autograd.record():
            loss = net(mx.nd.array(x), mx.nd.array(mask)).sum()
        loss.backward()
        grad = net.emb.weight.grad()
        assert grad.stype == 'row_sparse'
        # every looked-up row, the masked one (zero gradient) included
        np.testing.assert_array_equal(grad.indices.asnumpy(), np.unique(x))
        trainer.step(1)
        np.testing.assert_allclose(net.emb.weight.data().asnumpy(), REF['w%d' % (step + 1)],
                                   rtol=1e-5, atol=1e-6, err_msg='step %d' % step)
