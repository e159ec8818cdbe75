"""BatchNorm, and residual additions, fused with the relu that alone reads them
(symmod/executor/fusion.py): which pairs fuse, and that the fused steps give what the
operators run one by one give."""
import numpy as np
import pytest

import symmod as mx
from symmod.ops import norm_kernels
from symmod.test_utils import assert_almost_equal, check_numeric_gradient


def _conv_bn(data, name, filters=4):
    conv = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=filters,
                              no_bias=True, name=name + '_conv')
    return mx.sym.BatchNorm(conv, fix_gamma=False, name=name + '_bn')


def _residual_net():
    """Conv-BN-relu, then a residual block (BN-relu inside, add-relu at its end)."""
    data = mx.sym.Variable('data')
    stem = mx.sym.Activation(_conv_bn(data, 'stem'), act_type='relu', name='stem_relu')
    body = mx.sym.Activation(_conv_bn(stem, 'b1'), act_type='relu', name='b1_relu')
    body = _conv_bn(body, 'b2')
    out = mx.sym.Activation(body + stem, act_type='relu', name='out_relu')
    out = mx.sym.FullyConnected(mx.sym.flatten(out), num_hidden=3, name='fc')
    return mx.sym.SoftmaxOutput(out, name='softmax')


def _bind(sym, dtype=np.float32, grad_req='write', seed=0, batch=4):
    ex = sym.simple_bind(mx.cpu(), data=(batch, 2, 6, 5), softmax_label=(batch,),
                         type_dict={'data': dtype}, grad_req=grad_req)
    rng = np.random.default_rng(seed)
    for name, array in ex.arg_dict.items():
        if name == 'softmax_label':
            array[:] = rng.integers(0, 3, array.shape)
        else:
            array[:] = rng.standard_normal(array.shape)
    for name, array in ex.grad_dict.items():
        if array is not None:
            array[:] = 0.25
    return ex


def _run(ex, fused, is_train=True):
    if not fused:
        ex._forward_steps, ex._backward_steps = ex._plan.forward_steps, ex._plan.backward_steps
    outputs = [o.asnumpy().copy() for o in ex.forward(is_train=is_train)]
    if not is_train:
        return outputs, {}, []
    ex.backward()
    grads = {k: g.asnumpy().copy() for k, g in ex.grad_dict.items() if g is not None}
    return outputs, grads, [a.asnumpy().copy() for a in ex.aux_arrays]


def test_pairs_that_fuse():
    ex = _bind(_residual_net())
    # stem and b1 BatchNorms fuse with their relus; b2's BatchNorm feeds the addition,
    # which fuses with out_relu, and forward b2's BatchNorm, right before them, too
    assert len(ex._plan.forward_steps) - len(ex._forward_steps) == 4
    assert len(ex._plan.backward_steps) - len(ex._backward_steps) == 3
    kinds = {s[-1].name: type(s[0]).__name__ for s in ex._forward_steps}
    assert kinds['b1_bn'] == kinds['stem_bn'] == '_FusedForward'
    assert kinds['b2_bn'] == '_BatchNormAddReluForward'
    assert 'b1_relu' not in kinds and 'stem_relu' not in kinds and 'out_relu' not in kinds
    backward = {s[-1].name: type(s[0]).__name__ for s in ex._backward_steps}
    assert backward['b1_bn'] == backward['stem_bn'] == '_FusedBackward'
    assert '_AddReluBackward' in backward.values() and 'out_relu' not in backward


def test_batchnorm_add_relu_fuses_only_right_before_the_addition():
    data = mx.sym.Variable('data')
    stem = mx.sym.Activation(_conv_bn(data, 'stem'), act_type='relu', name='stem_relu')
    body = _conv_bn(stem, 'b1')
    # the shortcut's convolution runs between b1's BatchNorm and the addition
    shortcut = mx.sym.Convolution(stem, kernel=(1, 1), num_filter=4, name='short')
    out = mx.sym.Activation(body + shortcut, act_type='relu', name='out_relu')
    ex = mx.sym.make_loss(mx.sym.sum(out)).simple_bind(mx.cpu(), data=(2, 2, 4, 4))
    kinds = {s[-1].name: type(s[0]).__name__ for s in ex._forward_steps}
    assert kinds['b1_bn'] == 'BatchNorm' and kinds['out_relu'] == '_AddReluForward'
    # read by something else too
    body = _conv_bn(stem, 'b1')
    out = mx.sym.Activation(body + stem, act_type='relu', name='out_relu')
    ex = mx.sym.Group([mx.sym.make_loss(mx.sym.sum(out)), mx.sym.BlockGrad(body)]
                      ).simple_bind(mx.cpu(), data=(2, 2, 4, 4))
    kinds = {s[-1].name: type(s[0]).__name__ for s in ex._forward_steps}
    assert kinds['b1_bn'] == 'BatchNorm'


