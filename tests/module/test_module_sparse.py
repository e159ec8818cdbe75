"""Module with csr data and row_sparse weights: bind passes storage types through, fit
pulls the rows each batch needs (sparse_row_id_fn) from a KVStore that runs lazy
updates, and the result equals the dense model's where lazy and dense SGD agree."""
import numpy as np
import pytest

import symmod as mx


def _data(seed=0):
    rng = np.random.RandomState(seed)
    x = (rng.uniform(size=(48, 30)) < 0.15) * rng.uniform(0.5, 1.5, size=(48, 30))
    y = (x.sum(axis=1) > np.median(x.sum(axis=1))).astype(np.float32)
    return x.astype(np.float32), y


def _net(sparse):
    data = mx.sym.var('data', stype='csr' if sparse else None)
    weight = mx.sym.var('w', shape=(30, 1), init=mx.init.Constant(0.1),
                        stype='row_sparse' if sparse else None)
    dot = mx.sym.sparse.dot(data, weight) if sparse else mx.sym.dot(data, weight)
    return mx.sym.LogisticRegressionOutput(dot, mx.sym.var('softmax_label'), name='out')


def _fit(sparse, kvstore, row_ids=None, epochs=2):
    x, y = _data()
    data = mx.nd.array(x).tostype('csr') if sparse else mx.nd.array(x)
    it = mx.io.NDArrayIter(data, mx.nd.array(y), batch_size=8, last_batch_handle='discard')
    mod = mx.mod.Module(_net(sparse), label_names=['softmax_label'])
    mod.fit(it, num_epoch=epochs, kvstore=kvstore, optimizer='sgd',
            optimizer_params={'learning_rate': 0.3}, sparse_row_id_fn=row_ids,
            eval_metric='mse')
    return mod


def test_bind_passes_storage_types_through():
    mod = mx.mod.Module(_net(True), label_names=['softmax_label'])
    mod.bind(data_shapes=[('data', (8, 30))], label_shapes=[('softmax_label', (8,))])
    exe = mod._exec_group.execs[0]
    assert exe.arg_dict['data'].stype == 'csr'
    assert exe.arg_dict['w'].stype == 'row_sparse'
    assert exe.grad_dict['w'].stype == 'row_sparse'
    mod.init_params()
    assert mod.get_params()[0]['w'].stype == 'row_sparse'


def test_fit_with_row_sparse_pull_equals_dense_sgd():
    dense = _fit(False, 'local')
    sparse = _fit(True, mx.kv.create('local'),
                  row_ids=lambda batch: {'w': batch.data[0].indices})
    got = sparse.get_params()[0]['w']
    assert got.stype == 'row_sparse'
    np.testing.assert_allclose(got.asnumpy(), dense.get_params()[0]['w'].asnumpy(),
                               rtol=1e-5, atol=1e-6)


def test_fit_without_a_store_updates_locally():
    dense = _fit(False, 'local')
    with pytest.warns(UserWarning, match='No need to call sparse_row_id_fn'):
        local = _fit(True, 'local', row_ids=lambda batch: {'w': batch.data[0].indices},
                     epochs=1)
    assert local.get_params()[0]['w'].stype == 'row_sparse'
    np.testing.assert_allclose(_fit(True, 'local').get_params()[0]['w'].asnumpy(),
                               dense.get_params()[0]['w'].asnumpy(), rtol=1e-5, atol=1e-6)


def test_checkpoint_keeps_row_sparse_parameters(tmp_path):
    mod = _fit(True, 'local', epochs=1)
    prefix = str(tmp_path / 'sparse')
    mod.save_checkpoint(prefix, 1)
    _, args, _ = mx.model.load_checkpoint(prefix, 1)
    assert args['w'].stype == 'row_sparse'
    np.testing.assert_array_equal(args['w'].asnumpy(), mod.get_params()[0]['w'].asnumpy())
