"""SequentialModule, PythonModule and PythonLossModule: a chain of modules computes what
the single module of the joined symbol computes."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from module_fixtures import mlp_symbol


def _lower():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=16, name='fc1')
    return mx.sym.Activation(net, act_type='relu', name='relu1')


def _upper():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def _joined():
    return mlp_symbol(hidden=(16,)).get_internals()['softmax_output']


def _batch(rng, n=8):
    x = rng.standard_normal((n, 20)).astype(np.float32)
    y = rng.integers(0, 10, n).astype(np.float32)
    return mx.io.DataBatch(data=[mx.nd.array(x)], label=[mx.nd.array(y)],
                           provide_data=[('data', x.shape)],
                           provide_label=[('softmax_label', y.shape)])


def _chain(upper_meta=None):
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(_lower(), label_names=None))
    seq.add(mx.mod.Module(_upper()), **(upper_meta or {'take_labels': True,
                                                       'auto_wiring': True}))
    return seq


def _init_pair(seq, single, batch):
    shapes = dict(data_shapes=batch.provide_data, label_shapes=batch.provide_label)
    seq.bind(**shapes)
    single.bind(**shapes)
    single.init_params(mx.init.Xavier())
    seq.init_params(arg_params=single.get_params()[0], aux_params={})
    for mod in (seq, single):
        mod.init_optimizer(optimizer='sgd',
                           optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})


def _train_steps(mods, rng, steps=3):
    """Run the same random batches through every module; returns the last batch."""
    for _ in range(steps):
        batch = _batch(rng)
        for mod in mods:
            mod.forward(batch, is_train=True)
            mod.backward()
            mod.update()
    return batch


def test_chain_equals_the_joined_module_through_several_steps():
    rng = np.random.default_rng(0)
    batch = _batch(rng)
    seq, single = _chain(), mx.mod.Module(_joined())
    _init_pair(seq, single, batch)
    assert seq.data_names == ['data'] and seq.output_names == ['softmax_output']
    assert seq.output_shapes == single.output_shapes
    assert [d[0] for d in seq.label_shapes] == ['softmax_label']
    for _ in range(3):
        _train_steps((seq, single), rng, steps=1)
        np.testing.assert_allclose(seq.get_outputs()[0].asnumpy(),
                                   single.get_outputs()[0].asnumpy(), rtol=1e-5, atol=1e-6)
    seq_args, single_args = seq.get_params()[0], single.get_params()[0]
    assert sorted(seq_args) == sorted(single_args)
    for name in single_args:
        np.testing.assert_allclose(seq_args[name].asnumpy(), single_args[name].asnumpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


def test_input_grads_flow_back_through_the_chain():
    rng = np.random.default_rng(1)
    batch = _batch(rng)
    seq, single = _chain(), mx.mod.Module(_joined())
    shapes = dict(data_shapes=batch.provide_data, label_shapes=batch.provide_label,
                  inputs_need_grad=True)
    seq.bind(**shapes)
    single.bind(**shapes)
    single.init_params(mx.init.Xavier())
    seq.init_params(arg_params=single.get_params()[0], aux_params={})
    for mod in (seq, single):
        mod.forward(batch, is_train=True)
        mod.backward()
    np.testing.assert_allclose(seq.get_input_grads()[0].asnumpy(),
                               single.get_input_grads()[0].asnumpy(), rtol=1e-5, atol=1e-7)


def test_fit_and_score_with_the_metric_from_the_labelled_module(mnist):
    xtr, ytr, xte, yte = mnist
    train = mx.io.NDArrayIter(xtr[:1000], ytr[:1000], batch_size=50)
    val = mx.io.NDArrayIter(xte[:500], yte[:500], batch_size=50)
    seq = _chain()
    mx.random.seed(2)
    seq.fit(train, optimizer='sgd', initializer=mx.init.Xavier(), num_epoch=3,
            optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    assert dict(seq.score(val, 'acc'))['accuracy'] > 0.8
    predictions = seq.predict(val)
    assert predictions.shape == (500, 10)


def test_without_auto_wiring_the_next_module_must_be_named_like_the_outputs():
    batch = _batch(np.random.default_rng(2))
    seq = _chain({'take_labels': True})
    with pytest.raises(ValueError, match="don't match names"):
        seq.bind(data_shapes=batch.provide_data, label_shapes=batch.provide_label)


def test_chain_errors():
    seq = mx.mod.SequentialModule()
    with pytest.raises(AssertionError, match='Unknown meta "take_label"'):
        seq.add(mx.mod.Module(_lower(), label_names=None), take_label=True)
    with pytest.raises(AssertionError, match='empty SequentialModule'):
        seq.bind(data_shapes=[('data', (2, 20))])
    # two modules holding the same parameter names
    seq.add(mx.mod.Module(_lower(), label_names=None))
    seq.add(mx.mod.Module(_lower(), label_names=None), auto_wiring=True)
    seq.bind(data_shapes=[('data', (8, 16))], label_shapes=None)
    with pytest.raises(AssertionError, match='Duplicated parameter names: name "fc1_weight" '
                                             'in layer 1'):
        seq.init_params()
    assert seq.label_shapes is None


def _softmax_grad(scores, labels):
    prob = scores.asnumpy().astype(np.float64)
    prob = np.exp(prob - prob.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    prob[np.arange(len(prob)), labels.asnumpy().astype(int)] -= 1
    return prob.astype(np.float32)


def test_python_loss_module_trains_like_softmax_output():
    """A network without a loss head + a Python softmax loss == the SoftmaxOutput network."""
    rng = np.random.default_rng(4)
    batch = _batch(rng)
    logits = mx.sym.FullyConnected(_lower(), num_hidden=10, name='fc2')
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(logits, label_names=None))
    seq.add(mx.mod.PythonLossModule(grad_func=_softmax_grad), take_labels=True,
            auto_wiring=True)
    single = mx.mod.Module(_joined())
    _init_pair(seq, single, batch)
    assert seq.output_names == ['pyloss_output']
    assert seq.output_shapes == [('pyloss_output', (8, 10))]
    batch = _train_steps((seq, single), rng)
    for name, value in single.get_params()[0].items():
        np.testing.assert_allclose(seq.get_params()[0][name].asnumpy(), value.asnumpy(),
                                   rtol=1e-4, atol=1e-6, err_msg=name)
    metric = mx.metric.create('acc')
    seq.update_metric(metric, batch.label)
    assert metric.num_inst == 8


def test_python_module_contracts():
    loss = mx.mod.PythonLossModule(name='l')
    loss.bind(data_shapes=[('data', (4, 3))], label_shapes=[('softmax_label', (4,))])
    loss.forward(mx.io.DataBatch([mx.nd.ones((4, 3))], [mx.nd.zeros((4,))]), is_train=True)
    with pytest.raises(MXNetError, match="'l' has no grad_func"):
        loss.backward()
    with pytest.raises(AssertionError, match='out_grads should be None'):
        loss.backward(out_grads=[mx.nd.ones((4, 3))])
    with pytest.raises(AssertionError, match='only support write gradient'):
        mx.mod.PythonLossModule().bind(data_shapes=[('data', (4, 3))], grad_req='add')

    class Doubler(mx.mod.PythonModule):
        def forward(self, data_batch, is_train=None):
            self._out = data_batch.data[0] * 2

        def get_outputs(self, merge_multi_context=True):
            return [self._out]

    with pytest.raises(MXNetError, match='Doubler must define _compute_output_shapes'):
        Doubler(['data'], None, ['out']).bind(data_shapes=[('data', (2,))])
    assert mx.mod.PythonModule(('data',), None, ['o']).get_params() == ({}, {})
