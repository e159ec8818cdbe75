"""Executor: binding rules, forward/backward semantics, gradient requests, reshape,
monitoring, and the bind-time plan (no per-batch work, memory reuse)."""
import tracemalloc

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient


@pytest.fixture(autouse=True)
def _fresh_names():
    with mx.name.NameManager():
        yield


def _mlp(hidden=8, classes=3):
    data = mx.sym.var('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=hidden, name='fc1')
    act = mx.sym.Activation(fc1, act_type='relu', name='relu1')
    fc2 = mx.sym.FullyConnected(act, num_hidden=classes, name='fc2')
    return mx.sym.SoftmaxOutput(fc2, name='softmax')


def _bound_mlp(batch=4, grad_req='write'):
    net = _mlp()
    exe = net.simple_bind(mx.cpu(), grad_req=grad_req, data=(batch, 5))
    rng = np.random.RandomState(1)
    for name, arr in exe.arg_dict.items():
        arr[:] = rng.uniform(-1, 1, arr.shape)
    exe.arg_dict['softmax_label'][:] = rng.randint(0, 3, batch)
    return net, exe


def _numpy_mlp_grads(args):
    x, w1, b1, w2, b2, label = (args[k] for k in ('data', 'fc1_weight', 'fc1_bias',
                                                   'fc2_weight', 'fc2_bias', 'softmax_label'))
    h = x @ w1.T + b1
    a = np.maximum(h, 0)
    z = a @ w2.T + b2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dz = p.copy()
    dz[np.arange(len(label)), label.astype(int)] -= 1
    da = dz @ w2
    dh = da * (h > 0)
    return p, {'fc2_weight': dz.T @ a, 'fc2_bias': dz.sum(0), 'fc1_weight': dh.T @ x,
               'fc1_bias': dh.sum(0), 'data': dh @ w1}


def test_forward_backward_match_numpy():
    _, exe = _bound_mlp()
    args = {k: v.asnumpy() for k, v in exe.arg_dict.items()}
    prob, grads = _numpy_mlp_grads(args)
    out = exe.forward(is_train=True)
    assert out is exe.outputs
    np.testing.assert_allclose(out[0].asnumpy(), prob, rtol=1e-5, atol=1e-6)
    exe.backward()
    for name, expected in grads.items():
        np.testing.assert_allclose(exe.grad_dict[name].asnumpy(), expected, rtol=1e-4,
                                   atol=1e-5, err_msg=name)
    assert exe.output_dict['softmax_output'] is exe.outputs[0]


def test_mlp_numeric_gradient_float64():
    net = mx.sym.FullyConnected(mx.sym.Activation(
        mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc1'), act_type='tanh'),
        num_hidden=2, name='fc2')
    rng = np.random.RandomState(0)
    location = {'data': rng.randn(3, 5), 'fc1_weight': rng.randn(4, 5),
                'fc1_bias': rng.randn(4), 'fc2_weight': rng.randn(2, 4), 'fc2_bias': rng.randn(2)}
    check_numeric_gradient(net, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_grad_req_add_accumulates_and_null_skips():
    _, exe_w = _bound_mlp()
    exe_w.forward(is_train=True)
    exe_w.backward()
    once = {k: v.asnumpy() for k, v in exe_w.grad_dict.items() if v is not None}
    net, exe = _bound_mlp(grad_req={'fc1_weight': 'add', 'fc2_weight': 'write',
                                    'fc1_bias': 'null', 'data': 'null'})
    assert exe.grad_dict['fc1_bias'] is None and exe.grad_dict['data'] is None
    for _ in range(3):
        exe.forward(is_train=True)
        exe.backward()
    np.testing.assert_allclose(exe.grad_dict['fc1_weight'].asnumpy(), 3 * once['fc1_weight'],
                               rtol=1e-5)
    np.testing.assert_allclose(exe.grad_dict['fc2_weight'].asnumpy(), once['fc2_weight'],
                               rtol=1e-5)


def test_input_used_twice_accumulates():
    x = mx.sym.var('x')
    y = x * x + mx.sym.exp(x)
    value = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    grad = mx.nd.zeros(3)
    exe = y.bind(mx.cpu(), args={'x': mx.nd.array(value)}, args_grad={'x': grad})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(3))
    np.testing.assert_allclose(grad.asnumpy(), 2 * value + np.exp(value), rtol=1e-5)


def test_shared_weight_gradients_sum():
    w = mx.sym.var('w')
    a = mx.sym.FullyConnected(mx.sym.var('a'), weight=w, no_bias=True, num_hidden=2)
    b = mx.sym.FullyConnected(mx.sym.var('b'), weight=w, no_bias=True, num_hidden=2)
    loss = mx.sym.MakeLoss(mx.sym.sum(a + b))
    rng = np.random.RandomState(2)
    av, bv, wv = rng.randn(3, 4), rng.randn(3, 4), rng.randn(2, 4)
    exe = loss.simple_bind(mx.cpu(), a=(3, 4), b=(3, 4))
    exe.forward(is_train=True, a=mx.nd.array(av), b=mx.nd.array(bv), w=mx.nd.array(wv))
    exe.backward()
    expected = np.ones((3, 2)).T @ av + np.ones((3, 2)).T @ bv
    np.testing.assert_allclose(exe.grad_dict['w'].asnumpy(), expected, rtol=1e-5)


def test_non_loss_head_needs_out_grads():
    x = mx.sym.var('x')
    exe = (2 * x).simple_bind(mx.cpu(), x=(2,))
    exe.forward(is_train=True, x=mx.nd.array([1, 2]))
    with pytest.raises(mx.MXNetError, match='head_gradient is required'):
        exe.backward()
    exe.backward(mx.nd.array([1, 3]))
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(), [2, 6])
    exe.backward({'_mulscalar0_output': mx.nd.array([1, 1])})
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(), [2, 2])


