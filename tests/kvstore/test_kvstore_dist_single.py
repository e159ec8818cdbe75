"""The distributed stores in a job of one worker (a plain ``python train.py``, no MPI
launcher): they train exactly like the local stores; the caller-side rules of Module and
gluon.Trainer; errors."""
import sys

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.kvstore import mpi, shared

DIST_TYPES = ['dist', 'dist_sync', 'dist_device_sync', 'dist_sync_device', 'dist_async']


@pytest.mark.parametrize('name', DIST_TYPES)
def test_create_is_a_one_worker_job(name):
    kv = mx.kv.create(name)
    assert (kv.type, kv.rank, kv.num_workers) == (name, 0, 1)
    assert kv.is_capable('optimizer')
    kv.barrier()
    kv._barrier()


def test_without_mpi4py_creation_says_how_to_install(monkeypatch):
    monkeypatch.setattr(mpi, '_TRANSPORT', None)
    monkeypatch.setitem(sys.modules, 'mpi4py', None)
    with pytest.raises(MXNetError, match=r"pip install 'symmod\[dist\]'"):
        mx.kv.create('dist_sync')


def _mlp():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=8, name='fc1')
    net = mx.sym.Activation(net, act_type='tanh')
    net = mx.sym.FullyConnected(net, num_hidden=3, name='fc2')
    return mx.sym.SoftmaxOutput(net, name='softmax')


def _fit(kvstore, contexts, optimizer='sgd'):
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (24, 5)).astype(np.float32)
    y = rng.randint(0, 3, 24).astype(np.float32)
    mx.random.seed(5)
    mod = mx.mod.Module(_mlp(), context=contexts)
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=6, label_name='softmax_label'),
            kvstore=kvstore, optimizer=optimizer,
            optimizer_params={'learning_rate': 0.1, 'wd': 1e-3}, num_epoch=2,
            initializer=mx.init.Xavier())
    return {k: v.asnumpy() for k, v in mod.get_params()[0].items()}


@pytest.mark.parametrize('dist,local,ndev', [('dist_sync', 'local', 1),
                                             ('dist_device_sync', 'device', 2),
                                             ('dist_async', 'local', 2)])
def test_one_worker_trains_exactly_like_local(dist, local, ndev):
    contexts = [mx.cpu(i) for i in range(ndev)]
    expected = _fit(local, contexts, 'adam')
    got = _fit(dist, contexts, 'adam')
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name])


@pytest.fixture
def two_workers(monkeypatch):
    """Pretend the job has 2 workers (rounds stay local) to check caller-side rules."""
    for cls in ('dist_sync.DistSyncKVStore', 'dist_async.DistAsyncKVStore'):
        module, name = cls.split('.')
        klass = getattr(sys.modules['symmod.kvstore.' + module], name)
        monkeypatch.setattr(klass, 'num_workers', property(lambda self: 2))


@pytest.mark.parametrize('name,factor', [('dist_sync', 2), ('dist_device_sync', 2),
                                         ('dist', 1), ('dist_async', 1)])
def test_module_rescales_by_workers_for_sync_types_only(two_workers, name, factor):
    mod = mx.mod.Module(_mlp(), context=mx.cpu())
    mod.bind([('data', (6, 5))], [('softmax_label', (6,))])
    mod.init_params()
    mod.init_optimizer(kvstore=name, optimizer='sgd')
    assert mod._optimizer.rescale_grad == pytest.approx(1.0 / (6 * factor))


def _trainer(kvstore, **kwargs):
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize()
    return net, mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1},
                                 kvstore=kvstore, **kwargs)


def test_trainer_forces_update_on_kvstore_for_dist_async():
    _, trainer = _trainer('dist_async')
    trainer._init_kvstore()
    assert trainer._update_on_kvstore is True
    _, trainer = _trainer('dist_async', update_on_kvstore=False)
    with pytest.raises(ValueError, match='update_on_kvstore=True when training in async'):
        trainer._init_kvstore()


def test_trainer_refuses_to_reset_a_dist_store():
    net, trainer = _trainer('dist_sync')
    with mx.autograd.record():
        loss = net(mx.nd.ones((4, 3))).sum()
    loss.backward()
    trainer.step(4)
    with pytest.raises(RuntimeError, match='Cannot reset distributed KVStore'):
        trainer._reset_kvstore()


def test_trainer_step_sums_over_workers_without_rescaling(two_workers):
    # gluon divides by the batch size given to step() only, as MXNet does
    net, trainer = _trainer('dist_sync')
    with mx.autograd.record():
        loss = net(mx.nd.ones((4, 3))).sum()
    loss.backward()
    trainer.step(4)
    assert trainer._optimizer.rescale_grad == pytest.approx(0.25)


