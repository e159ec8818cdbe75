"""Module: binding, parameters, the training loop, prediction, multi-device data
parallelism, and compatibility with MXNet-written checkpoints."""
import logging
import re

import numpy as np
import pytest

import symmod as mx
from module_fixtures import REF, mlp_symbol


def _fit(mod, train, val=None, epochs=2, **kwargs):
    kwargs.setdefault('optimizer_params', {'learning_rate': 0.1, 'momentum': 0.9})
    mod.fit(train, val, optimizer='sgd', initializer=mx.init.Xavier(), num_epoch=epochs,
            **kwargs)


def test_fit_learns_mnist_and_logs_like_mxnet(mnist, caplog):
    xtr, ytr, xte, yte = mnist
    train = mx.io.NDArrayIter(xtr[:1000], ytr[:1000], batch_size=50)
    val = mx.io.NDArrayIter(xte[:500], yte[:500], batch_size=50)
    mod = mx.mod.Module(mlp_symbol())
    mx.random.seed(3)
    with caplog.at_level(logging.INFO):
        _fit(mod, train, val, epochs=3,
             batch_end_callback=mx.callback.Speedometer(50, frequent=10))
    messages = [r.getMessage() for r in caplog.records]
    for epoch in range(3):
        assert any(re.fullmatch(r'Epoch\[%d\] Train-accuracy=0\.\d{6}' % epoch, m)
                   for m in messages)
        assert any(re.fullmatch(r'Epoch\[%d\] Time cost=\d+\.\d{3}' % epoch, m)
                   for m in messages)
        assert any(re.fullmatch(r'Epoch\[%d\] Validation-accuracy=0\.\d{6}' % epoch, m)
                   for m in messages)
    assert any(re.match(r'Epoch\[0\] Batch \[0-10\]\tSpeed: [\d.]+ samples/sec\t'
                        r'accuracy=0\.\d+', m) for m in messages)
    assert dict(mod.score(val, 'acc'))['accuracy'] > 0.85


def test_state_machine_asserts():
    mod = mx.mod.Module(mlp_symbol())
    with pytest.raises(AssertionError, match='call bind before initializing'):
        mod.init_params()
    with pytest.raises(AssertionError):
        mod.forward(mx.io.DataBatch([mx.nd.zeros((2, 784))]))
    mod.bind(data_shapes=[('data', (2, 784))], label_shapes=[('softmax_label', (2,))])
    with pytest.raises(AssertionError):
        mod.update()
    mod.init_params()
    with pytest.warns(UserWarning, match='already initialized'):
        mod.init_params()
    with pytest.raises(ValueError, match="Data provided by data_shapes don't match"):
        mx.mod.Module(mlp_symbol()).bind(data_shapes=[('x', (2, 784))])
    with pytest.raises(ValueError, match='not found in symbol.list_arguments'):
        mx.mod.Module(mlp_symbol(), data_names=['nope'])


def test_names_and_shapes():
    mod = mx.mod.Module(mlp_symbol())
    assert mod.data_names == ['data'] and mod.label_names == ['softmax_label']
    assert mod.output_names == ['softmax_output']
    mod.bind(data_shapes=[('data', (8, 784))], label_shapes=[('softmax_label', (8,))])
    assert mod.data_shapes[0].shape == (8, 784)
    assert mod.label_shapes[0].name == 'softmax_label'
    assert mod.output_shapes == [('softmax_output', (8, 10))]
    mod.init_params()
    args, auxs = mod.get_params()
    assert sorted(args) == ['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight', 'fc3_bias',
                            'fc3_weight'] and auxs == {}
    # default initializer Uniform(0.01); biases zero by MXNet's name rules
    assert np.abs(args['fc1_weight'].asnumpy()).max() <= 0.01
    assert not args['fc1_bias'].asnumpy().any()


def test_mxnet_checkpoint_predicts_mxnet_output():
    mod = mx.mod.Module.load(str(REF / 'mlp' / 'mlp'), 3)
    x = np.load(REF / 'mlp' / 'input.npy')
    mod.bind(data_shapes=[('data', x.shape)], for_training=False)
    out = mod.predict(mx.io.NDArrayIter(x, batch_size=20))
    np.testing.assert_allclose(out.asnumpy(), np.load(REF / 'mlp' / 'expected_output.npy'),
                               rtol=1e-5, atol=1e-6)


