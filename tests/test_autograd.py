"""autograd: recording state, the tape, backward / grad semantics, and agreement with the
symbolic executor (one definition of every gradient)."""
import numpy as np
import pytest

import symmod as mx
from symmod import autograd
from symmod.base import MXNetError


def nd(value, dtype=np.float32):
    return mx.nd.array(np.asarray(value, dtype=dtype), dtype=dtype)


# ---- state ----------------------------------------------------------------------------------
def test_default_state_and_scopes():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
            with autograd.train_mode():
                assert autograd.is_training() and not autograd.is_recording()
        with autograd.predict_mode():
            assert autograd.is_recording() and not autograd.is_training()
        assert autograd.is_recording() and autograd.is_training()
    with autograd.record(train_mode=False):
        assert autograd.is_recording() and not autograd.is_training()
    assert not autograd.is_recording() and not autograd.is_training()


def test_set_recording_and_training_return_previous():
    assert autograd.set_recording(True) is False
    assert autograd.set_recording(False) is True
    assert autograd.set_training(True) is False
    assert autograd.set_training(False) is True


def test_scope_restores_on_exception():
    with pytest.raises(RuntimeError):
        with autograd.record():
            raise RuntimeError('boom')
    assert not autograd.is_recording() and not autograd.is_training()


# ---- basic gradients ---------------------------------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_polynomial_gradient(dtype):
    xv = np.array([0.5, -1.0, 2.0], dtype=dtype)
    x = nd(xv, dtype)
    x.attach_grad()
    with autograd.record():
        y = x * x * x + 2 * x - x / 4       # the variable is used several times
    y.backward()
    assert x.grad.dtype == dtype
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * xv ** 2 + 2 - 0.25, rtol=1e-6)


def test_head_grads_and_multiple_heads():
    x = nd([1., 2.])
    x.attach_grad()
    with autograd.record():
        z = x * x
    z.backward(nd([2., 3.]))
    np.testing.assert_array_equal(x.grad.asnumpy(), [4., 12.])
    with autograd.record():
        a = x * 2
        b = x * 3
    autograd.backward([a, b], [None, nd([1., 2.])])
    np.testing.assert_array_equal(x.grad.asnumpy(), [5., 8.])
    with pytest.raises(AssertionError, match='same length'):
        autograd.backward([a], [None, None])


def test_head_grad_shape_checked():
    x = nd([1., 2.])
    x.attach_grad()
    with autograd.record():
        y = x * 2
    with pytest.raises(MXNetError, match='shape'):
        y.backward(nd([1., 2., 3.]))


def test_unreached_variable_keeps_buffer_and_reached_zero_path_writes_zero():
    x, w = nd([1., 2.]), nd([3., 4.])
    x.attach_grad()
    w.attach_grad()
    w.grad[:] = 7
    with autograd.record():
        y = x * 2
    y.backward()
    np.testing.assert_array_equal(w.grad.asnumpy(), [7., 7.])    # not in the graph
    x.grad[:] = 9
    with autograd.record():
        y = mx.nd.BlockGrad(x) * 2 + w
    y.backward()
    np.testing.assert_array_equal(w.grad.asnumpy(), [1., 1.])
    np.testing.assert_array_equal(x.grad.asnumpy(), [0., 0.])   # in the graph: written


def test_grad_req_add_and_null():
    w = nd([1., 1.])
    w.attach_grad(grad_req='add')
    for _ in range(3):
        with autograd.record():
            z = w * 3
        z.backward()
    np.testing.assert_array_equal(w.grad.asnumpy(), [9., 9.])
    v = nd([1., 1.])
    v.attach_grad(grad_req='null')
    with autograd.record():
        z = v * 3
    with pytest.raises(MXNetError, match='no inputs in computation graph that require'):
        z.backward()


def test_not_in_graph_errors():
    y = nd([1., 1.])
    with autograd.record():
        z = y * 2          # no variable: nothing is recorded
    with pytest.raises(MXNetError, match='not in a computational graph'):
        z.backward()
    x = nd([1.])
    x.attach_grad()
    z = x * 2              # not recording
    with pytest.raises(MXNetError, match='not in a computational graph'):
        z.backward()


def test_pause_excludes_computation():
    x = nd([2.])
    x.attach_grad()
    with autograd.record():
        a = x * x
        with autograd.pause():
            b = x * 10     # a constant for the graph
        c = a + b
    c.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [4.])


def test_retain_graph():
    x = nd([3.])
    x.attach_grad(grad_req='add')
    with autograd.record():
        y = x * x
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [12.])
    with pytest.raises(MXNetError, match='retain_graph=True'):
        y.backward()


