"""simple_bind with group2ctx places the arrays of a variable declared in a ctx_group on
that group's context (arguments, gradients and auxiliary states, the implicitly created
parameters of an operator inside the scope included), as MXNet 1.9.1 does; a Module with
group2ctxs hands back input gradients on those contexts."""
import numpy as np

import symmod as mx


def _graph():
    with mx.AttrScope(ctx_group='dev1'):
        a = mx.sym.Variable('a')
        bn = mx.sym.BatchNorm(a, name='bn')
    with mx.AttrScope(ctx_group='dev2'):
        w = mx.sym.Variable('w')
        return mx.sym.broadcast_add(bn, w)


def test_simple_bind_places_grouped_variables():
    exe = _graph().simple_bind(mx.cpu(0), a=(2, 3), w=(2, 3),
                               group2ctx={'dev1': mx.cpu(1), 'dev2': mx.cpu(2)})
    # contexts printed by MXNet 1.9.1 for the same graph and bind
    expected = {'a': mx.cpu(1), 'bn_gamma': mx.cpu(1), 'bn_beta': mx.cpu(1), 'w': mx.cpu(2)}
    assert {k: v.context for k, v in exe.arg_dict.items()} == expected
    assert {k: v.context for k, v in exe.grad_dict.items()} == expected
    assert {k: v.context for k, v in exe.aux_dict.items()} == {
        'bn_moving_mean': mx.cpu(1), 'bn_moving_var': mx.cpu(1)}


def test_without_group2ctx_everything_stays_on_the_bind_context():
    exe = _graph().simple_bind(mx.cpu(0), a=(2, 3), w=(2, 3))
    assert {v.context for v in exe.arg_arrays + exe.aux_arrays} == {mx.cpu(0)}


def test_module_input_gradients_live_on_their_groups_devices():
    with mx.AttrScope(ctx_group='dev1'):
        a = mx.sym.Variable('a') * 2
    with mx.AttrScope(ctx_group='dev2'):
        c = a + mx.sym.Variable('b')
    mod = mx.mod.Module(c, context=[mx.cpu(0)], data_names=['a', 'b'], label_names=None,
                        group2ctxs={'dev1': mx.cpu(1), 'dev2': mx.cpu(2)})
    mod.bind(data_shapes=[('a', (2, 5)), ('b', (2, 5))], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2, 5)), mx.nd.ones((2, 5))]), is_train=True)
    mod.backward([mx.nd.ones((2, 5))])
    grad_a, grad_b = mod.get_input_grads()
    assert (grad_a.context, grad_b.context) == (mx.cpu(1), mx.cpu(2))
    np.testing.assert_array_equal(grad_a.asnumpy(), np.full((2, 5), 2.0))
    np.testing.assert_array_equal(grad_b.asnumpy(), np.ones((2, 5)))