def test_mxnet_checkpoint_with_optimizer_states_continues_training(mnist):
    xtr, ytr, _, _ = mnist
    mod = mx.mod.Module.load(str(REF / 'mlp' / 'mlp'), 3, load_optimizer_states=True)
    train = mx.io.NDArrayIter(xtr[:400], ytr[:400], batch_size=100)
    mod.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1,
                                                          'momentum': 0.9})
    states = np.load(REF / 'mlp' / 'states.npz')
    for index in range(6):
        np.testing.assert_array_equal(mod._updater.states[index].asnumpy(), states[str(index)])
    # one SGD-momentum step continues from MXNet's momentum: check against numpy
    before = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    batch = next(iter(train))
    mod.forward_backward(batch)
    grads = {n: g[0].asnumpy() for n, g in zip(mod._exec_group.param_names,
                                                mod._exec_group.grad_arrays)}
    mod.update()
    after = mod.get_params()[0]
    names = ['fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias', 'fc3_weight', 'fc3_bias']
    for index, name in enumerate(names):
        mom = 0.9 * states[str(index)] - 0.1 * grads[name] / 100
        np.testing.assert_allclose(after[name].asnumpy(), before[name] + mom, rtol=1e-5,
                                   atol=1e-6)


def test_predict_score_and_iter_predict(mnist):
    _, _, xte, yte = mnist
    mod = mx.mod.Module(mlp_symbol())
    it = mx.io.NDArrayIter(xte[:130], yte[:130], batch_size=50)   # last batch padded
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label, for_training=False)
    mod.init_params(mx.init.Xavier())
    out = mod.predict(it)
    assert out.shape == (130, 10)
    listed = mod.predict(it, always_output_list=True)
    assert isinstance(listed, list) and listed[0].shape == (130, 10)
    per_batch = mod.predict(it, merge_batches=False)
    assert [o[0].shape[0] for o in per_batch] == [50, 50, 30]
    np.testing.assert_allclose(np.concatenate([o[0].asnumpy() for o in per_batch]),
                               out.asnumpy())
    seen = [(i, outs[0].shape) for outs, i, _ in mod.iter_predict(it)]
    assert seen == [(0, (50, 10)), (1, (50, 10)), (2, (30, 10))]
    acc = dict(mod.score(it, 'acc'))['accuracy']
    expected = np.mean(np.argmax(out.asnumpy(), 1) == yte[:130])
    # score counts the padded rows of the last batch as MXNet does (150 samples)
    assert 0 <= acc <= 1 and abs(acc - expected) < 0.2
    direct = mod.predict(xte[:50])
    np.testing.assert_allclose(direct.asnumpy(), out.asnumpy()[:50], rtol=1e-6)


def test_predict_of_one_batch_owns_its_outputs(mnist):
    """One batch: the result is the outputs' copy itself (no merge), never the module's
    buffers, which the next forward pass overwrites."""
    _, _, xte, yte = mnist
    mod = mx.mod.Module(mlp_symbol())
    it = mx.io.NDArrayIter(xte[:40], yte[:40], batch_size=40)
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label, for_training=False)
    mod.init_params(mx.init.Xavier())
    out = mod.predict(it)
    kept = out.asnumpy().copy()
    assert not np.shares_memory(out.asnumpy(), mod.get_outputs()[0].asnumpy())
    mod.forward(mx.io.DataBatch([mx.nd.array(xte[40:80])]), is_train=False)
    np.testing.assert_array_equal(out.asnumpy(), kept)
    np.testing.assert_array_equal(out.asnumpy(), mod.predict(it).asnumpy())


def test_forward_reshapes_for_a_different_batch_size(mnist):
    xtr, ytr, _, _ = mnist
    mod = mx.mod.Module(mlp_symbol())
    mod.bind(data_shapes=[('data', (50, 784))], label_shapes=[('softmax_label', (50,))])
    mod.init_params(mx.init.Xavier())
    batch = mx.io.DataBatch([mx.nd.array(xtr[:20])], [mx.nd.array(ytr[:20])])
    mod.forward(batch, is_train=False)
    assert mod.get_outputs()[0].shape == (20, 10)
    assert mod.data_shapes[0].shape == (20, 784)
    big = mx.io.DataBatch([mx.nd.array(xtr[:50])], [mx.nd.array(ytr[:50])])
    mod.forward(big, is_train=False)
    assert mod.get_outputs()[0].shape == (50, 10)


