"""Custom operators written in Python (``mx.operator`` + the ``Custom`` operator):
symbolic and imperative use, autograd, Module training, inference from the user's prop,
symbol JSON as MXNet writes it, and the error cases."""
import itertools
import json
import logging
import os

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

import custom_cases

TESTED_OPS = {'Custom'}

DATA = os.path.join(os.path.dirname(__file__), '..', 'data')
custom_cases.register_ops(mx)
_NAMES = itertools.count()


def _register(prop_cls):
    """Register ``prop_cls`` under a fresh name and return the name (unique per module
    object: the coverage test executes this file a second time)."""
    name = '%s_%d' % (__name__, next(_NAMES))
    mx.operator.register(name)(prop_cls)
    return name


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _onehot(label, n):
    return np.eye(n)[label.astype(np.int64)]


class Cube(mx.operator.CustomOp):
    """y = x ** 3, written straight into the buffers (no assign)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        out_data[0][:] = in_data[0] * in_data[0] * in_data[0]

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x = in_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * x * x * 3.0)


class CubeProp(mx.operator.CustomOpProp):
    created = []        # (ctx, shapes, dtypes) of every create_operator call

    def create_operator(self, ctx, in_shapes, in_dtypes):
        type(self).created.append((ctx, in_shapes, in_dtypes))
        return Cube()


class Sigmoid(mx.operator.CustomOp):
    """Keeps nothing but declares it reads only out_grad and out_data."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        self.assign(out_data[0], req[0], 1.0 / (1.0 + np.exp(-x)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0].asnumpy()
        self.assign(in_grad[0], req[0], out_grad[0].asnumpy() * y * (1.0 - y))


class SigmoidProp(mx.operator.CustomOpProp):
    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return out_grad + out_data

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return Sigmoid()


CUBE = _register(CubeProp)
SIGMOID = _register(SigmoidProp)


# ---- JSON and MXNet's numbers --------------------------------------------------------------
def test_json_is_what_mxnet_writes_and_round_trips():
    with open(os.path.join(DATA, 'custom_symbol_reference.json')) as f:
        expected = f.read()
    sym = custom_cases.json_graph(mx)
    assert sym.tojson() == expected
    loaded = mx.sym.load_json(expected)
    assert loaded.tojson() == expected
    assert loaded.list_arguments() == ['data', 'fc1_weight', 'fc1_bias', 'stats_shift',
                                       'softmax_label']
    assert loaded.list_auxiliary_states() == ['stats_running_mean']
    assert loaded.list_outputs() == ['softmax_output']
    node = json.loads(expected)['nodes'][6]
    assert loaded.get_internals()['stats_output'].attr('scale') == node['attrs']['scale']


def test_json_graph_trains_like_mxnet():
    ref = np.load(os.path.join(DATA, 'custom_reference.npz'))
    with open(os.path.join(DATA, 'custom_symbol_reference.json')) as f:
        sym = mx.sym.load_json(f.read())
    inputs = custom_cases.json_graph_inputs()
    exe = sym.simple_bind(mx.cpu(), grad_req='write', **{k: v.shape for k, v in inputs.items()})
    for name, value in inputs.items():
        exe.arg_dict[name][:] = value
    exe.aux_dict['stats_running_mean'][:] = 0.25
    exe.forward(is_train=True)
    exe.backward()      # the softmax loss needs no head gradient
    assert_almost_equal(exe.outputs[0], ref['output'], rtol=1e-5, atol=1e-6)
    for name in ('data', 'fc1_weight', 'fc1_bias', 'stats_shift'):
        assert_almost_equal(exe.grad_dict[name], ref['grad_' + name], rtol=1e-5, atol=1e-6)
    assert_almost_equal(exe.aux_dict['stats_running_mean'], ref['stats_running_mean'],
                        rtol=1e-5, atol=1e-7)