def test_intermediate_of_freed_graph_is_a_constant():
    x = nd([3.])
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward()
    with autograd.record():
        z = y * x          # y's graph was freed: y is a constant now
    z.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [9.])


def test_inplace_on_recorded_array_refused():
    x = nd([1., 2.])
    x.attach_grad()
    with autograd.record():
        z = x * 2
        with pytest.raises(MXNetError, match='already in a computational graph'):
            z += 1


def test_fresh_grad_flag():
    x = nd([1.])
    x.attach_grad()
    assert not autograd._get_fresh_grad(x)
    with autograd.record():
        y = x * 2
    y.backward()
    assert autograd._get_fresh_grad(x)
    autograd._set_fresh_grad(x, False)
    assert not autograd._get_fresh_grad(x)


def test_mark_variables():
    x, gx = nd([1., 2.]), mx.nd.zeros((2,))
    autograd.mark_variables(x, gx)
    with autograd.record():
        y = 3 * x
    y.backward()
    np.testing.assert_array_equal(gx.asnumpy(), [3., 3.])
    assert x.grad is gx
    with pytest.raises(KeyError):
        autograd.mark_variables([x], [gx], 'foo')
    with pytest.raises(MXNetError, match='shape'):
        autograd.mark_variables([x], [mx.nd.zeros((3,))])


def test_train_mode_of_backward_and_forward():
    x = mx.nd.ones((200,))
    x.attach_grad()
    with autograd.record(train_mode=False):
        y = mx.nd.Dropout(x, p=0.5)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    with autograd.record():
        y = mx.nd.Dropout(x, p=0.5)
    kept = y.asnumpy() != 0
    assert 0 < kept.sum() < 200
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.where(kept, 2.0, 0.0))


# ---- autograd.grad ------------------------------------------------------------------------------
def test_grad_returns_list_and_keeps_buffers():
    x = nd([1.])
    x.attach_grad()
    x.grad[:] = 5
    with autograd.record():
        z = mx.nd.elemwise_add(mx.nd.exp(x), x)
    result = autograd.grad(z, x)
    assert isinstance(result, list) and len(result) == 1
    np.testing.assert_allclose(result[0].asnumpy(), [np.e + 1], rtol=1e-6)
    np.testing.assert_array_equal(x.grad.asnumpy(), [5.])
    with pytest.raises(MXNetError, match='retain_graph'):
        autograd.grad(z, [x])      # the graph was freed


def test_grad_errors():
    x, y = nd([1.]), nd([2.])
    x.attach_grad()
    with autograd.record():
        z = x * y
    with pytest.raises(MXNetError, match='2-th variable because it does not require'):
        autograd.grad(z, [x, y], retain_graph=True)
    with pytest.raises(AssertionError, match='variables cannot be an empty list'):
        autograd.grad(z, [], retain_graph=True)
    # create_graph is supported (tests/test_autograd_higher_order.py): a gradient that
    # depends on x is itself recorded
    with autograd.record():
        w = x * x
    assert autograd.grad(w, [x], create_graph=True)[0]._ag_entry is not None


# ---- custom Function ----------------------------------------------------------------
class Sigmoid(autograd.Function):
    def forward(self, x):
        y = 1 / (1 + mx.nd.exp(-x))
        self.save_for_backward(y)
        return y

    def backward(self, dy):
        y, = self.saved_tensors
        return dy * y * (1 - y)


def test_function_custom_gradient():
    xv = np.array([-1., 0., 2.], dtype=np.float32)
    x = nd(xv)
    x.attach_grad()
    with autograd.record():
        y = Sigmoid()(x) * 3
    y.backward()
    s = 1 / (1 + np.exp(-xv))
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * s * (1 - s), rtol=1e-6)


def test_function_used_once_and_gradient_count():
    f = Sigmoid()
    f(nd([1.]))
    with pytest.raises(AssertionError, match='only be called once'):
        f(nd([1.]))

    class Bad(autograd.Function):
        def forward(self, a, b):
            return a + b

        def backward(self, dy):
            return dy
    a, b = nd([1.]), nd([2.])
    a.attach_grad()
    with autograd.record():
        c = Bad()(a, b)
    with pytest.raises(MXNetError, match='must return 2 gradients'):
        c.backward()


