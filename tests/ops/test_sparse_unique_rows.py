"""Distinct row ids of retain, row_sparse_pull and the Embedding gradient come from
sorted_unique, not numpy 2's hash-based np.unique (0.7 s of CPU for a million ids)."""
import numpy as np
import pytest

import symmod as mx
from symmod.ops.sparse.kernels import sorted_unique


@pytest.mark.parametrize('values', [
    [], [7], [3, 3], [0, 1, 2, 5], [5, 2, 1, 0], [4, 1, 4, 0, 1, 9], [-3, 2, -3, 8, 2],
    np.random.default_rng(0).integers(0, 50, 400), np.arange(10 ** 5)])
@pytest.mark.parametrize('dtype', [np.int64, np.int32])
def test_sorted_unique_equals_np_unique(values, dtype):
    values = np.asarray(values, dtype=dtype)
    before = values.copy()
    got = sorted_unique(values)
    np.testing.assert_array_equal(got, np.unique(values))
    assert got.dtype == dtype
    np.testing.assert_array_equal(values, before)      # the input is left alone
    if values.size:
        got[0] = -100
        np.testing.assert_array_equal(values, before)  # and never shared with the result


@pytest.fixture
def no_np_unique(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError('np.unique called')
    monkeypatch.setattr(np, 'unique', refuse)


def test_row_sparse_pull_of_every_row_avoids_np_unique(no_np_unique):
    rows = 1000
    weight = np.arange(rows * 2, dtype=np.float32).reshape(rows, 2)
    weight[::3] = 0
    kv = mx.kv.create('local')
    kv.init('w', mx.nd.array(weight).tostype('row_sparse'))
    out = mx.nd.sparse.zeros('row_sparse', (rows, 2))
    kv.row_sparse_pull('w', out=out, row_ids=mx.nd.arange(0, rows, dtype='int64'))
    np.testing.assert_array_equal(out.indices.asnumpy(), np.arange(rows))
    np.testing.assert_array_equal(out.asnumpy(), weight)
    kv.row_sparse_pull('w', out=out, row_ids=mx.nd.array([7, 2, 7, 999]))
    np.testing.assert_array_equal(out.indices.asnumpy(), [2, 7, 999])
    np.testing.assert_array_equal(out.data.asnumpy(), weight[[2, 7, 999]])


def _bound(sym, args, grad_stype):
    grads = {name: mx.nd.sparse.zeros(grad_stype, a.shape) if name == 'w' else
             mx.nd.zeros(a.shape) for name, a in args.items()}
    return sym.bind(mx.cpu(), args, args_grad=grads,
                    grad_req={n: 'write' if n == 'w' else 'null' for n in args})


def test_retain_and_its_gradient_avoid_np_unique(no_np_unique):
    w = mx.nd.array(np.arange(12, dtype=np.float32).reshape(6, 2)).tostype('row_sparse')
    idx = mx.nd.array([4, 1, 4])
    y = mx.nd.sparse.retain(w, idx)
    np.testing.assert_array_equal(y.indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(y.data.asnumpy(), [[2, 3], [8, 9]])
    sym = mx.sym.sparse.retain(mx.sym.var('w', stype='row_sparse'), mx.sym.var('idx'))
    exe = _bound(sym, {'w': w, 'idx': idx}, 'row_sparse')
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((6, 2)).tostype('row_sparse'))
    grad = exe.grad_dict['w']
    np.testing.assert_array_equal(grad.indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(grad.data.asnumpy(), np.ones((2, 2)))


def test_embedding_row_sparse_gradient_avoids_np_unique(no_np_unique):
    sym = mx.sym.Embedding(mx.sym.var('ids'), mx.sym.var('w'), input_dim=10, output_dim=3,
                           sparse_grad=True)
    exe = _bound(sym, {'ids': mx.nd.array([[3, 1], [3, 8]]), 'w': mx.nd.ones((10, 3))},
                 'row_sparse')
    exe.forward(is_train=True)
    exe.backward(mx.nd.arange(12).reshape((2, 2, 3)))
    grad = exe.grad_dict['w']
    np.testing.assert_array_equal(grad.indices.asnumpy(), [1, 3, 8])
    np.testing.assert_array_equal(grad.data.asnumpy(),
                                  [[3, 4, 5], [0 + 6, 1 + 7, 2 + 8], [9, 10, 11]])