# ---- symbolic: loss head, gradients, req -----------------------------------------------------
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', [(3, 4), (8, 10)])
def test_softmax_loss_is_a_head_without_out_grad(dtype, shape):
    rng = np.random.RandomState(0)
    x = rng.randn(*shape).astype(dtype)
    label = rng.randint(0, shape[1], shape[0]).astype(dtype)
    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=custom_cases.SOFTMAX, name='sm')
    exe = sym.simple_bind(mx.cpu(), x=shape, type_dict={'x': dtype, 'sm_label': dtype})
    exe.arg_dict['x'][:] = x
    exe.arg_dict['sm_label'][:] = label
    out = exe.forward(is_train=True)[0]
    assert out.dtype == dtype
    assert_almost_equal(out, _softmax(x.astype(np.float64)))
    exe.backward()
    assert_almost_equal(exe.grad_dict['x'],
                        _softmax(x.astype(np.float64)) - _onehot(label, shape[1]))


@pytest.mark.parametrize('shape', [(2, 3), (4, 5)])
def test_numeric_gradient_two_inputs_two_outputs_aux(shape):
    rng = np.random.RandomState(1)
    stats = mx.sym.Custom(mx.sym.Variable('data'), op_type=custom_cases.SCALE_STATS,
                          scale=1.5, name='stats')
    sym = stats[0] + stats[1]
    location = {'data': rng.randn(*shape), 'stats_shift': rng.randn(shape[1])}
    check_numeric_gradient(sym, location, aux_states={'stats_running_mean': np.zeros(shape[1])},
                           numeric_eps=1e-6, rtol=1e-5, atol=1e-8, dtype=np.float64)


def test_numeric_gradient_inside_a_network_with_reduced_dependencies():
    rng = np.random.RandomState(2)
    data = mx.sym.Variable('data')
    hidden = mx.sym.FullyConnected(data, num_hidden=5, name='fc1')
    act = mx.sym.Custom(hidden, op_type=SIGMOID, name='act')
    cube = mx.sym.Custom(act, op_type=CUBE, name='cube')
    sym = mx.sym.FullyConnected(cube, num_hidden=3, name='fc2')
    location = {'data': rng.randn(4, 6), 'fc1_weight': rng.randn(5, 6),
                'fc1_bias': rng.randn(5), 'fc2_weight': rng.randn(3, 5), 'fc2_bias': rng.randn(3)}
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


def test_grad_req_add_is_passed_to_the_user_backward():
    rng = np.random.RandomState(3)
    stats = mx.sym.Custom(mx.sym.Variable('data'), op_type=custom_cases.SCALE_STATS,
                          scale=0.5, name='stats')
    sym = stats[0] + stats[1]
    location = {'data': rng.randn(3, 4), 'stats_shift': rng.randn(4)}
    check_numeric_gradient(sym, location, grad_nodes={'data': 'add', 'stats_shift': 'add'},
                           aux_states=[np.zeros(4)], numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)
    # and by hand: two backward passes accumulate onto the initial values
    x, shift = location['data'], location['stats_shift']
    head = rng.randn(3, 4)
    exe = sym.bind(mx.cpu(), args={'data': mx.nd.array(x, dtype=np.float64),
                                   'stats_shift': mx.nd.array(shift, dtype=np.float64)},
                   args_grad={'data': mx.nd.ones((3, 4), dtype=np.float64),
                              'stats_shift': mx.nd.ones((4,), dtype=np.float64)},
                   grad_req='add', aux_states=[mx.nd.zeros((4,), dtype=np.float64)])
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(mx.nd.array(head, dtype=np.float64))
    assert_almost_equal(exe.grad_dict['data'], 1 + 2 * head * (0.5 + 2 * x))
    assert_almost_equal(exe.grad_dict['stats_shift'], 1 + 2 * head.sum(axis=0))