def test_dist_sync_states_resume_exactly(tmp_path):
    kv = mx.kv.create('dist_sync')
    kv.init('w', mx.nd.ones((3,)))
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    grad = mx.nd.array([0.5, -1.0, 2.0])
    kv.push('w', grad)
    kv.save_optimizer_states(str(tmp_path / 'a.states'))
    saved = mx.nd.zeros((3,))
    kv.pull('w', out=saved)
    kv.push('w', grad)
    expected = mx.nd.zeros((3,))
    kv.pull('w', out=expected)

    kv2 = mx.kv.create('dist_sync')
    kv2.init('w', saved)
    kv2.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    kv2.load_optimizer_states(str(tmp_path / 'a.states'))
    kv2.push('w', grad)
    got = mx.nd.zeros((3,))
    kv2.pull('w', out=got)
    np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy())


def test_dist_async_needs_an_optimizer():
    kv = mx.kv.create('dist_async')
    kv.init(0, mx.nd.zeros((2,)))
    with pytest.raises(MXNetError, match='needs an optimizer on the servers'):
        kv.push(0, mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match='set_optimizer'):
        kv._set_updater(lambda k, g, w: None)


def test_dist_async_without_servers_in_a_multi_worker_job(monkeypatch):
    monkeypatch.setattr(mpi, '_TRANSPORT', type('T', (mpi.SingleTransport,), {'size': 2})())
    with pytest.raises(MXNetError, match=r'needs server processes.*symmod.launch -n 2 -s 1'):
        mx.kv.create('dist_async')


@pytest.mark.parametrize('name', ['dist_sync', 'dist_async'])
def test_errors_of_the_local_store_carry_over(name):
    kv = mx.kv.create(name)
    kv.init('a', mx.nd.zeros((2,)))
    with pytest.raises(MXNetError, match='duplicate init of key a'):
        kv.init('a', mx.nd.zeros((2,)))
    with pytest.raises(MXNetError, match="key b doesn't exist"):
        kv.pull('b', out=mx.nd.zeros((2,)))
    with pytest.raises(MXNetError, match='Mixed key types'):
        kv.init(3, mx.nd.zeros((2,)))
    kv.set_optimizer(mx.optimizer.SGD())
    with pytest.raises(MXNetError, match='shape'):
        kv.push('a', mx.nd.zeros((3,)))


@pytest.mark.parametrize('text,match', [('abc', 'SYMMOD_KVSTORE_TIMEOUT must be a number'),
                                        ('', None), ('0', None), ('2.5', None)])
def test_timeout_variable(monkeypatch, text, match):
    monkeypatch.setenv('SYMMOD_KVSTORE_TIMEOUT', text)
    if match:
        with pytest.raises(MXNetError, match=match):
            mpi.timeout_seconds()
    else:
        assert mpi.timeout_seconds() == {'': 600.0, '0': None, '2.5': 2.5}[text]


def test_servers_variable(monkeypatch):
    monkeypatch.setenv('SYMMOD_NUM_SERVERS', 'x')
    with pytest.raises(MXNetError, match='SYMMOD_NUM_SERVERS must be a whole number'):
        mpi.num_servers()
    monkeypatch.setenv('SYMMOD_NUM_SERVERS', '-1')
    with pytest.raises(MXNetError, match='>= 0'):
        mpi.num_servers()


@pytest.mark.parametrize('text,expected', [('', True), ('1', True), ('0', False),
                                           ('off', False), ('maybe', None)])
def test_shared_memory_variable(monkeypatch, text, expected):
    monkeypatch.setenv('SYMMOD_KVSTORE_SHARED_MEMORY', text)
    if expected is None:
        with pytest.raises(MXNetError, match='SYMMOD_KVSTORE_SHARED_MEMORY must be 1 or 0'):
            shared.wanted()
    else:
        assert shared.wanted() is expected


def test_shared_sum_in_rank_order_and_float16_in_float32():
    parts = [np.float32(v) * np.ones(3, np.float32) for v in (1e8, 1.0, -1e8)]
    out = np.empty(3, np.float32)
    shared.add_in_rank_order(parts, out)
    np.testing.assert_array_equal(out, (parts[0] + parts[1]) + parts[2])   # 0, not 1
    halves = [np.full(2, v, np.float16) for v in (2048, 1, 1)]
    out16 = np.empty(2, np.float16)
    shared.add_in_rank_order(halves, out16)
    np.testing.assert_array_equal(out16, np.float16(2050))      # float16 steps give 2048
    out64 = np.empty(2, np.float64)
    shared.add_in_rank_order([np.ones(2, np.float64)], out64)
    np.testing.assert_array_equal(out64, 1.0)


