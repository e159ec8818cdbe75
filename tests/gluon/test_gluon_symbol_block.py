"""SymbolBlock: the MXNet-written mlp checkpoint as a gluon block, inference and training."""
import os

import numpy as np
import pytest

import symmod as mx
from symmod import autograd, gluon

DATA = os.path.join(os.path.dirname(__file__), '..', 'data')
MLP = os.path.join(DATA, 'mxnet-reference', 'mlp')
REF = np.load(os.path.join(DATA, 'gluon_reference.npz'))
SYMBOL, PARAMS = os.path.join(MLP, 'mlp-symbol.json'), os.path.join(MLP, 'mlp-0003.params')

pytestmark = pytest.mark.filterwarnings('ignore:Cannot decide type')


def test_imports_mlp_gives_mxnet_expected_output():
    net = gluon.SymbolBlock.imports(SYMBOL, ['data', 'softmax_label'], PARAMS)
    assert sorted(net.collect_params().keys()) == ['fc1_bias', 'fc1_weight', 'fc2_bias',
                                                   'fc2_weight', 'fc3_bias', 'fc3_weight']
    x = mx.nd.array(np.load(os.path.join(MLP, 'input.npy')))
    out = net(x, mx.nd.zeros((20,)))
    np.testing.assert_allclose(out.asnumpy(), np.load(os.path.join(MLP, 'expected_output.npy')),
                               rtol=1e-5, atol=1e-6)
    net.hybridize()      # a SymbolBlock always runs its graph
    np.testing.assert_allclose(net(x, mx.nd.zeros((20,))).asnumpy(), out.asnumpy())


def test_imports_without_label_input_reports_missing_parameter():
    with pytest.raises(AssertionError, match="Parameter 'softmax_label' is missing in file"):
        gluon.SymbolBlock.imports(SYMBOL, ['data'], PARAMS)


def test_internal_output_as_feature_extractor():
    sym = mx.sym.load(SYMBOL)
    fc3 = sym.get_internals()['fc3_output']
    net = gluon.SymbolBlock(fc3, mx.sym.var('data'))
    net.collect_params().load(PARAMS, ignore_extra=True)
    x = np.load(os.path.join(MLP, 'input.npy'))
    logits = net(mx.nd.array(x)).asnumpy()
    probs = np.exp(logits - logits.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    np.testing.assert_allclose(probs, np.load(os.path.join(MLP, 'expected_output.npy')),
                               rtol=1e-4, atol=1e-6)
    assert sorted(net._reg_params) == ['1_bias', '1_weight', '2_bias', '2_weight', '3_bias',
                                       '3_weight']


def test_symbol_block_on_symbols_composes():
    data = mx.sym.var('data')
    fc = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
    net = gluon.SymbolBlock(fc, data)
    out = net(mx.sym.var('x'))
    assert out.list_arguments() == ['x', 'fc_weight', 'fc_bias']


def test_deferred_initialization_from_input_shape():
    data = mx.sym.var('data')
    out = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=3, name='fc'),
                            act_type='relu')
    net = gluon.SymbolBlock(out, data)
    net.initialize()
    y = net(mx.nd.ones((2, 5)))
    assert y.shape == (2, 3)
    assert net.collect_params()['fc_weight'].shape == (3, 5)


@pytest.mark.parametrize('tag,ctxs,uok', [('uok1', 2, True), ('uok0', 2, False),
                                          ('single', 1, None)])