def test_forward_is_train_and_aux_update():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    stats = mx.sym.Custom(mx.sym.Variable('data'), op_type=custom_cases.SCALE_STATS,
                          scale=2, momentum=0.5, name='stats')
    exe = stats.simple_bind(mx.cpu(), data=(3, 4))
    exe.arg_dict['data'][:] = x
    exe.arg_dict['stats_shift'][:] = 1.0
    exe.forward(is_train=False)
    assert_almost_equal(exe.outputs[0], 2 * x + 1)
    assert_almost_equal(exe.outputs[1], x * x)
    assert_almost_equal(exe.aux_dict['stats_running_mean'], np.zeros(4))
    exe.forward(is_train=True)
    assert_almost_equal(exe.aux_dict['stats_running_mean'], 0.5 * x.mean(axis=0))


# ---- inference from the prop -----------------------------------------------------------------
def test_infer_shape_fills_inputs_outputs_and_aux_from_the_prop():
    stats = mx.sym.Custom(mx.sym.Variable('data'), op_type=custom_cases.SCALE_STATS,
                          name='stats')
    sym = mx.sym.Custom(stats[0] + stats[1], op_type=custom_cases.SOFTMAX, name='sm')
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(data=(5, 7))
    assert dict(zip(sym.list_arguments(), arg_shapes)) == {
        'data': (5, 7), 'stats_shift': (7,), 'sm_label': (5,)}
    assert out_shapes == [(5, 7)]
    assert aux_shapes == [(7,)]
    # nothing known: the tutorial's prop fails on in_shape[0][0], which means "not yet"
    arg_shapes, _, _ = sym.infer_shape_partial()
    assert arg_shapes == [(), (), ()]

    class FixedProp(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return [[4, 2]], [[2, 4]], []

    fixed = mx.sym.Custom(mx.sym.Variable('x'), op_type=_register(FixedProp))
    assert fixed.infer_shape() == ([(4, 2)], [(2, 4)], [])


def test_infer_shape_conflicts_and_prop_failures_are_errors():
    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=custom_cases.SOFTMAX, name='sm')
    with pytest.raises(mx.MXNetError, match='sm'):
        sym.infer_shape(x=(4, 3), sm_label=(5,))
    # as in MXNet, the prop is asked with the data shape unknown ([]) and fails
    with pytest.raises(mx.MXNetError, match=r'test_softmax\.infer_shape.*IndexError'):
        sym.infer_shape_partial(sm_label=(4,))


def test_imperative_inputs_must_have_the_shapes_the_prop_infers():
    class Twice(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 2)

    class FixedProp(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return [(3,)], [(3,)], []

        def create_operator(self, ctx, shapes, dtypes):
            return Twice()

    name = _register(FixedProp)
    np.testing.assert_array_equal(mx.nd.Custom(mx.nd.ones((3,)), op_type=name).asnumpy(),
                                  [2, 2, 2])
    with pytest.raises(mx.MXNetError, match=r'input data has shape \(2,\), expected \(3,\)'):
        mx.nd.Custom(mx.nd.ones((2,)), op_type=name)


def test_infer_type_from_the_prop_and_create_operator_arguments():
    CubeProp.created.clear()
    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=CUBE, name='c')
    _, out_types, _ = sym.infer_type(x=np.float64)
    assert out_types == [np.float64]
    exe = sym.simple_bind(mx.cpu(), x=(2, 3), type_dict={'x': np.float64})
    assert exe.outputs[0].dtype == np.float64
    ((ctx, shapes, dtypes),) = CubeProp.created
    assert ctx == mx.cpu() and shapes == [[2, 3]] and dtypes == [1]    # MXNet's type flag
    stats = mx.sym.Custom(mx.sym.Variable('data'), op_type=custom_cases.SCALE_STATS)
    # the default infer_type types outputs and aux states only, as in MXNet
    assert stats.infer_type_partial(data=np.float16) == (
        [np.float16, None], [np.float16, np.float16], [np.float16])


