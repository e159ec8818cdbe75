"""gluon Block / HybridBlock: naming, parameters, hooks, deferred init, hybridize, export."""
import os
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod import autograd, gluon
from symmod.gluon import nn

DATA = os.path.join(os.path.dirname(__file__), '..', 'data')
REF = np.load(os.path.join(DATA, 'gluon_reference.npz'))


class Model(gluon.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense0 = nn.Dense(5, in_units=3)
            self.dense1 = nn.Dense(2)

    def forward(self, x):
        return self.dense1(mx.nd.relu(self.dense0(x)))


def test_names_and_prefixes():
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(4, activation='relu'))
            net.add(nn.Dense(2))
        other = nn.Dense(3)
    assert net.prefix == 'hybridsequential0_' and net.name == 'hybridsequential0'
    assert other.prefix == 'dense0_'
    assert list(net.collect_params().keys()) == [
        'hybridsequential0_dense0_weight', 'hybridsequential0_dense0_bias',
        'hybridsequential0_dense1_weight', 'hybridsequential0_dense1_bias']
    assert net[0].act.prefix == 'hybridsequential0_dense0_relu_'
    named = Model(prefix='model_')
    assert named.dense0.weight.name == 'model_dense0_weight'
    assert len(net) == 2 and isinstance(net[1:], nn.HybridSequential)


def test_collect_params_select_and_params():
    net = Model(prefix='m_')
    assert list(net.params.keys()) == []
    sel = net.collect_params('.*weight')
    assert list(sel.keys()) == ['m_dense0_weight', 'm_dense1_weight']


def test_deferred_initialization_on_first_call():
    net = Model()
    net.initialize(mx.init.Xavier())
    with pytest.raises(gluon.DeferredInitializationError):
        net.dense1.weight.data()
    out = net(mx.nd.ones((4, 3)))
    assert out.shape == (4, 2)
    assert net.dense1.weight.shape == (2, 5)


def test_block_forward_matches_numpy_and_trains():
    net = Model()
    net.initialize()
    x = np.random.RandomState(0).normal(size=(4, 3)).astype(np.float32)
    out = net(mx.nd.array(x))
    w0, b0 = net.dense0.weight.data().asnumpy(), net.dense0.bias.data().asnumpy()
    w1, b1 = net.dense1.weight.data().asnumpy(), net.dense1.bias.data().asnumpy()
    expected = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    with autograd.record():
        loss = net(mx.nd.array(x)).sum()
    loss.backward()
    hidden = np.maximum(x @ w0.T + b0, 0)
    np.testing.assert_allclose(net.dense1.weight.grad().asnumpy(),
                               np.ones((4, 2)).T @ hidden, rtol=1e-5)


def test_setattr_rules_and_unregistered_container_warning():
    net = Model()
    with pytest.raises(TypeError, match='Changing attribute type for dense0'):
        net.dense0 = 3

    class Holder(gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Dense(2)]
    holder = Holder()
    with pytest.warns(UserWarning, match='unregistered container with Blocks'):
        holder.collect_params()


def test_hooks_and_apply():
    net = Model()
    net.initialize()
    seen = []
    pre = net.register_forward_pre_hook(lambda blk, inp: seen.append(('pre', len(inp))))
    post = net.register_forward_hook(lambda blk, inp, out: seen.append(('post', out.shape)))
    net(mx.nd.ones((1, 3)))
    assert seen == [('pre', 1), ('post', (1, 2))]
    pre.detach()
    post.detach()
    net(mx.nd.ones((1, 3)))
    assert len(seen) == 2
    names = []
    net.apply(lambda blk: names.append(blk.name))
    assert names[-1] == net.name and len(names) == 3


def test_hybrid_block_children_must_be_hybrid():
    seq = nn.HybridSequential()
    with pytest.raises(ValueError, match='Children of HybridBlock must also be HybridBlock'):
        seq.add(Model())