# ---- agreement with the symbolic executor -----------------------------------------------------
def _mlp_symbol():
    data = mx.sym.var('data')
    fc1 = mx.sym.FullyConnected(data, mx.sym.var('w1'), mx.sym.var('b1'), num_hidden=6,
                                name='fc1')
    act = mx.sym.Activation(fc1, act_type='tanh')
    bn = mx.sym.BatchNorm(act, mx.sym.var('gamma'), mx.sym.var('beta'),
                          mx.sym.var('mean'), mx.sym.var('var'), fix_gamma=False, name='bn')
    fc2 = mx.sym.FullyConnected(bn, mx.sym.var('w2'), mx.sym.var('b2'), num_hidden=4,
                                name='fc2')
    sig = mx.sym.sigmoid(fc2)
    return mx.sym.broadcast_mul(sig, mx.sym.sum(fc2, axis=1, keepdims=True)) + fc2 * 0.5


def _mlp_imperative(a):
    fc1 = mx.nd.FullyConnected(a['data'], a['w1'], a['b1'], num_hidden=6)
    act = mx.nd.Activation(fc1, act_type='tanh')
    bn = mx.nd.BatchNorm(act, a['gamma'], a['beta'], a['mean'], a['var'], fix_gamma=False)
    fc2 = mx.nd.FullyConnected(bn, a['w2'], a['b2'], num_hidden=4)
    sig = mx.nd.sigmoid(fc2)
    return mx.nd.broadcast_mul(sig, mx.nd.sum(fc2, axis=1, keepdims=True)) + fc2 * 0.5


def test_gradients_equal_symbolic_executor():
    rng = np.random.RandomState(0)
    shapes = {'data': (5, 3), 'w1': (6, 3), 'b1': (6,), 'gamma': (6,), 'beta': (6,),
              'w2': (4, 6), 'b2': (4,)}
    values = {k: rng.normal(size=s).astype(np.float32) for k, s in shapes.items()}
    head = rng.normal(size=(5, 4)).astype(np.float32)
    sym = _mlp_symbol()
    exe = sym.simple_bind(mx.cpu(), data=shapes['data'])
    for k, v in values.items():
        exe.arg_dict[k][:] = v
    exe.aux_dict['mean'][:] = 0
    exe.aux_dict['var'][:] = 1
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(head))

    arrays = {k: mx.nd.array(v) for k, v in values.items()}
    arrays['mean'], arrays['var'] = mx.nd.zeros((6,)), mx.nd.ones((6,))
    for k in shapes:
        arrays[k].attach_grad()
    with autograd.record():
        out = _mlp_imperative(arrays)
    out.backward(mx.nd.array(head))
    np.testing.assert_allclose(out.asnumpy(), exe.outputs[0].asnumpy(), rtol=1e-6, atol=1e-6)
    for k in shapes:
        np.testing.assert_allclose(arrays[k].grad.asnumpy(), exe.grad_dict[k].asnumpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=k)
    # BatchNorm updated its running statistics in place in both cases
    np.testing.assert_allclose(arrays['mean'].asnumpy(), exe.aux_dict['mean'].asnumpy(),
                               rtol=1e-6)


