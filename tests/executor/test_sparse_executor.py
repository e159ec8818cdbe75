"""Executors binding csr / row_sparse arguments, outputs and gradient buffers."""
import numpy as np
import pytest

import symmod as mx
from symmod.executor.storage import SparseStep


def _sparse(stype, shape, seed=0, density=0.4):
    rng = np.random.RandomState(seed)
    dense = rng.uniform(-1, 1, shape) * (rng.uniform(size=shape) < density)
    return mx.nd.array(dense).tostype(stype)


def _ops(exe):
    return [step[0] for step in exe._forward_steps + exe._backward_steps]


def test_dense_graphs_keep_their_plain_steps():
    data = mx.sym.var('data')
    net = mx.sym.FullyConnected(data, num_hidden=3, name='fc')
    exe = net.simple_bind(mx.cpu(), data=(2, 4))
    assert not any(isinstance(op, SparseStep) for op in _ops(exe))


def test_sparse_outputs_follow_argument_updates():
    lhs, rhs = mx.sym.var('lhs', stype='row_sparse'), mx.sym.var('rhs', stype='row_sparse')
    exe = mx.sym.elemwise_add(lhs, rhs).simple_bind(mx.cpu(), lhs=(5, 3), rhs=(5, 3))
    assert exe.arg_dict['lhs'].stype == 'row_sparse'
    a, b = _sparse('row_sparse', (5, 3), 1), _sparse('row_sparse', (5, 3), 2)
    exe.arg_dict['lhs'][:] = a
    exe.arg_dict['rhs'][:] = b
    out = exe.forward()[0]
    assert out.stype == 'row_sparse' and out is exe.outputs[0]
    np.testing.assert_allclose(out.asnumpy(), a.asnumpy() + b.asnumpy(), rtol=1e-6)
    exe.arg_dict['rhs'][:] = mx.nd.zeros((5, 3))
    exe.forward()
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), a.asnumpy(), rtol=1e-6)


def test_fallback_nodes_compute_on_dense_copies():
    data = mx.sym.var('data', stype='csr')
    net = mx.sym.FullyConnected(data, num_hidden=2, name='fc')
    x = _sparse('csr', (3, 4))
    w, b = mx.nd.ones((2, 4)), mx.nd.array([0.5, -1])
    exe = net.bind(mx.cpu(), {'data': x, 'fc_weight': w, 'fc_bias': b},
                   args_grad={'fc_weight': mx.nd.zeros((2, 4)), 'fc_bias': mx.nd.zeros(2)},
                   grad_req={'data': 'null', 'fc_weight': 'write', 'fc_bias': 'write'})
    out = exe.forward(is_train=True)[0]
    assert out.stype == 'default'
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() @ w.asnumpy().T + b.asnumpy(),
                               rtol=1e-6)
    exe.backward(mx.nd.ones((3, 2)))
    np.testing.assert_allclose(exe.grad_dict['fc_weight'].asnumpy(),
                               np.ones((2, 3)) @ x.asnumpy(), rtol=1e-6)


def test_row_sparse_gradient_buffers_honour_write_and_add():
    data = mx.sym.var('data')
    weight = mx.sym.var('weight')
    sym = mx.sym.Embedding(data, weight, input_dim=6, output_dim=2, sparse_grad=True)
    grad = mx.nd.zeros((6, 2), stype='row_sparse')
    exe = sym.bind(mx.cpu(), {'data': mx.nd.array([1, 4, 1]), 'weight': mx.nd.ones((6, 2))},
                   args_grad={'weight': grad}, grad_req={'data': 'null', 'weight': 'add'})
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((3, 2)))
    assert grad.stype == 'row_sparse'
    np.testing.assert_array_equal(grad.indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(grad.asnumpy()[[1, 4]], [[4, 4], [2, 2]])


def test_unreached_sparse_gradient_is_zeroed_and_dense_heads_take_sparse_grads():
    x = mx.sym.var('x', stype='row_sparse')
    y = mx.sym.var('y')
    sym = mx.sym.Group([mx.sym.square(x), mx.sym.BlockGrad(y) * 2])
    exe = sym.simple_bind(mx.cpu(), x=(3, 2), y=(3, 2),
                          stype_dict={'x': 'row_sparse'})
    exe.arg_dict['x'][:] = _sparse('row_sparse', (3, 2), 3, density=0.9)
    exe.forward(is_train=True)
    assert exe.outputs[0].stype == 'row_sparse'
    exe.backward([_sparse('row_sparse', (3, 2), 4, density=0.9), mx.nd.ones((3, 2))])
    expected = 2 * exe.arg_dict['x'].asnumpy() * _sparse('row_sparse', (3, 2), 4,
                                                           density=0.9).asnumpy()
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(), expected, rtol=1e-6)
    assert not exe.grad_dict['y'].asnumpy().any()


def test_monitor_sees_sparse_arrays():
    seen = {}
    x = mx.sym.var('x', stype='csr')
    exe = mx.sym.sparse.abs(x).simple_bind(mx.cpu(), x=(2, 3), grad_req='null')
    exe.set_monitor_callback(lambda name, arr: seen.setdefault(name, arr.stype),
                             monitor_all=True)
    exe.arg_dict['x'][:] = _sparse('csr', (2, 3))
    exe.forward()
    assert set(seen.values()) == {'csr'}


def test_stype_dict_and_var_stype_are_checked():
    with pytest.raises(mx.MXNetError, match='storage type'):
        mx.sym.var('x', stype='dense')
    with pytest.raises(mx.MXNetError, match='stype_dict'):
        mx.sym.var('x').simple_bind(mx.cpu(), x=(2, 2), stype_dict={'x': 'sparse'})
    sym = mx.sym.var('x', stype='csr')
    assert sym.attr('__storage_type__') == '2'
    assert sym.simple_bind(mx.cpu(), x=(2, 2)).arg_dict['x'].stype == 'csr'
