"""row_sparse values in the local KVStore: init, push (summed as row_sparse), updates by
the optimizer in the store, row_sparse_pull, and pull's ignore_sparse."""
import logging

import numpy as np
import pytest

import symmod as mx


def _rsp(rows, values, shape=(6, 2)):
    return mx.nd.sparse.row_sparse_array((np.asarray(values, dtype=np.float32), rows),
                                         shape=shape)


def _weight():
    return mx.nd.array(np.arange(12, dtype=np.float32).reshape(6, 2) + 1).tostype('row_sparse')


def test_row_sparse_pull_takes_unique_sorted_rows():
    kv = mx.kv.create('local')
    kv.init('emb', _weight())
    out = mx.nd.sparse.zeros('row_sparse', (6, 2))
    kv.row_sparse_pull('emb', out=out, row_ids=mx.nd.array([4, 1, 4]))
    np.testing.assert_array_equal(out.indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(out.data.asnumpy(), [[3, 4], [9, 10]])
    # one row_ids array for several outputs: all get the same rows
    outs = [mx.nd.sparse.zeros('row_sparse', (6, 2)) for _ in range(3)]
    kv.row_sparse_pull('emb', out=outs, row_ids=mx.nd.array([0, 5]))
    for o in outs:
        np.testing.assert_array_equal(o.indices.asnumpy(), [0, 5])
    # one row_ids array per output
    kv.row_sparse_pull('emb', out=outs[:2], row_ids=[mx.nd.array([2]), mx.nd.array([3, 2])])
    np.testing.assert_array_equal(outs[1].indices.asnumpy(), [2, 3])
    with pytest.raises(mx.MXNetError, match='row_sparse'):
        kv.row_sparse_pull('emb', out=mx.nd.zeros((6, 2)), row_ids=mx.nd.array([1]))
    kv.init('dense', mx.nd.ones((6, 2)))
    with pytest.raises(mx.MXNetError, match='row_sparse stored value'):
        kv.row_sparse_pull('dense', out=out, row_ids=mx.nd.array([1]))


def test_push_sums_row_sparse_values_and_replaces_the_stored_value():
    kv = mx.kv.create('local')
    kv.init(3, _weight())
    kv.push(3, [_rsp([1], [[1, 1]]), _rsp([1, 4], [[2, 2], [3, 3]])])
    out = mx.nd.sparse.zeros('row_sparse', (6, 2))
    kv.row_sparse_pull(3, out=out, row_ids=mx.nd.arange(6))
    expected = np.zeros((6, 2))
    expected[1], expected[4] = 3, 3
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_updater_in_the_store_runs_lazy_updates():
    kv = mx.kv.create('local')
    kv.init('w', _weight())
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, wd=0.1))
    kv.push('w', [_rsp([2], [[1, 2]]), _rsp([2, 5], [[1, 0], [4, 4]])])
    out = mx.nd.sparse.zeros('row_sparse', (6, 2))
    kv.row_sparse_pull('w', out=out, row_ids=mx.nd.arange(6))
    start = np.arange(12, dtype=np.float32).reshape(6, 2) + 1
    expected = start.copy()
    grad = {2: np.array([2., 2.]), 5: np.array([4., 4.])}
    for row, g in grad.items():
        expected[row] = (1 - 0.5 * 0.1) * start[row] - 0.5 * g
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-6)


def test_pull_skips_sparse_outputs_unless_asked(caplog):
    kv = mx.kv.create('local')
    kv.init('w', _weight())
    out = mx.nd.sparse.zeros('row_sparse', (6, 2))
    with caplog.at_level(logging.INFO, logger='symmod.kvstore'):
        kv.pull('w', out=out)
        kv.pull('w', out=out)
    assert not out.asnumpy().any()
    assert sum('row_sparse_pull' in r.getMessage() for r in caplog.records) == 1
    kv.pull('w', out=out, ignore_sparse=False)
    np.testing.assert_array_equal(out.asnumpy(), _weight().asnumpy())
    dense = mx.nd.zeros((6, 2))
    kv.pull('w', out=dense)
    np.testing.assert_array_equal(dense.asnumpy(), _weight().asnumpy())


@pytest.mark.parametrize('kv_type', ['local', 'device', 'dist_sync'])
def test_pushpull_of_row_sparse_values_leaves_sparse_outputs_alone(kv_type):
    # MXNet 1.9.1 (local, device): pushpull = push, then pull with ignore_sparse; the
    # stored value becomes the row_sparse sum, dense outputs receive it, row_sparse
    # outputs (and the pushed arrays themselves) are left as they were. dist_sync on
    # one worker behaves the same.
    kv = mx.kv.create(kv_type)
    kv.init(3, mx.nd.ones((4, 2)).tostype('row_sparse'))
    a, b = _rsp([1], [[1, 1]], (4, 2)), _rsp([3], [[2, 2]], (4, 2))
    outs = [mx.nd.sparse.zeros('row_sparse', (4, 2)) for _ in range(2)]
    kv.pushpull(3, [a, b], out=outs)
    assert all(o.stype == 'row_sparse' and o.indices.shape == (0,) for o in outs)
    kv.pushpull(3, [a, b])
    assert a.indices.asnumpy().tolist() == [1] and b.indices.asnumpy().tolist() == [3]
    np.testing.assert_array_equal(b.data.asnumpy(), [[2, 2]])
    dense = [mx.nd.zeros((4, 2)) for _ in range(2)]
    kv.pushpull(3, [a, b], out=dense)
    for d in dense:
        np.testing.assert_array_equal(d.asnumpy(), [[0, 0], [1, 1], [0, 0], [2, 2]])
    assert kv._stored(3).stype == 'row_sparse'
    np.testing.assert_array_equal(kv._stored(3).indices.asnumpy(), [1, 3])