@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('grad_req', ['write', 'add'])
@pytest.mark.parametrize('batch', [4, 2 * norm_kernels.GROUP + 1],
                         ids=['channel-split', 'sample-split'])
def test_fused_steps_match_the_operators_one_by_one(dtype, grad_req, batch):
    results = [_run(_bind(_residual_net(), dtype, grad_req, batch=batch), fused)
               for fused in (True, False)]
    (out_f, grads_f, aux_f), (out_p, grads_p, aux_p) = results
    # forward: the same arithmetic, the same bits
    for a, b in zip(out_f, out_p):
        assert np.array_equal(a, b)
    for a, b in zip(aux_f, aux_p):
        assert np.array_equal(a, b)
    # backward: the masked sums may be vectorized in another order
    tol = {np.float16: 1e-2, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    assert grads_f.keys() == grads_p.keys()
    for name in grads_f:
        assert_almost_equal(grads_f[name], grads_p[name], rtol=tol, atol=tol)


@pytest.mark.parametrize('grad_req', ['write', 'null'])
def test_inference_forward_fused(grad_req):
    """Also bound for inference alone, where the plan may give an output the memory of an
    input no later step reads (the fused steps read each input element before writing
    that element of the output)."""
    results = [_run(_bind(_residual_net(), grad_req=grad_req, batch=2 * norm_kernels.GROUP),
                    fused, is_train=False) for fused in (True, False)]
    assert np.array_equal(results[0][0][0], results[1][0][0])


def test_batchnorm_read_elsewhere_is_not_fused():
    data = mx.sym.Variable('data')
    bn = _conv_bn(data, 'a')
    relu = mx.sym.Activation(bn, act_type='relu')
    sym = mx.sym.Group([mx.sym.make_loss(mx.sym.sum(relu * bn)), mx.sym.BlockGrad(bn)])
    ex = sym.simple_bind(mx.cpu(), data=(2, 2, 4, 4))
    assert len(ex._forward_steps) == len(ex._plan.forward_steps)
    sym = mx.sym.make_loss(mx.sym.sum(mx.sym.Activation(bn, act_type='tanh')))
    ex = sym.simple_bind(mx.cpu(), data=(2, 2, 4, 4))
    assert len(ex._forward_steps) == len(ex._plan.forward_steps)


def test_monitor_sees_the_batchnorm_output_before_the_relu():
    ex = _bind(_residual_net())
    seen = {}
    ex.set_monitor_callback(lambda name, array: seen.__setitem__(
        mx.base.py_str(name), array.asnumpy().copy()))
    ex.forward(is_train=True)
    bn_out, relu_out = seen['b1_bn_output'], seen['b1_relu_output']
    assert (bn_out < 0).any()
    assert np.array_equal(relu_out, np.maximum(bn_out, 0))


@pytest.mark.parametrize('params', [dict(fix_gamma=False), dict(fix_gamma=True),
                                    dict(fix_gamma=False, use_global_stats=True)])
@pytest.mark.parametrize('batch', [3, 2 * norm_kernels.GROUP + 1],
                         ids=['channel-split', 'sample-split'])
def test_fused_numeric_gradient(batch, params):
    """The fused backward pass's relu mask (the normalized value again, from the forward
    pass's statistics, gamma and beta) in each mode."""
    data = mx.sym.Variable('data')
    conv = mx.sym.Convolution(data, kernel=(1, 1), num_filter=3, name='conv')
    bn = mx.sym.BatchNorm(conv, eps=1e-3, name='bn', **params)
    sym = mx.sym.Activation(bn, act_type='relu')
    rng = np.random.default_rng(4)
    x = rng.standard_normal((batch, 2, 3, 4))
    ex = sym.simple_bind(mx.cpu(), data=x.shape)
    assert len(ex._forward_steps) < len(ex._plan.forward_steps)
    check_numeric_gradient(sym, {'data': x, 'conv_weight': rng.standard_normal((3, 2, 1, 1)),
                                 'conv_bias': rng.standard_normal(3),
                                 'bn_gamma': rng.uniform(0.5, 1.5, 3),
                                 'bn_beta': rng.standard_normal(3)},
                           aux_states={'bn_moving_mean': np.zeros(3),
                                       'bn_moving_var': np.ones(3)},
                           numeric_eps=1e-5, rtol=1e-4, atol=1e-6, dtype=np.float64)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('batch', [4, 2 * norm_kernels.GROUP + 1],
                         ids=['channel-split', 'sample-split'])
def test_fused_backward_does_not_read_the_relu_output(dtype, batch):
    """float32 / float64 data: the fused BatchNorm's backward passes take the relu's mask
    from ``x`` again (norm_kernels.py), one read of the activations fewer, so the relu's
    output may be overwritten before them and their gradients stay the same (the
    convolutions' weight gradients, which read it, do not)."""
    ex = _bind(_residual_net(), dtype, batch=batch)
    expected = _run(ex, True)[1]
    fused = [s[0] for s in ex._backward_steps if type(s[0]).__name__ == '_FusedBackward']
    assert len(fused) == 2
    ex.forward(is_train=True)
    for step in fused:
        step.relu_out[...] = np.nan
    ex.backward()
    for name in ('data', 'stem_bn_gamma', 'stem_bn_beta', 'b1_bn_gamma', 'b1_bn_beta'):
        assert np.array_equal(ex.grad_dict[name].asnumpy(), expected[name]), name


def test_module_fit_matches_unfused(monkeypatch):
    from symmod.executor import executor as executor_module

    def train(fuse):
        if not fuse:
            monkeypatch.setattr(executor_module, '_fuse',
                                lambda fwd, bwd, nodes, heads: (fwd, bwd))
        rng = np.random.default_rng(1)
        x = rng.standard_normal((8, 2, 6, 5)).astype(np.float32)
        y = rng.integers(0, 3, 8).astype(np.float32)
        mx.random.seed(3)
        mod = mx.mod.Module(_residual_net(), context=mx.cpu())
        mod.fit(mx.io.NDArrayIter(x, y, 4), num_epoch=2, optimizer='sgd',
                optimizer_params={'learning_rate': 0.1, 'momentum': 0.9},
                initializer=mx.init.Xavier())
        return {k: v.asnumpy() for k, v in mod.get_params()[0].items()}

    fused, plain = train(True), train(False)
    for name in fused:
        assert_almost_equal(fused[name], plain[name], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('req', ['write', 'add', 'null'])
def test_add_relu_gradients(req):
    # relu(a + a) (both input gradients one array), relu(a + b) with b's gradient under
    # each request, large enough for the numba block loops
    shape = (2, 3, 100, 120)
    rng = np.random.default_rng(2)
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    for sym, names in ((mx.sym.relu(a + a), ['a']), (mx.sym.relu(a + b), ['a', 'b'])):
        sym = mx.sym.make_loss(sym * mx.sym.Variable('w'))
        values = {n: rng.standard_normal(shape).astype(np.float32) for n in names + ['w']}
        reqs = {n: ('write' if n != 'b' else req) for n in names}
        reqs['w'] = 'null'
        results = []
        for fused in (True, False):
            ex = sym.bind(mx.cpu(), args={k: mx.nd.array(v) for k, v in values.items()},
                          args_grad={n: mx.nd.ones(shape) for n in names},
                          grad_req=reqs)
            assert (len(ex._forward_steps) < len(ex._plan.forward_steps)) is True
            results.append(_run(ex, fused)[1])
        for name in names:
            assert np.array_equal(results[0][name], results[1][name]), name
        if req == 'null' and len(names) == 2:
            assert np.array_equal(results[0]['b'], np.ones(shape, np.float32))


def test_add_read_elsewhere_is_not_fused():
    a, b = mx.sym.Variable('a'), mx.sym.Variable('b')
    total = a + b
    sym = mx.sym.make_loss(mx.sym.sum(mx.sym.relu(total) * total))
    ex = sym.simple_bind(mx.cpu(), a=(2, 3), b=(2, 3))
    assert len(ex._forward_steps) == len(ex._plan.forward_steps)


def test_nan_passes_through_the_fused_relus():
    ex = _bind(_residual_net())
    ex.arg_dict['data'][0, 0, 0, 0] = np.nan
    seen = {}
    for fused in (True, False):
        if not fused:
            ex._forward_steps = ex._plan.forward_steps
        ex.forward(is_train=True)
        seen[fused] = ex.outputs[0].asnumpy()
    assert np.isnan(seen[False]).any()
    assert np.array_equal(seen[True], seen[False], equal_nan=True)


def test_add_relu_kernel_keeps_nan():
    from symmod.ops import elementwise_kernels
    a = np.full(1 << 17, -1.0, np.float32)
    a[[3, 70000]] = np.nan
    out = elementwise_kernels.add_relu(a, np.zeros_like(a), np.empty_like(a))
    assert np.isnan(out[[3, 70000]]).all() and (np.nan_to_num(out) == 0).all()