@pytest.mark.parametrize('wrong, message', [
    (lambda s: ([s[0]], [s[0], s[0]], []), 'expecting 1 entries in returned output shapes, got 2'),
    (lambda s: ([], [s[0]], []), 'expecting 1 entries in returned input shapes, got 0'),
    (lambda s: ([s[0]], [s[0]], [s[0]]), 'expecting 0 entries in returned aux state shapes'),
    (lambda s: ([s[0]],), 'must return 2 or 3 lists'),
])
def test_prop_returning_wrong_number_of_shapes(wrong, message):
    class WrongProp(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return wrong(in_shape)

    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=_register(WrongProp), name='w')
    with pytest.raises(mx.MXNetError, match=message):
        sym.infer_shape(x=(2, 3))


def test_prop_returning_wrong_number_of_types():
    class WrongProp(mx.operator.CustomOpProp):
        def infer_type(self, in_type):
            return in_type, [in_type[0]] * 2, []

    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=_register(WrongProp))
    with pytest.raises(mx.MXNetError, match='expecting 1 entries in returned output types'):
        sym.infer_type(x=np.float32)


# ---- the CustomOp instance and its arrays ----------------------------------------------------
def test_create_operator_once_per_bind_and_once_per_imperative_call():
    CubeProp.created.clear()
    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=CUBE)
    exe = sym.simple_bind(mx.cpu(), x=(2, 2))
    exe.arg_dict['x'][:] = 2.0
    for _ in range(3):
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((2, 2)))
    assert len(CubeProp.created) == 1
    assert_almost_equal(exe.outputs[0], np.full((2, 2), 8.0))      # out_data[0][:] = ...
    assert_almost_equal(exe.grad_dict['x'], np.full((2, 2), 12.0))
    sym.simple_bind(mx.cpu(), x=(2, 2))
    assert len(CubeProp.created) == 2
    for _ in range(2):
        mx.nd.Custom(mx.nd.ones((3,)), op_type=CUBE)
    assert len(CubeProp.created) == 4


def test_user_sees_the_executor_buffers():
    seen = {}

    class Probe(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            seen['types'] = {type(a) for a in in_data + out_data}
            seen['req'] = req
            self.assign(out_data[0], req[0], in_data[0] + 1)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            seen['back_req'] = req
            self.assign(in_grad[0], req[0], out_grad[0])

    class ProbeProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Probe()

    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=_register(ProbeProp), name='p')
    exe = sym.simple_bind(mx.cpu(), x=(2,), grad_req='add')
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((2,)))
    assert seen == {'types': {mx.nd.NDArray}, 'req': ['write'], 'back_req': ['add']}
    assert_almost_equal(exe.outputs[0], np.ones(2))
    assert_almost_equal(exe.grad_dict['x'], np.ones(2))


def test_kwargs_reach_the_prop_as_strings():
    received = []

    class ArgsProp(mx.operator.CustomOpProp):
        def __init__(self, scale, flag='False', window=None):
            super().__init__()
            received.append((scale, flag, window))

    name = _register(ArgsProp)
    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=name, scale=0.5, flag=True,
                        window=(2, 3), name='a')
    assert received[-1] == ('0.5', 'True', '(2, 3)')
    assert sym.list_attr() == {'op_type': name, 'scale': '0.5', 'flag': 'True',
                               'window': '(2, 3)'}
    mx.nd.Custom(mx.nd.ones((2,)), op_type=name, scale=2)
    assert received[-1] == ('2', 'False', None)
    # hidden attributes stay attributes
    sym = mx.sym.Custom(mx.sym.Variable('x'), op_type=name, scale=1, lr_mult=2)
    assert received[-1] == ('1', 'False', None)
    assert sym.attr('lr_mult') == '2'


