"""mx.contrib.onnx: import_model / get_model_metadata / import_to_gluon.

Round trips (symmod -> ONNX -> symmod gives the same outputs) for every exported
operator and for whole models, and foreign models written with the onnx helper API
(Gemm, Conv + BatchNormalization, LSTM) that must predict like ONNX Runtime.
"""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import symmod as mx
from symmod.base import MXNetError
from symmod.onnx.export.model import to_onnx_model
from onnx_check import NEWEST, export, random_params, session, symmod_forward
from onnx_export_cases import CASES
from test_onnx_models import MLP_REF, residual_net, residual_params


def imported_forward(model, inputs):
    sym, arg_params, aux_params = mx.contrib.onnx.import_model(model)
    params = {k: v.asnumpy() for k, v in list(arg_params.items()) + list(aux_params.items())}
    used = set(sym.list_inputs())
    return symmod_forward(sym, {k: v for k, v in inputs.items() if k in used}, params)




@pytest.mark.parametrize('index', range(len(CASES)), ids=[c[0] for c in CASES])
def test_round_trip_of_every_exported_operator(index):
    name, sym, inputs, options = CASES[index]
    params = random_params(sym, {k: v.shape for k, v in inputs.items()},
                           {k: v.dtype for k, v in inputs.items()})
    names = [n for n in sym.list_inputs() if n in inputs]
    opsets = options.get('opsets', [12, NEWEST])
    opset = opsets[0] if index % 3 == 0 else opsets[-1]    # both ends of the opset range
    model = to_onnx_model(sym, params, [inputs[n].shape for n in names],
                          [inputs[n].dtype for n in names], opset_version=opset)
    expected = symmod_forward(sym, inputs, params)
    got = imported_forward(model, inputs)
    assert len(got) == len(expected)
    for e, o in zip(expected, got):
        if e.shape == () and o.shape == (1,):
            o = o.reshape(())   # a full reduction in MXNet's symbols gives (1,), never 0-d
        assert o.shape == e.shape
        np.testing.assert_allclose(o.astype(np.float64), e.astype(np.float64),
                                   rtol=options.get('rtol', 1e-4), atol=options.get('atol', 1e-5))


def test_round_trip_of_mxnet_mlp_checkpoint(tmp_path):
    path = export(str(MLP_REF / 'mlp-symbol.json'),
                                str(MLP_REF / 'mlp-0003.params'), [(20, 784)],
                                onnx_file_path=str(tmp_path / 'mlp.onnx'), dynamic=True,
                                dynamic_input_shapes=[('batch', 784)])
    sym, arg_params, aux_params = mx.contrib.onnx.import_model(path)
    assert sorted(arg_params) == ['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight',
                                  'fc3_bias', 'fc3_weight']
    assert sym.list_inputs()[0] == 'data'
    mod = mx.mod.Module(sym, data_names=['data'], label_names=None, context=mx.cpu())
    data = np.load(MLP_REF / 'input.npy')
    mod.bind(data_shapes=[('data', data.shape)], for_training=False)
    mod.set_params(arg_params, aux_params)
    got = mod.predict(mx.io.NDArrayIter(data, batch_size=20)).asnumpy()
    np.testing.assert_allclose(got, np.load(MLP_REF / 'expected_output.npy'), rtol=1e-5,
                               atol=1e-6)
    meta = mx.contrib.onnx.get_model_metadata(path)
    assert meta == {'input_tensor_data': [('data', (0, 784), TensorProto.FLOAT)],
                    'output_tensor_data': [('softmax', (0, 10))]}


