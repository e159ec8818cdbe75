"""Identity gradients in place: elemwise_add's backward hands an input the output
gradient's own buffer when the plan allows it (MXNet's in-place identity gradients),
with the same gradients as when every input gradient has its own buffer."""
import numpy as np
import pytest

import symmod as mx
from symmod.ops import registry


@pytest.fixture(autouse=True)
def _fresh_names():
    with mx.name.NameManager():
        yield


def _residual_net(channels=4):
    """conv-BN-relu-conv-BN + shortcut, twice, then a loss: residual adds whose one input
    is read again later (the shortcut) and whose other is not."""
    data = mx.sym.var('data')
    x = mx.sym.Convolution(data, num_filter=channels, kernel=(3, 3), pad=(1, 1), name='c0')
    for k in range(2):
        h = mx.sym.Convolution(x, num_filter=channels, kernel=(3, 3), pad=(1, 1),
                               name='c%da' % k)
        h = mx.sym.Activation(mx.sym.BatchNorm(h, name='bn%da' % k), act_type='relu')
        h = mx.sym.Convolution(h, num_filter=channels, kernel=(3, 3), pad=(1, 1),
                               name='c%db' % k)
        h = mx.sym.BatchNorm(h, name='bn%db' % k)
        x = mx.sym.Activation(mx.sym.elemwise_add(h, x), act_type='relu')
    out = mx.sym.FullyConnected(mx.sym.flatten(x), num_hidden=3, name='fc')
    return mx.sym.SoftmaxOutput(out, name='softmax')


def _gradients(net, dtype, seed=0):
    shape = (2, 3, 5, 5)
    exe = net.simple_bind(mx.cpu(), data=shape, type_dict={'data': dtype}, grad_req='write')
    rng = np.random.RandomState(seed)
    for name, array in sorted(exe.arg_dict.items()):
        if name == 'softmax_label':
            array[:] = rng.randint(0, 3, array.shape)
        else:
            array[:] = rng.randn(*array.shape)
    for _ in range(2):      # a second pass reuses the aliased buffers
        exe.forward(is_train=True)
        exe.backward()
    return exe, {k: v.asnumpy() for k, v in exe.grad_dict.items()}


def _add_steps(exe):
    # the plan's steps (the executor may run an addition fused with its relu)
    return [s for s in exe._plan.backward_steps if s[0].name == 'elemwise_add']


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_residual_add_gradient_shares_the_output_gradient_buffer(dtype, monkeypatch):
    exe, grads = _gradients(_residual_net(), dtype)
    steps = _add_steps(exe)
    assert len(steps) == 2
    for _, reqs, out_grad, _, _, in_grad, _, _ in steps:
        # one input takes the output gradient's buffer; the shortcut's gradient, added to
        # later, keeps its own
        shared = [np.shares_memory(g, out_grad[0]) for g in in_grad]
        assert sorted(shared) == [False, True], shared
    # the same gradients when nothing is shared (every input gradient a copy)
    add_class = registry.get('elemwise_add')
    monkeypatch.setattr(add_class, 'grad_inplace', ())
    plain, expected = _gradients(_residual_net(), dtype)
    for _, _, out_grad, _, _, in_grad, _, _ in _add_steps(plain):
        assert not any(np.shares_memory(g, out_grad[0]) for g in in_grad)
    assert grads.keys() == expected.keys()
    for name in grads:
        np.testing.assert_array_equal(grads[name], expected[name], err_msg=name)


def test_an_input_added_to_itself_gets_twice_the_gradient():
    a = mx.sym.var('a')
    x = mx.sym.exp(a)
    y = mx.sym.elemwise_add(x, x)
    exe = y.simple_bind(mx.cpu(), a=(3,))
    value = np.array([-1.0, 0.5, 2.0])
    exe.forward(is_train=True, a=value)
    head = np.array([1.0, 2.0, 3.0])
    exe.backward(mx.nd.array(head))
    np.testing.assert_allclose(exe.grad_dict['a'].asnumpy(), 2 * head * np.exp(value),
                               rtol=1e-6)


def test_an_input_gradient_that_is_accumulated_is_not_shared():
    # s feeds the add and the multiplication after it: mul's backward writes s's gradient
    # first and the add's adds to it, so only exp(b)'s gradient takes the add's buffer
    a, b = mx.sym.var('a'), mx.sym.var('b')
    s = mx.sym.exp(a)
    t = mx.sym.elemwise_add(s, mx.sym.exp(b))
    y = mx.sym.elemwise_mul(t, s)
    exe = y.simple_bind(mx.cpu(), a=(4,), b=(4,))
    (_, reqs, out_grad, _, _, in_grad, _, _), = _add_steps(exe)
    assert reqs == ['add', 'write']
    assert [np.shares_memory(g, out_grad[0]) for g in in_grad] == [False, True]
    va, vb = np.linspace(-1, 1, 4), np.linspace(0, 2, 4)
    exe.forward(is_train=True, a=va, b=vb)
    exe.backward(mx.nd.ones(4))
    sa, sb = np.exp(va), np.exp(vb)
    # y = (sa + sb) * sa: dy/da = (2 sa + sb) sa, dy/db = sa sb
    np.testing.assert_allclose(exe.grad_dict['a'].asnumpy(), (2 * sa + sb) * sa, rtol=1e-5)
    np.testing.assert_allclose(exe.grad_dict['b'].asnumpy(), sa * sb, rtol=1e-5)