def _sparse_rounds(kv_type, optimizer):
    """Three rounds of row_sparse pushes (two devices) to a row_sparse key and dense
    pushes of row_sparse gradients to a dense key, with what each round pulls."""
    kv = mx.kv.create(kv_type)
    kv.init('emb', mx.nd.array(np.arange(24, dtype=np.float32).reshape(6, 4) / 10)
            .tostype('row_sparse'))
    kv.init('dense', mx.nd.ones((5, 2)))
    kv.set_optimizer(mx.optimizer.create(optimizer, learning_rate=0.1))
    seen = []
    for step in range(3):
        grad = mx.nd.sparse.row_sparse_array(
            (np.full((2, 4), step + 1.0, np.float32), [1, 4 - step]), shape=(6, 4))
        kv.push('emb', [grad, grad])
        kv.push('dense', mx.nd.sparse.row_sparse_array(([[1., 2.]], [step]), shape=(5, 2)))
        rows = mx.nd.sparse.zeros('row_sparse', (6, 4))
        kv.row_sparse_pull('emb', out=rows, row_ids=mx.nd.array([4, 1, 1, 0, 3, 2]))
        dense = mx.nd.zeros((5, 2))
        kv.pull('dense', out=dense)
        after = mx.nd.zeros((5, 2))       # pushpull of a row_sparse value: the push, a pull
        kv.pushpull('dense', mx.nd.sparse.row_sparse_array(([[0.5, 0.5]], [4]), shape=(5, 2)),
                    out=after)
        seen.append((rows.indices.asnumpy(), rows.data.asnumpy(), dense.asnumpy(),
                     after.asnumpy()))
    return seen


@pytest.mark.parametrize('optimizer', ['sgd', 'adam', 'adagrad', 'ftrl'])
def test_dist_async_sparse_updates_equal_the_local_store(optimizer):
    # one worker without servers: the asynchronous store applies each push at once, so
    # its lazy / sparse updates must equal the 'local' store's, bit for bit
    for local, remote in zip(_sparse_rounds('local', optimizer),
                             _sparse_rounds('dist_async', optimizer)):
        for want, got in zip(local, remote):
            np.testing.assert_array_equal(got, want)


def test_dist_async_sparse_pull_rules():
    kv = mx.kv.create('dist_async')
    with pytest.raises(MXNetError, match="init of key 'c' with csr storage"):
        kv.init('c', mx.nd.sparse.csr_matrix(np.eye(3, dtype=np.float32)))
    kv.init('w', mx.nd.zeros((3, 2)))
    kv.init('r', mx.nd.ones((3, 2)).tostype('row_sparse'))
    with pytest.raises(MXNetError, match='PullRowSparse expects a row_sparse stored value'):
        kv.row_sparse_pull('w', out=mx.nd.sparse.zeros('row_sparse', (3, 2)),
                           row_ids=mx.nd.array([1], dtype='int64'))
    skipped = mx.nd.sparse.zeros('row_sparse', (3, 2))
    kv.pull('r', out=skipped)           # MXNet's ignore_sparse: left alone
    assert skipped.indices.shape == (0,)
    kv.pull('r', out=skipped, ignore_sparse=False)
    np.testing.assert_array_equal(skipped.asnumpy(), np.ones((3, 2)))
    with pytest.raises(MXNetError, match='optimizer'):
        kv.push('r', mx.nd.ones((3, 2)).tostype('row_sparse'))


def _train_sparse_embedding(kvstore):
    mx.random.seed(1)
    rng = np.random.RandomState(1)
    net = mx.gluon.nn.Sequential()
    with net.name_scope():
        net.add(mx.gluon.contrib.nn.SparseEmbedding(20, 4))
        net.add(mx.gluon.nn.Dense(3))
    net.initialize(mx.init.Uniform(0.1))
    # MXNet's rule for distributed stores that update: the scale is fixed at the first
    # step, so the batch size goes into rescale_grad
    trainer = mx.gluon.Trainer(net.collect_params(), 'adam',
                               {'learning_rate': 0.1, 'rescale_grad': 0.2}, kvstore=kvstore)
    for _ in range(3):
        x = mx.nd.array(rng.randint(0, 20, (5, 2)))
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
        trainer.step(1)
    return [net[0].weight.row_sparse_data(mx.nd.arange(20)).asnumpy(),
            net[1].weight.data().asnumpy()]


def test_dist_async_trains_gluon_row_sparse_weights_like_local():
    for want, got in zip(_train_sparse_embedding('local'),
                         _train_sparse_embedding('dist_async')):
        np.testing.assert_array_equal(got, want)