def test_hybridize_gives_same_outputs_and_gradients():
    def build():
        net = nn.HybridSequential(prefix='h_')
        with net.name_scope():
            net.add(nn.Dense(6, activation='tanh', in_units=4))
            net.add(nn.BatchNorm(in_channels=6))
            net.add(nn.Dense(3, in_units=6))
        net.initialize(mx.init.Xavier())
        return net
    mx.random.seed(1)
    imperative = build()
    mx.random.seed(1)
    hybrid = build()
    hybrid.hybridize()
    x = mx.nd.array(np.random.RandomState(3).normal(size=(5, 4)))
    results = []
    for net in (imperative, hybrid):
        with autograd.record():
            out = net(x)
        out.backward()
        results.append((out.asnumpy(), {k[2:]: p.grad().asnumpy() for k, p in
                                        net.collect_params().items() if p.grad_req != 'null'},
                        net[1].running_mean.data().asnumpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6, atol=1e-6)
    for name in results[0][1]:
        np.testing.assert_allclose(results[0][1][name], results[1][1][name], rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-6)
    assert hybrid._cached_op is not None


def test_hybrid_forward_on_symbols_and_infer_shape():
    net = nn.Dense(3, activation='relu', prefix='d_')
    sym = net(mx.sym.var('data'))
    assert sym.list_arguments() == ['data', 'd_weight', 'd_bias']
    net.infer_shape(mx.nd.zeros((2, 7)))
    assert net.weight.shape == (3, 7)
    with pytest.raises(ValueError, match='mixed NDArrays and Symbols'):
        net(mx.nd.zeros((2, 7)), mx.sym.var('x'))


@pytest.mark.filterwarnings('ignore:Cannot decide type')
def test_export_and_import_round_trip(tmp_path):
    net = nn.HybridSequential(prefix='e_')
    with net.name_scope():
        net.add(nn.Dense(4, activation='relu'))
        net.add(nn.Dense(2))
    net.initialize()
    x = mx.nd.array(np.random.RandomState(4).normal(size=(3, 5)))
    with pytest.raises(RuntimeError, match='Please first call block.hybridize'):
        net.export(str(tmp_path / 'net'))
    net.hybridize()
    expected = net(x).asnumpy()
    prefix = str(tmp_path / 'net')
    net.export(prefix, epoch=3)
    assert sorted(mx.nd.load(prefix + '-0003.params')) == [
        'arg:e_dense0_bias', 'arg:e_dense0_weight', 'arg:e_dense1_bias', 'arg:e_dense1_weight']
    back = gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0003.params')
    np.testing.assert_allclose(back(x).asnumpy(), expected, rtol=1e-6)
    # the exported files are a Module checkpoint
    sym, args, _ = mx.model.load_checkpoint(prefix, 3)
    exe = sym.simple_bind(mx.cpu(), data=(3, 5), grad_req='null')
    exe.copy_params_from(args)
    np.testing.assert_allclose(exe.forward(data=x)[0].asnumpy(), expected, rtol=1e-6)


def test_save_load_parameters(tmp_path):
    net = Model(prefix='s_')
    net.initialize()
    net(mx.nd.ones((1, 3)))
    fname = str(tmp_path / 'm.params')
    net.save_parameters(fname)
    assert sorted(mx.nd.load(fname)) == ['dense0.bias', 'dense0.weight', 'dense1.bias',
                                         'dense1.weight']
    other = Model(prefix='other_')
    other.load_parameters(fname, ctx=mx.cpu())
    np.testing.assert_array_equal(other.dense1.weight.data().asnumpy(),
                                  net.dense1.weight.data().asnumpy())
    mx.nd.save(fname, {'dense0.weight': mx.nd.zeros((5, 3))})
    with pytest.raises(AssertionError, match="Parameter 'dense0.bias' is missing in file"):
        other.load_parameters(fname)
    mx.nd.save(fname, {**{k: v for k, v in mx.nd.load(fname).items()},
                       'extra.weight': mx.nd.zeros((1,))})
    with pytest.raises(ValueError, match="Parameter 'extra.weight' loaded from file"):
        other.load_parameters(fname, allow_missing=True)


def test_load_parameters_mxnet_files():
    """MXNet-written save_parameters (dotted names) and legacy full-name files."""
    for fname in ('saved_dotted.params', 'saved_strip.params'):
        net = nn.HybridSequential(prefix='model_')
        with net.name_scope():
            net.add(nn.Dense(4, in_units=3))
            net.add(nn.Dense(2, in_units=4, use_bias=False))
        net.load_parameters(os.path.join(DATA, 'gluon', fname))
        for name, param in net.collect_params().items():
            np.testing.assert_array_equal(param.data().asnumpy(), REF['params/%s' % name])


def test_cast_block():
    net = Model()
    net.initialize()
    net(mx.nd.ones((1, 3)))
    net.cast('float64')
    assert net.dense0.weight.data().dtype == np.float64
    out = net(mx.nd.ones((1, 3), dtype='float64'))
    assert out.dtype == np.float64


def test_hybridize_with_hooks_warns():
    net = nn.Dense(2)
    net.register_forward_hook(lambda *a: None)
    with pytest.warns(UserWarning, match='is being hybridized while still having forward hook'):
        net.hybridize()
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        nn.Dense(2).hybridize()