def test_bind_argument_errors():
    net = _mlp()
    arrays = {n: mx.nd.zeros(s) for n, s in zip(net.list_arguments(),
                                                net.infer_shape(data=(2, 5))[0])}
    partial = dict(arrays)
    partial.pop('fc1_bias')
    with pytest.raises(ValueError, match='key `fc1_bias` is missing in `args`'):
        net.bind(mx.cpu(), args=partial)
    with pytest.raises(ValueError, match='Length of args'):
        net.bind(mx.cpu(), args=list(arrays.values())[:-1])
    with pytest.raises(ValueError, match='grad_req'):
        net.bind(mx.cpu(), args=arrays, grad_req='sometimes')
    with pytest.raises(mx.MXNetError, match='gpu'):
        net.simple_bind(mx.gpu(0), data=(2, 5))
    exe = net.bind(mx.cpu(), args=list(arrays.values()))
    assert exe.arg_arrays[0].shape == (2, 5) and all(g is None for g in exe.grad_arrays)


def test_forward_kwargs_checks():
    _, exe = _bound_mlp()
    with pytest.raises(TypeError, match='Unknown argument nope'):
        exe.forward(nope=mx.nd.zeros((4, 5)))
    with pytest.raises(ValueError, match='Shape not match'):
        exe.forward(data=mx.nd.zeros((3, 5)))
    x = np.random.rand(4, 5).astype(np.float32)
    exe.forward(data=x)
    np.testing.assert_array_equal(exe.arg_dict['data'].asnumpy(), x)


def test_copy_params_from():
    _, exe = _bound_mlp()
    new = mx.nd.ones((8, 5))
    exe.copy_params_from({'fc1_weight': new})
    np.testing.assert_array_equal(exe.arg_dict['fc1_weight'].asnumpy(), 1)
    with pytest.raises(ValueError, match='not in the arguments'):
        exe.copy_params_from({'extra': new})
    exe.copy_params_from({'extra': new}, allow_extra_params=True)


def test_reshape_shares_parameters_and_checks_sizes():
    net, exe = _bound_mlp(batch=4)
    small = exe.reshape(data=(2, 5), softmax_label=(2,))
    assert np.shares_memory(small.arg_dict['fc1_weight']._data, exe.arg_dict['fc1_weight']._data)
    assert small.outputs[0].shape == (2, 3)
    assert small._pool is exe._pool
    with pytest.raises(mx.MXNetError, match='larger than original'):
        exe.reshape(data=(8, 5), softmax_label=(8,))
    big = exe.reshape(allow_up_sizing=True, data=(8, 5), softmax_label=(8,))
    assert big.outputs[0].shape == (8, 3)
    with pytest.raises(mx.MXNetError, match='Shape of unspecifie arg: softmax_label changed'):
        exe.reshape(data=(2, 5))