def test_loss_head_gradient_equals_executor():
    rng = np.random.RandomState(1)
    x = rng.normal(size=(6, 5)).astype(np.float32)
    w = rng.normal(size=(3, 5)).astype(np.float32)
    label = np.array([0, 2, 1, 1, 0, 2], dtype=np.float32)
    sym = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), mx.sym.var('w'),
                                                     no_bias=True, num_hidden=3),
                               mx.sym.var('label'), name='sm')
    exe = sym.simple_bind(mx.cpu(), data=(6, 5), label=(6,), grad_req={'data': 'write',
                                                                       'w': 'write',
                                                                       'label': 'null'})
    exe.arg_dict['data'][:] = x
    exe.arg_dict['w'][:] = w
    exe.arg_dict['label'][:] = label
    exe.forward(is_train=True)
    exe.backward()

    xa, wa = mx.nd.array(x), mx.nd.array(w)
    xa.attach_grad()
    wa.attach_grad()
    with autograd.record():
        out = mx.nd.SoftmaxOutput(mx.nd.FullyConnected(xa, wa, no_bias=True, num_hidden=3),
                                  mx.nd.array(label))
    out.backward()
    np.testing.assert_allclose(wa.grad.asnumpy(), exe.grad_dict['w'].asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(xa.grad.asnumpy(), exe.grad_dict['data'].asnumpy(), rtol=1e-6)
    # and the formula: (softmax - onehot) @ ...
    logits = x @ w.T
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    dlogits = p - np.eye(3)[label.astype(int)]
    np.testing.assert_allclose(wa.grad.asnumpy(), dlogits.T @ x, rtol=1e-5, atol=1e-6)


def test_finite_differences_through_tape():
    rng = np.random.RandomState(2)
    xv = rng.normal(size=(3, 4))

    def f(v):
        a = mx.nd.array(v, dtype=np.float64)
        return mx.nd.sum(mx.nd.log_softmax(mx.nd.tanh(a) * a, axis=1) ** 2)

    x = mx.nd.array(xv, dtype=np.float64)
    x.attach_grad()
    with autograd.record():
        y = mx.nd.sum(mx.nd.log_softmax(mx.nd.tanh(x) * x, axis=1) ** 2)
    y.backward()
    eps = 1e-6
    numeric = np.zeros_like(xv)
    for idx in np.ndindex(*xv.shape):
        plus, minus = xv.copy(), xv.copy()
        plus[idx] += eps
        minus[idx] -= eps
        numeric[idx] = (f(plus).asscalar() - f(minus).asscalar()) / (2 * eps)
    np.testing.assert_allclose(x.grad.asnumpy(), numeric, rtol=1e-6, atol=1e-8)


# (operator, input shapes, parameters): one executor graph vs the taped nd call
_OP_CASES = [
    ('tanh', [(3, 4)], {}), ('sigmoid', [(3, 4)], {}), ('exp', [(3, 4)], {}),
    ('square', [(3, 4)], {}), ('abs', [(3, 4)], {}), ('relu', [(3, 4)], {}),
    ('softmax', [(3, 4)], {'axis': 1}), ('log_softmax', [(2, 3, 4)], {'axis': -1}),
    ('Activation', [(3, 4)], {'act_type': 'softrelu'}),
    ('LeakyReLU', [(3, 4)], {'act_type': 'leaky', 'slope': 0.2}),
    ('broadcast_mul', [(3, 4), (1, 4)], {}), ('broadcast_div', [(3, 4), (3, 1)], {}),
    ('broadcast_sub', [(3, 4), (3, 1)], {}), ('elemwise_add', [(3, 4), (3, 4)], {}),
    ('dot', [(3, 4), (4, 5)], {}), ('batch_dot', [(2, 3, 4), (2, 4, 5)], {}),
    ('sum', [(3, 4, 2)], {'axis': (0, 2)}), ('mean', [(3, 4)], {'axis': 1, 'exclude': True}),
    ('max', [(3, 4)], {'axis': 1}), ('transpose', [(2, 3, 4)], {'axes': (2, 0, 1)}),
    ('Reshape', [(2, 3, 4)], {'shape': (-1, 4)}), ('Flatten', [(2, 3, 4)], {}),
    ('slice_axis', [(4, 5)], {'axis': 1, 'begin': 1, 'end': 4}),
    ('Concat', [(2, 3), (2, 2)], {'dim': 1, 'num_args': 2}),
    ('FullyConnected', [(3, 5), (4, 5), (4,)], {'num_hidden': 4}),
    ('Convolution', [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], {'kernel': (3, 3), 'num_filter': 4,
                                                         'pad': (1, 1), 'stride': (2, 2)}),
    ('Pooling', [(2, 3, 6, 6)], {'kernel': (2, 2), 'stride': (2, 2), 'pool_type': 'max'}),
    ('Pooling', [(2, 3, 6, 6)], {'kernel': (3, 3), 'pool_type': 'avg'}),
    ('clip', [(3, 4)], {'a_min': -0.5, 'a_max': 0.5}),
]


@pytest.mark.parametrize('name,shapes,params', _OP_CASES,
                         ids=['%s%d' % (c[0], i) for i, c in enumerate(_OP_CASES)])
def test_operator_gradients_equal_executor(name, shapes, params):
    rng = np.random.RandomState(len(name))
    values = [rng.normal(size=s).astype(np.float32) for s in shapes]
    names = ['in%d' % i for i in range(len(shapes))]
    out = getattr(mx.sym, name)(*[mx.sym.var(n) for n in names], **params)
    exe = out.simple_bind(mx.cpu(), **dict(zip(names, shapes)))
    for n, v in zip(names, values):
        exe.arg_dict[n][:] = v
    result = exe.forward(is_train=True)[0]
    head = rng.normal(size=result.shape).astype(np.float32)
    exe.backward(mx.nd.array(head))

    arrays = [mx.nd.array(v) for v in values]
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        y = getattr(mx.nd, name)(*arrays, **params)
    y.backward(mx.nd.array(head))
    np.testing.assert_allclose(y.asnumpy(), result.asnumpy(), rtol=1e-6, atol=1e-6)
    for n, a in zip(names, arrays):
        np.testing.assert_allclose(a.grad.asnumpy(), exe.grad_dict[n].asnumpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=n)