def test_round_trip_of_residual_net_keeps_moving_statistics_as_aux(tmp_path):
    sym = residual_net()
    arg_params, aux_params = residual_params(sym, (2, 1, 12, 12))
    path = export(sym, [arg_params, aux_params], [(2, 1, 12, 12)],
                                onnx_file_path=str(tmp_path / 'res.onnx'))
    sym2, args2, auxs2 = mx.contrib.onnx.import_model(path)
    assert sorted(auxs2) == sorted(aux_params)
    for name, value in aux_params.items():
        np.testing.assert_array_equal(auxs2[name].asnumpy(), value.asnumpy())
    data = np.random.RandomState(0).rand(2, 1, 12, 12).astype(np.float32)
    params = {k: v.asnumpy() for k, v in list(arg_params.items()) + list(aux_params.items())}
    expected = symmod_forward(sym, {'data': data}, params)[0]
    got = imported_forward(path, {'data': data})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_import_to_gluon(tmp_path):
    sym = residual_net()
    arg_params, aux_params = residual_params(sym, (2, 1, 12, 12))
    path = export(sym, [arg_params, aux_params], [(2, 1, 12, 12)],
                                onnx_file_path=str(tmp_path / 'res.onnx'))
    net = mx.contrib.onnx.import_to_gluon(path, mx.cpu())
    assert isinstance(net, mx.gluon.SymbolBlock)
    data = np.random.RandomState(1).rand(2, 1, 12, 12).astype(np.float32)
    expected = session(path).run(None, {'data': data})[0]
    np.testing.assert_allclose(net(mx.nd.array(data)).asnumpy(), expected, rtol=1e-4,
                               atol=1e-6)


# ---- models written by other tools (the onnx helper API) --------------------------------
def _model(nodes, inputs, outputs, initializers, opset=13):
    graph = helper.make_graph(nodes, 'foreign', inputs, outputs,
                              [numpy_helper.from_array(v, k) for k, v in initializers.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)],
                              producer_name='onnx-helper')
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    return model