def test_multiple_cpu_contexts_split_the_batch_and_match_one_context(mnist):
    xtr, ytr, _, _ = mnist
    results = []
    for contexts in ([mx.cpu(0)], [mx.cpu(0), mx.cpu(1)]):
        mod = mx.mod.Module(mlp_symbol(), context=contexts)
        train = mx.io.NDArrayIter(xtr[:400], ytr[:400], batch_size=100)
        mod.bind(data_shapes=train.provide_data, label_shapes=train.provide_label)
        mx.random.seed(11)
        mod.init_params(mx.init.Xavier())
        mod.init_optimizer(kvstore='local', optimizer='sgd',
                           optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
        if len(contexts) == 2:
            assert [e.arg_dict['data'].shape for e in mod._exec_group.execs] == \
                [(50, 784), (50, 784)]
        for batch in train:
            mod.forward_backward(batch)
            mod.update()
        results.append({k: v.asnumpy() for k, v in mod.get_params()[0].items()})
        mod.forward(mx.io.DataBatch([mx.nd.array(xtr[:100])]), is_train=False)
        results.append(mod.get_outputs()[0].asnumpy())
    for name in results[0]:
        np.testing.assert_allclose(results[2][name], results[0][name], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(results[3], results[1], rtol=1e-4, atol=1e-6)


def test_workload_split_and_errors():
    from symmod.executor.manager import _split_input_slice
    # round() is banker's rounding, as in MXNet: 2.5 -> 2, remainder to the last device
    assert _split_input_slice(10, [1, 1, 2]) == [slice(0, 2), slice(2, 4), slice(4, 10)]
    with pytest.raises(ValueError, match='Too many slices'):
        _split_input_slice(2, [1, 1, 1])
    mod = mx.mod.Module(mlp_symbol(), context=[mx.cpu(0), mx.cpu(1)], work_load_list=[1, 3])
    mod.bind(data_shapes=[('data', (8, 784))], label_shapes=[('softmax_label', (8,))])
    assert [e.arg_dict['data'].shape[0] for e in mod._exec_group.execs] == [2, 6]


def test_fixed_params_and_input_grads(mnist):
    xtr, ytr, _, _ = mnist
    mod = mx.mod.Module(mlp_symbol(), fixed_param_names=['fc1_weight'])
    batch = mx.io.DataBatch([mx.nd.array(xtr[:10])], [mx.nd.array(ytr[:10])])
    mod.bind(data_shapes=[('data', (10, 784))], label_shapes=[('softmax_label', (10,))],
             inputs_need_grad=True)
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer_params={'learning_rate': 1.0})
    before = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    mod.forward_backward(batch)
    mod.update()
    after = mod.get_params()[0]
    np.testing.assert_array_equal(after['fc1_weight'].asnumpy(), before['fc1_weight'])
    assert not np.array_equal(after['fc2_weight'].asnumpy(), before['fc2_weight'])
    grad = mod.get_input_grads()[0]
    assert grad.shape == (10, 784) and np.abs(grad.asnumpy()).sum() > 0


def test_state_names_set_and_get():
    data = mx.sym.var('data')
    state = mx.sym.var('state')
    net = mx.sym.MakeLoss(mx.sym.sum(data + state))
    mod = mx.mod.Module(net, data_names=['data'], label_names=[], state_names=['state'])
    mod.bind(data_shapes=[('data', (2, 3))])
    mod.init_params()
    mod.set_states(value=1.5)
    np.testing.assert_array_equal(mod.get_states(merge_multi_context=False)[0][0].asnumpy(),
                                  1.5)
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 3))]), is_train=False)
    assert mod.get_outputs()[0].asnumpy().item() == pytest.approx(15.0)


def test_shared_module_shares_parameters():
    mod = mx.mod.Module(mlp_symbol())
    mod.bind(data_shapes=[('data', (20, 784))], label_shapes=[('softmax_label', (20,))])
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer()
    other = mx.mod.Module(mlp_symbol())
    other.bind(data_shapes=[('data', (5, 784))], label_shapes=[('softmax_label', (5,))],
               shared_module=mod)
    assert other.optimizer_initialized and other._updater is mod._updater
    assert other._exec_group.param_arrays[0][0] is mod._exec_group.param_arrays[0][0]


def test_monitor_prints_statistics(caplog):
    mod = mx.mod.Module(mlp_symbol())
    mod.bind(data_shapes=[('data', (4, 784))], label_shapes=[('softmax_label', (4,))])
    mod.init_params()
    mon = mx.Monitor(1, pattern='fc1.*')
    mod.install_monitor(mon)
    mon.tic()
    mod.forward(mx.io.DataBatch([mx.nd.ones((4, 784))], [mx.nd.zeros(4)]), is_train=False)
    with caplog.at_level(logging.INFO):
        mon.toc_print()
    names = [r.getMessage().split()[2] for r in caplog.records]
    assert names == ['fc1_output', 'fc1_weight', 'fc1_bias']


def test_save_and_load_params(tmp_path):
    mod = mx.mod.Module(mlp_symbol())
    mod.bind(data_shapes=[('data', (4, 784))], label_shapes=[('softmax_label', (4,))])
    mod.init_params(mx.init.Xavier())
    mod.save_params(str(tmp_path / 'p.params'))
    other = mx.mod.Module(mlp_symbol())
    other.bind(data_shapes=[('data', (4, 784))], label_shapes=[('softmax_label', (4,))])
    other.load_params(str(tmp_path / 'p.params'))
    for name, value in mod.get_params()[0].items():
        np.testing.assert_array_equal(other.get_params()[0][name].asnumpy(), value.asnumpy())
    assert sorted(mx.nd.load(str(tmp_path / 'p.params'))) == \
        sorted('arg:' + n for n in mod.get_params()[0])
