"""Whole models exported and run in ONNX Runtime against symmod's Module.predict."""
import logging
import os
import pathlib
import sys

import numpy as np
import onnx
import pytest

import symmod as mx
from onnx_check import NEWEST, check_export, export, session

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP_REF = ROOT / 'tests' / 'data' / 'mxnet-reference' / 'mlp'
sys.path.insert(0, str(ROOT / 'examples' / 'mnist'))
import symbols  # noqa: E402  (examples/mnist/symbols.py)
from train_mnist import read_data  # noqa: E402


def mnist_digits(count=32):
    _, images = read_data(str(ROOT / 'examples' / 'mnist' / 'data'), 't10k-labels-idx1-ubyte',
                          't10k-images-idx3-ubyte')
    return images[:count]


def predict(sym, arg_params, aux_params, data, data_name='data', label_names=('softmax_label',)):
    mod = mx.mod.Module(sym, data_names=[data_name], label_names=list(label_names),
                        context=mx.cpu())
    mod.bind(data_shapes=[(data_name, data.shape)], for_training=False)
    mod.set_params(arg_params, aux_params)
    return mod.predict(mx.io.NDArrayIter(data, batch_size=data.shape[0])).asnumpy()


def trained(sym, data_shape, seed=0):
    """Parameters after a few SGD steps on the bundled digits (quick, deterministic)."""
    mx.random.seed(seed)
    labels, images = read_data(str(ROOT / 'examples' / 'mnist' / 'data'),
                               'train-labels-idx1-ubyte', 'train-images-idx3-ubyte')
    train = mx.io.NDArrayIter(images[:256], labels[:256], batch_size=64)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.fit(train, num_epoch=1, optimizer='sgd', initializer=mx.init.Xavier(),
            optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    return mod.get_params()


def run_onnx(path, feed):
    return session(str(path)).run(None, feed)


@pytest.mark.parametrize('network', ['mlp', 'lenet'])
def test_mnist_example_networks(network, tmp_path):
    sym = symbols.NETWORKS[network]()
    arg_params, aux_params = trained(sym, (64, 1, 28, 28))
    digits = mnist_digits(32)
    expected = predict(sym, arg_params, aux_params, digits)
    path = export(sym, [arg_params, aux_params], [(1, 1, 28, 28)],
                                onnx_file_path=str(tmp_path / 'net.onnx'), dynamic=True,
                                dynamic_input_shapes=[('batch', 1, 28, 28)])
    assert path == str(tmp_path / 'net.onnx')
    onnx.checker.check_model(path, full_check=True)
    for batch in (1, 32):
        got, = run_onnx(path, {'data': digits[:batch]})
        np.testing.assert_allclose(got, expected[:batch], rtol=1e-4, atol=1e-6)
    # the exported model classifies the digits as symmod does
    np.testing.assert_array_equal(got.argmax(1), expected.argmax(1))


def test_mxnet_mlp_checkpoint_equals_its_expected_output(tmp_path):
    """MXNet 1.9.1's own checkpoint: files -> ONNX -> ONNX Runtime == MXNet's predict."""
    path = export(str(MLP_REF / 'mlp-symbol.json'),
                                str(MLP_REF / 'mlp-0003.params'), [(20, 784)],
                                onnx_file_path=str(tmp_path / 'mlp.onnx'))
    data = np.load(MLP_REF / 'input.npy')
    expected = np.load(MLP_REF / 'expected_output.npy')
    got, = run_onnx(path, {'data': data})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # the same through sym.load + nd.load, at opset 12
    sym = mx.sym.load(str(MLP_REF / 'mlp-symbol.json'))
    params = mx.nd.load(str(MLP_REF / 'mlp-0003.params'))
    path = export(sym, params, [(20, 784)], opset_version=12,
                                onnx_file_path=str(tmp_path / 'mlp12.onnx'))
    got, = run_onnx(path, {'data': data})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def residual_net(num_classes=10):
    """conv-BN-ReLU stem, two residual blocks (the second downsamples), pooling, dense."""
    def conv_bn(x, channels, stride, name, relu=True):
        x = mx.sym.Convolution(x, kernel=(3, 3), stride=(stride, stride), pad=(1, 1),
                               num_filter=channels, no_bias=True, name=name + '_conv')
        x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, name=name + '_bn')
        return mx.sym.Activation(x, act_type='relu', name=name + '_relu') if relu else x

    def block(x, channels, stride, name):
        y = conv_bn(x, channels, stride, name + '_a')
        y = conv_bn(y, channels, 1, name + '_b', relu=False)
        if stride != 1:
            x = conv_bn(x, channels, stride, name + '_proj', relu=False)
        return mx.sym.Activation(y + x, act_type='relu', name=name + '_out')

    x = conv_bn(mx.sym.var('data'), 8, 1, 'stem')
    x = block(x, 8, 1, 'res1')
    x = block(x, 16, 2, 'res2')
    x = mx.sym.Pooling(x, global_pool=True, pool_type='avg', kernel=(1, 1), name='gap')
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=num_classes, name='fc')
    return mx.sym.SoftmaxOutput(x, name='softmax')