# ---- imperative and autograd -------------------------------------------------------------------
def test_nd_custom_forward_and_multiple_outputs():
    x = np.random.RandomState(4).randn(3, 4).astype(np.float32)
    y = mx.nd.Custom(mx.nd.array(x), op_type=CUBE)
    assert_almost_equal(y, x ** 3)
    out, sq = mx.nd.Custom(mx.nd.array(x), mx.nd.ones((4,)), mx.nd.zeros((4,)),
                           op_type=custom_cases.SCALE_STATS, scale=3)
    assert_almost_equal(out, 3 * x + 1)
    assert_almost_equal(sq, x * x)


def test_autograd_runs_the_user_backward():
    x = mx.nd.array(np.array([[1.0, -2.0], [0.5, 3.0]]))
    x.attach_grad()
    with mx.autograd.record():
        z = mx.nd.Custom(x, op_type=CUBE) * 2
    z.backward()
    assert_almost_equal(x.grad, 6 * x.asnumpy() ** 2)


def test_autograd_loss_head_and_calls_keep_their_own_op():
    class Saving(mx.operator.CustomOp):
        """Keeps its input on itself between forward and backward."""

        def forward(self, is_train, req, in_data, out_data, aux):
            self.saved = in_data[0].asnumpy()
            self.assign(out_data[0], req[0], in_data[0] * in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0].asnumpy() * 2 * self.saved)

    class SavingProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Saving()

    name = _register(SavingProp)
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([3.0, 5.0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        total = mx.nd.Custom(a, op_type=name) + mx.nd.Custom(b, op_type=name)
    total.backward()
    assert_almost_equal(a.grad, [2.0, 4.0])
    assert_almost_equal(b.grad, [6.0, 10.0])

    x = np.random.RandomState(5).randn(4, 3).astype(np.float32)
    label = np.array([0, 2, 1, 2], dtype=np.float32)
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        prob = mx.nd.Custom(data, mx.nd.array(label), op_type=custom_cases.SOFTMAX)
    prob.backward()
    assert_almost_equal(data.grad, _softmax(x) - _onehot(label, 3), rtol=1e-5, atol=1e-6)


# ---- training with Module ----------------------------------------------------------------
def _mlp(head):
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=128, name='fc1')
    act1 = mx.sym.Activation(fc1, act_type='relu', name='relu1')
    fc2 = mx.sym.FullyConnected(act1, num_hidden=64, name='fc2')
    act2 = mx.sym.Activation(fc2, act_type='relu', name='relu2')
    fc3 = mx.sym.FullyConnected(act2, num_hidden=10, name='fc3')
    return head(fc3)


def test_module_fit_with_custom_softmax_matches_softmax_output():
    rng = np.random.RandomState(6)
    x = rng.rand(128, 784).astype(np.float32)
    y = rng.randint(0, 10, 128).astype(np.float32)
    init = {'fc1_weight': (128, 784), 'fc1_bias': (128,), 'fc2_weight': (64, 128),
            'fc2_bias': (64,), 'fc3_weight': (10, 64), 'fc3_bias': (10,)}
    arg_params = {k: mx.nd.array(rng.normal(0, 0.05, s)) for k, s in init.items()}
    results = []
    for head in (lambda s: mx.sym.Custom(s, op_type=custom_cases.SOFTMAX, name='softmax'),
                 lambda s: mx.sym.SoftmaxOutput(s, name='softmax')):
        mod = mx.mod.Module(_mlp(head), context=mx.cpu())
        train = mx.io.NDArrayIter(x, y, batch_size=32)
        mod.fit(train, optimizer='sgd', optimizer_params={'learning_rate': 0.5},
                arg_params={k: v.copy() for k, v in arg_params.items()}, num_epoch=2)
        results.append((mod.get_params()[0], dict(mod.score(train, 'ce'))))
    (custom_params, custom_score), (ref_params, ref_score) = results
    for name in init:
        assert_almost_equal(custom_params[name], ref_params[name], rtol=1e-4, atol=1e-5)
        assert not np.allclose(custom_params[name].asnumpy(), arg_params[name].asnumpy())
    assert custom_score['cross-entropy'] == pytest.approx(ref_score['cross-entropy'], rel=1e-4)


# ---- errors and the module's API --------------------------------------------------------------
def test_unregistered_op_type_names_the_registered_ones():
    with pytest.raises(mx.MXNetError, match=r'Cannot find custom operator no_such_op\. '
                                            r'Registered custom operators: .*test_softmax'):
        mx.sym.Custom(mx.sym.Variable('x'), op_type='no_such_op')
    with pytest.raises(mx.MXNetError, match='no_such_op'):
        mx.nd.Custom(mx.nd.ones((2,)), op_type='no_such_op')
    with pytest.raises(mx.MXNetError, match='op_type'):
        mx.sym.Custom(mx.sym.Variable('x'))


def test_user_code_failures_are_mxnet_errors():
    class Broken(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            raise ValueError('broken forward')

    class BrokenProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Broken()

    name = _register(BrokenProp)
    with pytest.raises(mx.MXNetError, match='CustomOp.forward.*ValueError: broken forward'):
        mx.nd.Custom(mx.nd.ones((2,)), op_type=name)
    with pytest.raises(mx.MXNetError, match=r'__init__.*TypeError'):
        mx.sym.Custom(mx.sym.Variable('x'), op_type=name, bogus=1)


def test_default_storage_inference_refuses_sparse_arguments():
    # a prop with csr / row_sparse arrays must say so (tests/ops/test_custom_sparse.py)
    with pytest.raises(mx.MXNetError, match="Default infer_storage_type implementation "
                                            "doesn't allow non default stypes"):
        mx.operator.CustomOpProp().infer_storage_type(['row_sparse'])
    x = mx.nd.ones((2, 2)).tostype('csr')
    with pytest.raises(mx.MXNetError, match="found non default stype 'csr'"):
        mx.nd.Custom(x, op_type=_register(type('Dense', (mx.operator.CustomOpProp,), {})))


def test_assign_and_defaults():
    dst = mx.nd.ones((3,))
    op = mx.operator.CustomOp()
    op.assign(dst, 'null', mx.nd.array([5, 5, 5]))
    assert_almost_equal(dst, [1, 1, 1])
    op.assign(dst, 'write', np.array([1, 2, 3]))
    assert_almost_equal(dst, [1, 2, 3])
    op.assign(dst, 'add', mx.nd.array([1, 1, 1]))
    op.assign(dst, 'add', np.array([0.5, 0.5, 0.5]))
    assert_almost_equal(dst, [2.5, 3.5, 4.5])
    op.assign(dst, 'inplace', 0)
    assert_almost_equal(dst, [0, 0, 0])
    prop = mx.operator.CustomOpProp(need_top_grad=False)
    assert (prop.list_arguments(), prop.list_outputs(), prop.list_auxiliary_states()) == \
        (['data'], ['output'], [])
    assert prop.infer_shape([[2, 3]]) == ([[2, 3]], ([2, 3],), ())
    assert prop.declare_backward_dependency([0], [1], [2]) == [1, 2]
    assert mx.operator.CustomOpProp().declare_backward_dependency([0], [1], [2]) == [0, 1, 2]
    assert isinstance(prop.create_operator(mx.cpu(), [[2]], [0]), mx.operator.CustomOp)


def test_registry_listing_and_override_warning(caplog):
    names = mx.operator.get_all_registered_operators()
    assert {'Custom', 'FullyConnected', '_npi_Custom'} <= set(names)

    class First(mx.operator.CustomOpProp):
        def infer_shape(self, in_shape):
            return in_shape, [[1]], []

    class Second(mx.operator.CustomOpProp):
        pass

    name = _register(First)
    with caplog.at_level(logging.WARNING):
        mx.operator.register(name)(Second)
    assert 'overriding existing custom operator %s' % name in caplog.text
    assert mx.sym.Custom(mx.sym.Variable('x'), op_type=name).infer_shape(x=(2, 3))[1] == \
        [(2, 3)]