def test_train_mlp_checkpoint_with_trainer_matches_mxnet(tag, ctxs, uok):
    """Two Trainer steps (SGD momentum, wd) on the MXNet checkpoint, as MXNet did them."""
    ctxs = [mx.cpu(i) for i in range(ctxs)]
    net = gluon.SymbolBlock.imports(SYMBOL, ['data', 'softmax_label'], PARAMS, ctx=ctxs)
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4},
                            update_on_kvstore=uok)
    xs = gluon.utils.split_and_load(mx.nd.array(REF['mlp/x']), ctxs)
    ys = gluon.utils.split_and_load(mx.nd.array(REF['mlp/y']), ctxs)
    for _ in range(2):
        with autograd.record():
            outs = [net(a, b) for a, b in zip(xs, ys)]
        autograd.backward(outs)
        trainer.step(20)
    assert trainer._update_on_kvstore == uok
    for name, param in net.collect_params().items():
        first = param.data(ctxs[0]).asnumpy()
        for ctx in ctxs[1:]:
            np.testing.assert_array_equal(param.data(ctx).asnumpy(), first)
        expected = REF['mlp/%s/%s' % (tag, name)]
        np.testing.assert_allclose(first[:len(expected)], expected, rtol=1e-5, atol=1e-7,
                                   err_msg=name)


def test_trainer_step_equals_executor_gradients_and_update():
    """Module-style update on the same gradients: executor backward + Updater."""
    x, y = REF['mlp/x'], REF['mlp/y']
    net = gluon.SymbolBlock.imports(SYMBOL, ['data', 'softmax_label'], PARAMS)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1,
                                                          'momentum': 0.9})
    with autograd.record():
        out = net(mx.nd.array(x), mx.nd.array(y))
    out.backward()
    trainer.step(20)

    sym, args, _ = mx.model.load_checkpoint(os.path.join(MLP, 'mlp'), 3)
    exe = sym.simple_bind(mx.cpu(), data=(20, 784), softmax_label=(20,))
    exe.copy_params_from(args)
    exe.forward(is_train=True, data=mx.nd.array(x), softmax_label=mx.nd.array(y))
    exe.backward()
    names = [n for n in sym.list_arguments() if n not in ('data', 'softmax_label')]
    opt = mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9, rescale_grad=1 / 20)
    updater = mx.optimizer.get_updater(opt)
    updater(list(range(len(names))), [exe.grad_dict[n] for n in names],
            [exe.arg_dict[n] for n in names])
    for name in names:
        np.testing.assert_allclose(net.collect_params()[name].data().asnumpy(),
                                   exe.arg_dict[name].asnumpy(), rtol=1e-6, atol=1e-7,
                                   err_msg=name)


@pytest.mark.parametrize('nctx', [1, 2])
def test_trainer_steps_equal_module_updates(nctx):
    """Trainer and Module.fit's update path give the same weights on the same batches."""
    ctxs = [mx.cpu(i) for i in range(nctx)]
    x, y = mx.nd.array(REF['mlp/x']), mx.nd.array(REF['mlp/y'])
    net = gluon.SymbolBlock.imports(SYMBOL, ['data', 'softmax_label'], PARAMS, ctx=ctxs)
    # Module's optimizer exempts parameters not named *_weight / *_gamma from weight
    # decay; gluon decays every Parameter unless its wd_mult says otherwise (as MXNet)
    net.collect_params('.*bias').setattr('wd_mult', 0.0)
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4})
    xs, ys = gluon.utils.split_and_load(x, ctxs), gluon.utils.split_and_load(y, ctxs)

    sym, args, auxs = mx.model.load_checkpoint(os.path.join(MLP, 'mlp'), 3)
    mod = mx.mod.Module(sym, context=ctxs)
    mod.bind(data_shapes=[('data', (20, 784))], label_shapes=[('softmax_label', (20,))])
    mod.set_params(args, auxs)
    mod.init_optimizer(kvstore='device', optimizer='sgd',
                       optimizer_params={'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4})
    batch = mx.io.DataBatch([x], [y])
    for _ in range(3):
        with autograd.record():
            outs = [net(a, b) for a, b in zip(xs, ys)]
        autograd.backward(outs)
        trainer.step(20)
        mod.forward_backward(batch)
        mod.update()
    module_args, _ = mod.get_params()
    for name, param in net.collect_params().items():
        np.testing.assert_allclose(param.data(ctxs[-1]).asnumpy(),
                                   module_args[name].asnumpy(), rtol=1e-5, atol=1e-7,
                                   err_msg=name)