def residual_params(sym, shape, seed=0):
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[('data', shape)], for_training=False)
    mx.random.seed(seed)
    mod.init_params(mx.init.Xavier())
    arg_params, aux_params = mod.get_params()
    rng = np.random.RandomState(seed)
    for name, value in aux_params.items():      # trained-looking moving statistics
        low, high = (0.5, 2.0) if name.endswith('var') else (-0.3, 0.3)
        aux_params[name] = mx.nd.array(rng.uniform(low, high, value.shape))
    for name, value in arg_params.items():
        if name.endswith(('gamma', 'beta')):
            arg_params[name] = mx.nd.array(rng.uniform(0.5, 1.5, value.shape))
    return arg_params, aux_params


def test_residual_net_in_inference_mode(tmp_path):
    sym = residual_net()
    arg_params, aux_params = residual_params(sym, (4, 1, 28, 28))
    digits = mnist_digits(8)
    expected = predict(sym, arg_params, aux_params, digits)
    path = export(sym, [arg_params, aux_params], [(8, 1, 28, 28)],
                                onnx_file_path=str(tmp_path / 'res.onnx'), dynamic=True)
    got, = run_onnx(path, {'data': digits})
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    # every dimension was declared dynamic: the spatial size may change too
    small = np.ascontiguousarray(digits[:3, :, 2:22, 4:24])
    got, = run_onnx(path, {'data': small})
    np.testing.assert_allclose(got, predict(sym, arg_params, aux_params, small),
                               rtol=1e-4, atol=1e-6)


def test_hybrid_block_export(tmp_path):
    from symmod.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=3, padding=1, activation='relu'), nn.BatchNorm(),
            nn.MaxPool2D(), nn.Flatten(), nn.Dense(16, activation='tanh'), nn.Dropout(0.5),
            nn.Dense(10))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    digits = mnist_digits(5)
    expected = net(mx.nd.array(digits)).asnumpy()
    prefix = str(tmp_path / 'gluon')
    net.export(prefix)
    path = export(prefix + '-symbol.json', prefix + '-0000.params',
                                [(1, 1, 28, 28)], onnx_file_path=str(tmp_path / 'g.onnx'),
                                dynamic=True, dynamic_input_shapes=[(None, 1, 28, 28)])
    feed = session(path).get_inputs()[0].name
    got, = run_onnx(path, {feed: digits})
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def lstm_language_model(seq_len, vocab=50, hidden=16, embed=12, layers=2):
    """The symbol of examples/rnn/lstm_bucketing.py's sym_gen for one bucket."""
    stack = mx.rnn.SequentialRNNCell()
    for i in range(layers):
        stack.add(mx.rnn.LSTMCell(num_hidden=hidden, prefix='lstm_l%d_' % i))
    data = mx.sym.Variable('data')
    label = mx.sym.Variable('softmax_label')
    emb = mx.sym.Embedding(data=data, input_dim=vocab, output_dim=embed, name='embed')
    stack.reset()
    outputs = stack.unroll(seq_len, inputs=emb, merge_outputs=True)[0]
    pred = mx.sym.Reshape(outputs, shape=(-1, hidden))
    pred = mx.sym.FullyConnected(data=pred, num_hidden=vocab, name='pred')
    label = mx.sym.Reshape(label, shape=(-1,))
    return mx.sym.SoftmaxOutput(data=pred, label=label, name='softmax')