def test_monitor_callback_sees_every_output():
    _, exe = _bound_mlp()
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append((name, arr.shape)))
    exe.forward()
    # names come as bytes, as from MXNet's C callback
    assert seen == [(b'fc1_output', (4, 8)), (b'relu1_output', (4, 8)), (b'fc2_output', (4, 3)),
                    (b'softmax_output', (4, 3))]
    seen.clear()
    exe.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    exe.forward()
    # MXNet's graph executor names a variable input by itself, then as the node's input
    assert seen[:7] == [b'data', b'fc1_data', b'fc1_weight', b'fc1_weight', b'fc1_bias',
                        b'fc1_bias', b'fc1_output']


def test_duplicate_argument_names_are_rejected_in_dicts():
    x1, x2 = mx.sym.var('x'), mx.sym.var('x')
    exe = (x1 + x2).bind(mx.cpu(), args=[mx.nd.ones(2), mx.nd.ones(2)])
    with pytest.raises(ValueError, match='Duplicate names'):
        exe.arg_dict


def test_aux_states_update_in_backward_like_mxnet():
    """MXNet's CPU BatchNorm folds the batch statistics into the moving ones during
    backward; a graph that runs no backward (all grad_req null) never updates them."""
    data = mx.sym.var('data')
    bn = mx.sym.BatchNorm(data, fix_gamma=False, momentum=0.5, name='bn')
    x = np.random.RandomState(0).randn(6, 2).astype(np.float32)
    for req in ('null', 'write'):
        exe = bn.simple_bind(mx.cpu(), data=(6, 2), grad_req=req)
        exe.arg_dict['bn_gamma'][:] = 1
        exe.aux_dict['bn_moving_var'][:] = 1
        exe.forward(is_train=True, data=x)
        np.testing.assert_array_equal(exe.aux_dict['bn_moving_mean'].asnumpy(), 0)
        if req == 'write':
            exe.backward(mx.nd.ones((6, 2)))
            np.testing.assert_allclose(exe.aux_dict['bn_moving_mean'].asnumpy(),
                                       0.5 * x.mean(0), rtol=1e-5)


def test_simple_bind_types_and_shared_buffer():
    net = _mlp()
    exe = net.simple_bind(mx.cpu(), type_dict={'data': np.float64}, data=(4, 5))
    assert exe.arg_dict['fc1_weight'].dtype == np.float64
    assert exe.outputs[0].dtype == np.float64
    buffer = {}
    first = net.simple_bind(mx.cpu(), shared_buffer=buffer, data=(4, 5))
    # as MXNet 1.9.1: every argument that is not a shared parameter, and its gradient
    assert set(buffer) == set(net.list_arguments()) | \
        {'grad of ' + n for n in net.list_arguments()}
    second = net.simple_bind(mx.cpu(), shared_buffer=buffer, data=(2, 5))
    assert np.shares_memory(first.arg_dict['data']._data, second.arg_dict['data']._data)
    shared = net.simple_bind(mx.cpu(), data=(2, 5), shared_exec=first,
                             shared_arg_names=['fc1_weight', 'fc1_bias'])
    assert shared.arg_dict['fc1_weight'] is first.arg_dict['fc1_weight']
    assert shared.grad_dict['fc1_weight'] is first.grad_dict['fc1_weight']


