"""gluon with row_sparse gradients: nn.Embedding(sparse_grad=True) and Parameter
grad_stype='row_sparse' give row_sparse gradients and the Trainer's optimizer updates only
their rows, as MXNet 1.9.1 does (weights below printed by MXNet 1.9.1 for the same steps)."""
import numpy as np
import pytest

import symmod as mx
from symmod import gluon

# MXNet 1.9.1: Embedding(6, 2, sparse_grad=True), weights all ones, Adam lr 0.1, two steps
# on ids [1, 3, 3] (output rows weighted 1, 0, 1) then [0] (weighted 1)
MXNET_WEIGHT = [[0.9255858659744263] * 2, [0.8999993801116943] * 2, [1.0, 1.0],
                [0.8999993801116943] * 2, [1.0, 1.0], [1.0, 1.0]]


@pytest.mark.parametrize('hybridize', [False, True])
def test_embedding_sparse_grad_lazy_adam_matches_mxnet(hybridize):
    net = gluon.nn.Embedding(6, 2, sparse_grad=True)
    net.initialize(mx.init.One())
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.1})
    for ids, rows in (([1, 3, 3], [1, 3]), ([0], [0])):
        with mx.autograd.record():
            out = net(mx.nd.array(ids))
            loss = (out * mx.nd.array([[1], [0], [1]][:len(ids)])).sum()
        loss.backward()
        grad = net.weight.grad()
        assert grad.stype == 'row_sparse'
        np.testing.assert_array_equal(grad.indices.asnumpy(), rows)
        trainer.step(1)
    np.testing.assert_allclose(net.weight.data().asnumpy(), MXNET_WEIGHT, rtol=1e-6)
    net.collect_params().zero_grad()
    assert net.weight.grad().stype == 'row_sparse'
    assert net.weight.grad().indices.shape == (0,)


def test_parameter_grad_stype_row_sparse():
    p = gluon.Parameter('w', shape=(4, 3), grad_stype='row_sparse')
    p.initialize(mx.init.One())
    assert p.grad().stype == 'row_sparse'
    with mx.autograd.record():
        loss = (p.data()[2:3] * 2).sum()
    loss.backward()
    np.testing.assert_array_equal(p.grad().indices.asnumpy(), [2])
    np.testing.assert_array_equal(p.grad().data.asnumpy(), [[2, 2, 2]])


@pytest.mark.parametrize('kvstore', ['local', 'device'])
@pytest.mark.parametrize('update_on_kvstore, expected', [(None, False), (True, True),
                                                         (False, False)])
def test_row_sparse_gradients_on_two_contexts(kvstore, update_on_kvstore, expected):
    # MXNet 1.9.1: with sparse gradients on one machine the default is to push and pull
    # the gradients and update on the workers; either way each context's weight moves by
    # the summed gradient
    params = gluon.ParameterDict()
    x = params.get('x', shape=(10, 1), grad_stype='row_sparse')
    params.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init='zeros')
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 0.1}, kvstore=kvstore,
                            update_on_kvstore=update_on_kvstore)
    with mx.autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    trainer.step(1)
    assert trainer._kvstore.type == kvstore
    assert trainer._update_on_kvstore is expected
    for ctx in (mx.cpu(0), mx.cpu(1)):
        np.testing.assert_array_equal(x.data(ctx).asnumpy(), np.full((10, 1), -0.2,
                                                                      np.float32))