def test_bucketing_lstm_at_one_bucket(tmp_path, caplog):
    seq_len, batch = 10, 4
    sym = lstm_language_model(seq_len)
    mod = mx.mod.BucketingModule(lambda key: (lstm_language_model(key), ('data',),
                                              ('softmax_label',)),
                                 default_bucket_key=seq_len, context=mx.cpu())
    mod.bind(data_shapes=[('data', (batch, seq_len))],
             label_shapes=[('softmax_label', (batch, seq_len))], for_training=False)
    mx.random.seed(3)
    mod.init_params(mx.init.Xavier(factor_type='in', magnitude=2.34))
    arg_params, aux_params = mod.get_params()
    tokens = np.random.RandomState(0).randint(0, 50, (batch, seq_len)).astype(np.float32)
    batch_data = mx.io.DataBatch([mx.nd.array(tokens)], bucket_key=seq_len,
                                 provide_data=[mx.io.DataDesc('data', tokens.shape)])
    mod.forward(batch_data, is_train=False)
    expected = mod.get_outputs()[0].asnumpy()
    with caplog.at_level(logging.WARNING, logger='symmod.onnx'):
        path = export(sym, [arg_params, aux_params], [(batch, seq_len)],
                                    onnx_file_path=str(tmp_path / 'lm.onnx'), dynamic=True)
    # the unrolled graph cannot vary in length: that dimension stays fixed, with a warning
    assert 'dimension 1 of input data stays fixed at 10' in caplog.text
    inputs = session(path).get_inputs()
    assert inputs[0].shape[1] == seq_len and not isinstance(inputs[0].shape[0], int)
    got, = run_onnx(path, {'data': tokens})
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    got, = run_onnx(path, {'data': tokens[:1]})
    np.testing.assert_allclose(got, expected[:seq_len], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize('mode,bidirectional', [('lstm', False), ('gru', True)])
def test_fused_rnn_cell_model(mode, bidirectional, tmp_path):
    seq_len, batch, hidden = 6, 3, 8
    cell = mx.rnn.FusedRNNCell(hidden, num_layers=2, mode=mode, bidirectional=bidirectional,
                               prefix='fused_')
    data = mx.sym.var('data')
    emb = mx.sym.Embedding(data, input_dim=30, output_dim=5, name='embed')
    outputs, _ = cell.unroll(seq_len, inputs=emb, layout='NTC', merge_outputs=True)
    pred = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-3, -2)), num_hidden=30,
                                 name='pred')
    sym = mx.sym.SoftmaxOutput(pred, name='softmax')
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[('data', (batch, seq_len))], for_training=False)
    mx.random.seed(1)
    mod.init_params(mx.init.Xavier())
    arg_params, aux_params = mod.get_params()
    tokens = np.random.RandomState(1).randint(0, 30, (batch, seq_len)).astype(np.float32)
    expected = mod.predict(mx.io.NDArrayIter(tokens, batch_size=batch)).asnumpy()
    path = export(sym, [arg_params, aux_params], [(batch, seq_len)],
                                onnx_file_path=str(tmp_path / 'fused.onnx'), dynamic=True,
                                dynamic_input_shapes=[('batch', 'time')])
    got, = run_onnx(path, {'data': tokens})
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)
    # the fused operator runs any length: batch and time both vary
    longer = np.random.RandomState(2).randint(0, 30, (2, 9)).astype(np.float32)
    mod.reshape(data_shapes=[('data', longer.shape)])
    want = mod.predict(mx.io.NDArrayIter(longer, batch_size=2)).asnumpy()
    got, = run_onnx(path, {'data': longer})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_every_opset_gives_the_same_model_outputs():
    sym = residual_net()
    arg_params, aux_params = residual_params(sym, (2, 1, 12, 12))
    params = {k: v.asnumpy() for k, v in list(arg_params.items()) + list(aux_params.items())}
    data = np.random.RandomState(5).rand(2, 1, 12, 12).astype(np.float32)
    worst = check_export(sym, {'data': data}, params=params, opsets=sorted({12, 13, 17, NEWEST}))
    assert worst < 1e-5