def test_shared_buffer_holds_no_parameters():
    # MXNet 1.9.1 keeps the parameters named in shared_arg_names out of the buffer (a
    # second executor group shares them through shared_exec); only the other arguments
    # and their gradients are there ('fc1_bias' here is no parameter)
    net = _mlp()
    others = ('data', 'fc1_bias', 'softmax_label')
    names = [n for n in net.list_arguments() if n not in others]
    buffer = {}
    grad_req = {n: 'null' if n in others else 'write' for n in net.list_arguments()}
    first = net.simple_bind(mx.cpu(), shared_buffer=buffer, shared_arg_names=names,
                            grad_req=grad_req, data=(4, 5))
    assert sorted(buffer) == sorted(others)
    second = net.simple_bind(mx.cpu(), shared_buffer=buffer, shared_arg_names=names,
                             shared_exec=first, grad_req=grad_req, data=(2, 5))
    assert sorted(buffer) == sorted(others)
    assert second.arg_dict['fc1_bias'] is not first.arg_dict['fc1_bias']
    assert np.shares_memory(second.arg_dict['fc1_bias']._data, buffer['fc1_bias']._data)
    for name in names:
        assert second.arg_dict[name] is first.arg_dict[name]
        assert second.grad_dict[name] is first.grad_dict[name]


def test_shared_buffer_keeps_dense_arrays_only():
    # a row_sparse data array is not shared through the buffer (MXNet's simple_bind
    # accepts only dense arrays there); its dense gradient is
    data = mx.sym.var('data', stype='row_sparse')
    net = mx.sym.sum(data * mx.sym.var('w'))
    buffer = {}
    first = net.simple_bind(mx.cpu(), shared_buffer=buffer, shared_arg_names=['w'],
                            data=(3, 2), w=(3, 2))
    second = net.simple_bind(mx.cpu(), shared_buffer=buffer, shared_arg_names=['w'],
                             shared_exec=first, data=(3, 2), w=(3, 2))
    assert first.arg_dict['data'].stype == 'row_sparse'
    assert sorted(buffer) == ['grad of data']
    assert second.arg_dict['data'] is not first.arg_dict['data']
    assert np.shares_memory(second.grad_dict['data']._data, first.grad_dict['data']._data)
    assert second.arg_dict['w'] is first.arg_dict['w']


def test_steady_state_runs_no_planning(monkeypatch):
    _, exe = _bound_mlp()
    exe.forward(is_train=True)
    exe.backward()

    def forbidden(*args, **kwargs):
        raise AssertionError('planning work during forward/backward')

    import symmod.symbol.infer as infer
    import symmod.symbol.graph as graph
    import symmod.executor.memory as memory
    from symmod.symbol.node import Node
    monkeypatch.setattr(infer, 'infer_shapes', forbidden)
    monkeypatch.setattr(infer, 'infer_types', forbidden)
    monkeypatch.setattr(graph, 'post_order', forbidden)
    monkeypatch.setattr(graph, 'build_graph', forbidden)
    monkeypatch.setattr(memory.MemoryPool, 'back', forbidden)
    monkeypatch.setattr(Node, 'operator', forbidden)
    monkeypatch.setattr(Node, 'new_operator', forbidden)
    for _ in range(3):
        exe.forward(is_train=True)
        exe.backward()


def test_steady_state_allocates_no_buffers():
    data = mx.sym.var('data')
    net = data
    for i in range(4):
        net = mx.sym.Activation(mx.sym.FullyConnected(net, num_hidden=256, name='fc%d' % i),
                                act_type='relu')
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(net, num_hidden=10), name='softmax')
    exe = net.simple_bind(mx.cpu(), data=(128, 256))
    for arr in exe.arg_arrays:
        arr[:] = np.random.uniform(-0.1, 0.1, arr.shape)
    exe.forward(is_train=True)
    exe.backward()
    buffer_bytes = exe._total_exec_bytes
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(3):
        exe.forward(is_train=True)
        exe.backward()
    after = tracemalloc.take_snapshot()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, 'filename'))
    assert grown < 64 * 1024
    # operators may use small scratch space, but nothing like a buffer per entry
    assert peak < 0.1 * buffer_bytes