def _value(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def _compare_with_runtime(model, feed, rtol=1e-4, atol=1e-5):
    expected = session(model).run(None, feed)
    got = imported_forward(model, feed)
    assert len(got) == len(expected)
    for e, o in zip(expected, got):
        assert o.shape == e.shape, (o.shape, e.shape)
        np.testing.assert_allclose(o, e, rtol=rtol, atol=atol)


def test_foreign_gemm_model():
    rng = np.random.RandomState(0)
    init = {'W1': rng.randn(6, 4).astype(np.float32), 'b1': rng.randn(6).astype(np.float32),
            'W2': rng.randn(6, 3).astype(np.float32), 'b2': rng.randn(1, 3).astype(np.float32)}
    nodes = [helper.make_node('Gemm', ['x', 'W1', 'b1'], ['h'], transB=1),
             helper.make_node('Relu', ['h'], ['r']),
             helper.make_node('Gemm', ['r', 'W2', 'b2'], ['z'], alpha=0.5, beta=2.0),
             helper.make_node('Softmax', ['z'], ['y'], axis=1)]
    model = _model(nodes, [_value('x', ['N', 4])], [_value('y', ['N', 3])], init)
    _compare_with_runtime(model, {'x': rng.randn(5, 4).astype(np.float32)})


def test_foreign_conv_batchnorm_model():
    rng = np.random.RandomState(1)
    init = {'W': rng.randn(4, 2, 3, 3).astype(np.float32) * 0.3,
            'B': rng.randn(4).astype(np.float32),
            'scale': rng.uniform(0.5, 1.5, 4).astype(np.float32),
            'bias': rng.randn(4).astype(np.float32),
            'mean': rng.randn(4).astype(np.float32) * 0.1,
            'var': rng.uniform(0.5, 2.0, 4).astype(np.float32),
            'shape': np.array([0, -1], np.int64)}
    nodes = [helper.make_node('Conv', ['x', 'W', 'B'], ['c'], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], strides=[1, 1]),
             helper.make_node('BatchNormalization', ['c', 'scale', 'bias', 'mean', 'var'],
                              ['bn'], epsilon=1e-3),
             helper.make_node('Relu', ['bn'], ['r']),
             helper.make_node('MaxPool', ['r'], ['p'], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node('Reshape', ['p', 'shape'], ['y'])]
    model = _model(nodes, [_value('x', [2, 2, 6, 6])], [_value('y', [2, 36])], init)
    _compare_with_runtime(model, {'x': rng.randn(2, 2, 6, 6).astype(np.float32)})
    sym, arg_params, aux_params = mx.contrib.onnx.import_model(model)
    assert sorted(aux_params) == ['mean', 'var']


@pytest.mark.parametrize('direction', ['forward', 'bidirectional'])
def test_foreign_lstm_model(direction):
    rng = np.random.RandomState(2)
    T, N, I, H = 5, 3, 4, 6
    dirs = 2 if direction == 'bidirectional' else 1
    init = {'W': rng.randn(dirs, 4 * H, I).astype(np.float32) * 0.4,
            'R': rng.randn(dirs, 4 * H, H).astype(np.float32) * 0.4,
            'B': rng.randn(dirs, 8 * H).astype(np.float32) * 0.2}
    nodes = [helper.make_node('LSTM', ['x', 'W', 'R', 'B', '', 'h0', 'c0'], ['y', 'yh', 'yc'],
                              hidden_size=H, direction=direction)]
    model = _model(nodes, [_value('x', [T, N, I]), _value('h0', [dirs, N, H]),
                           _value('c0', [dirs, N, H])],
                   [_value('y', [T, dirs, N, H]), _value('yh', [dirs, N, H]),
                    _value('yc', [dirs, N, H])], init)
    feed = {'x': rng.randn(T, N, I).astype(np.float32),
            'h0': rng.randn(dirs, N, H).astype(np.float32) * 0.5,
            'c0': rng.randn(dirs, N, H).astype(np.float32) * 0.5}
    _compare_with_runtime(model, feed)


def test_foreign_gru_without_initial_state():
    rng = np.random.RandomState(3)
    T, N, I, H = 4, 2, 3, 5
    init = {'W': rng.randn(1, 3 * H, I).astype(np.float32) * 0.4,
            'R': rng.randn(1, 3 * H, H).astype(np.float32) * 0.4}
    nodes = [helper.make_node('GRU', ['x', 'W', 'R'], ['y'], hidden_size=H,
                              linear_before_reset=1)]
    model = _model(nodes, [_value('x', [T, N, I])], [_value('y', [T, 1, N, H])], init)
    _compare_with_runtime(model, {'x': rng.randn(T, N, I).astype(np.float32)})


def test_unsupported_operators_are_listed_at_once():
    nodes = [helper.make_node('Relu', ['x'], ['a']),
             helper.make_node('Einsum', ['a', 'a'], ['b'], equation='ij,ij->ij'),
             helper.make_node('NonZero', ['b'], ['c']),
             helper.make_node('Einsum', ['a', 'a'], ['d'], equation='ij,ij->ij')]
    model = _model(nodes, [_value('x', [2, 2])], [_value('c', [2, None], TensorProto.INT64),
                                                   _value('d', [2, 2])], {})
    with pytest.raises(MXNetError, match=r'2 operator type\(s\).*Einsum \(b, d\), NonZero \(c\)'):
        mx.contrib.onnx.import_model(model)


def test_unsupported_attribute_names_the_node():
    nodes = [helper.make_node('GRU', ['x', 'W', 'R'], ['y'], hidden_size=2, name='my_gru')]
    init = {'W': np.zeros((1, 6, 3), np.float32), 'R': np.zeros((1, 6, 2), np.float32)}
    model = _model(nodes, [_value('x', [2, 1, 3])], [_value('y', [2, 1, 1, 2])], init)
    with pytest.raises(MXNetError, match=r"node 'my_gru' \(GRU\): linear_before_reset=0"):
        mx.contrib.onnx.import_model(model)


def test_bad_files(tmp_path):
    with pytest.raises(MXNetError, match='no model file'):
        mx.contrib.onnx.import_model(str(tmp_path / 'missing.onnx'))
    junk = tmp_path / 'junk.onnx'
    junk.write_bytes(b'\xff\x00 this is not protobuf' * 3)
    with pytest.raises(MXNetError, match='is not an ONNX model'):
        mx.contrib.onnx.import_model(str(junk))


@pytest.mark.parametrize('op_type,direction,layout,with_lengths', [
    ('LSTM', 'forward', 1, False), ('GRU', 'bidirectional', 1, False),
    ('LSTM', 'reverse', 0, False), ('LSTM', 'forward', 0, True),
    ('LSTM', 'bidirectional', 1, True), ('GRU', 'reverse', 0, True)])
def test_foreign_recurrent_layouts_directions_lengths(op_type, direction, layout, with_lengths):
    """ONNX Runtime runs no batch-major (layout=1) RNN: the reference for those is the
    time-major model on the transposed data."""
    rng = np.random.RandomState(4)
    T, N, I, H = 5, 3, 4, 6
    gates = 4 if op_type == 'LSTM' else 3
    dirs = 2 if direction == 'bidirectional' else 1
    init = {'W': rng.randn(dirs, gates * H, I).astype(np.float32) * 0.4,
            'R': rng.randn(dirs, gates * H, H).astype(np.float32) * 0.4,
            'B': rng.randn(dirs, 2 * gates * H).astype(np.float32) * 0.2}
    lstm_cell = op_type == 'LSTM' and not with_lengths
    feed = {'x': rng.randn(T, N, I).astype(np.float32),
            'h0': rng.randn(dirs, N, H).astype(np.float32) * 0.5}
    if lstm_cell:
        feed['c0'] = rng.randn(dirs, N, H).astype(np.float32) * 0.5
    if with_lengths:
        feed['lens'] = np.array([5, 2, 3], np.int32)

    def model(batch_first):
        def shaped(name, shape, elem=TensorProto.FLOAT):
            if batch_first and len(shape) == 3:
                shape = [shape[1], shape[0], shape[2]]
            elif batch_first:
                shape = [shape[2], shape[0], shape[1], shape[3]]
            return _value(name, shape, elem)
        names = ['x', 'W', 'R', 'B', 'lens' if with_lengths else '', 'h0']
        inputs = [shaped('x', [T, N, I]), shaped('h0', [dirs, N, H])]
        outputs = [shaped('y', [T, dirs, N, H]), shaped('yh', [dirs, N, H])]
        if with_lengths:
            inputs.append(_value('lens', [N], TensorProto.INT32))
        if lstm_cell:
            names.append('c0')
            inputs.append(shaped('c0', [dirs, N, H]))
            outputs.append(shaped('yc', [dirs, N, H]))
        attrs = {'linear_before_reset': 1} if op_type == 'GRU' else {}
        nodes = [helper.make_node(op_type, names, [o.name for o in outputs], hidden_size=H,
                                  direction=direction, layout=int(batch_first), **attrs)]
        return _model(nodes, inputs, outputs, init, opset=14)

    if not layout:
        _compare_with_runtime(model(False), feed)
        return
    expected = session(model(False)).run(None, feed)
    swapped = {k: (v.swapaxes(0, 1) if v.ndim == 3 else v) for k, v in feed.items()}
    got = imported_forward(model(True), swapped)
    np.testing.assert_allclose(got[0], expected[0].transpose(2, 0, 1, 3), rtol=1e-4, atol=1e-5)
    for e, o in zip(expected[1:], got[1:]):
        np.testing.assert_allclose(o, e.swapaxes(0, 1), rtol=1e-4, atol=1e-5)


def test_lstm_cell_state_with_lengths_is_refused():
    init = {'W': np.zeros((1, 8, 3), np.float32), 'R': np.zeros((1, 8, 2), np.float32)}
    nodes = [helper.make_node('LSTM', ['x', 'W', 'R', '', 'lens'], ['y', 'yh', 'yc'],
                              hidden_size=2, name='seq_lstm')]
    model = _model(nodes, [_value('x', [4, 2, 3]), _value('lens', [2], TensorProto.INT32)],
                   [_value('y', [4, 1, 2, 2]), _value('yh', [1, 2, 2]), _value('yc', [1, 2, 2])],
                   init)
    with pytest.raises(MXNetError, match=r"node 'seq_lstm' \(LSTM\): the Y_c output with "
                                         r"sequence_lens"):
        mx.contrib.onnx.import_model(model)


@pytest.mark.parametrize('axis', [0, 1])
def test_round_trip_of_a_mask_over_a_varying_time_axis(axis):
    """The export's positions are an ONNX Range over the data's shape; the import makes
    them the positions along that axis again, so other lengths still work."""
    sym = mx.sym.SequenceMask(mx.sym.var('data'), mx.sym.var('lengths'),
                              use_sequence_length=True, axis=axis, value=-1.0)
    rng = np.random.RandomState(5)
    shape = (4, 3, 2) if axis == 0 else (3, 4, 2)
    dyn = ('t', 3, 2) if axis == 0 else (3, 't', 2)
    model = to_onnx_model(sym, {}, [shape, (3,)], [np.float32, np.float32], dynamic=True,
                          dynamic_input_shapes=[dyn, (3,)], opset_version=NEWEST)
    assert 'Range' in {n.op_type for n in model.graph.node}
    for steps in (4, 6):
        data_shape = (steps, 3, 2) if axis == 0 else (3, steps, 2)
        feed = {'data': rng.randn(*data_shape).astype(np.float32),
                'lengths': np.array([1, steps, 3], np.float32)}
        _compare_with_runtime(model, feed)
        np.testing.assert_array_equal(imported_forward(model, feed)[0],
                                      symmod_forward(sym, feed, {})[0])