def test_inference_memory_is_reused_along_a_chain():
    data = mx.sym.var('data')
    net = data
    for _ in range(20):
        net = mx.sym.Activation(net, act_type='tanh')
    exe = net.simple_bind(mx.cpu(), data=(64, 64), grad_req='null')
    one = 64 * 64 * 4
    assert exe._total_exec_bytes <= 3 * one
    x = np.random.rand(64, 64).astype(np.float32)
    out = exe.forward(data=x)[0].asnumpy()
    expected = x
    for _ in range(20):
        expected = np.tanh(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    # training keeps what backward needs, so it uses more
    train = net.simple_bind(mx.cpu(), data=(64, 64))
    assert train._total_exec_bytes > 10 * one


def test_shared_exec_reuses_the_memory_pool():
    net = _mlp(hidden=64)
    big = net.simple_bind(mx.cpu(), data=(64, 5))
    pool_bytes = big._pool.nbytes
    small = net.simple_bind(mx.cpu(), data=(16, 5), shared_exec=big)
    assert small._pool is big._pool and big._pool.nbytes == pool_bytes


def test_group_outputs_and_internal_head():
    data = mx.sym.var('data')
    fc = mx.sym.FullyConnected(data, num_hidden=3, name='fc')
    group = mx.sym.Group([mx.sym.MakeLoss(mx.sym.sum(fc * fc)), fc])
    exe = group.simple_bind(mx.cpu(), data=(2, 4))
    for arr in exe.arg_arrays:
        arr[:] = np.random.rand(*arr.shape)
    exe.forward(is_train=True)
    head = np.random.rand(2, 3).astype(np.float32)
    exe.backward([mx.nd.ones((1,)), mx.nd.array(head)])
    fc_out = exe.outputs[1].asnumpy()
    x = exe.arg_dict['data'].asnumpy()
    np.testing.assert_allclose(exe.grad_dict['fc_weight'].asnumpy(),
                               (2 * fc_out + head).T @ x, rtol=1e-5)


def test_inplace_operators_reuse_their_input_buffer():
    data = mx.sym.var('data')
    fc = mx.sym.FullyConnected(data, num_hidden=64, name='fc')
    net = mx.sym.Activation(mx.sym.Activation(fc, act_type='relu'), act_type='tanh')
    exe = net.simple_bind(mx.cpu(), data=(32, 16), grad_req='null')
    one = 32 * 64 * 4
    # fc output, relu (in place on it), tanh (in place again): a single buffer
    assert exe._total_exec_bytes == one
    x = np.random.RandomState(0).randn(32, 16).astype(np.float32)
    exe.arg_dict['fc_weight'][:] = np.random.RandomState(1).randn(64, 16)
    out = exe.forward(data=x)[0].asnumpy()
    expected = np.tanh(np.maximum(x @ exe.arg_dict['fc_weight'].asnumpy().T, 0))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    # training keeps relu's output for its backward, so tanh cannot overwrite it
    train = net.simple_bind(mx.cpu(), data=(32, 16))
    assert train._total_exec_bytes > 2 * one


def test_inplace_keeps_values_that_are_still_needed():
    a = mx.sym.var('a')
    x = mx.sym.exp(a)
    y = mx.sym.relu(x) + x          # x is read again after relu: relu may not overwrite it
    value = np.array([-1.0, 0.5, 2.0], dtype=np.float32)
    exe = y.simple_bind(mx.cpu(), a=(3,), grad_req='null')
    np.testing.assert_allclose(exe.forward(a=value)[0].asnumpy(),
                               2 * np.exp(value), rtol=1e-6)



def test_an_output_listed_twice_takes_the_last_head_gradient():
    # MXNet 1.9.1's executor: the head gradients of one entry are not summed, the last
    # one given is used
    x = mx.sym.var('x')
    y = x * 3
    exe = mx.sym.Group([y, y]).bind(mx.cpu(), args={'x': mx.nd.ones((2,))},
                                    args_grad={'x': mx.nd.zeros((2,))})
    exe.forward(is_train=True)
    exe.backward([mx.nd.array([1, 2]), mx.nd.array([10, 20])])
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(), [30, 60])


@pytest.mark.parametrize('req, expected', [('write', 7), ('add', 8)])
def test_an_argument_that_is_an_output_gets_its_head_gradient(req, expected):
    x = mx.sym.var('x')
    exe = mx.sym.Group([x, x * 2]).bind(mx.cpu(), {'x': mx.nd.ones(2)},
                                        args_grad={'x': mx.nd.ones(2)}, grad_req=req)
    exe.forward(is_train=True)
    exe.backward([mx.nd.full((2,), 5), mx.nd.ones(2)])
    np.testing.assert_array_equal(exe.grad_dict['x'].asnumpy(), [expected] * 2)   # MXNet's
