"""export_model's argument rules, return value, errors, dynamic shapes and get_operator_support."""
import numpy as np
import onnx
import pytest

import symmod as mx
from symmod.base import MXNetError
from onnx_check import NEWEST, NEWEST_ONNX, check_export, export, random_params, session


def small_net():
    data = mx.sym.var('data')
    x = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name='conv')
    x = mx.sym.BatchNorm(x, fix_gamma=False, name='bn')
    x = mx.sym.Activation(x, act_type='relu', name='relu')
    x = mx.sym.FullyConnected(x, num_hidden=3, name='fc')
    return mx.sym.SoftmaxOutput(x, name='softmax')


def split_params(sym, params):
    args = {k: mx.nd.array(v) for k, v in params.items() if k in sym.list_arguments()}
    auxs = {k: mx.nd.array(v) for k, v in params.items() if k in sym.list_auxiliary_states()}
    return args, auxs


@pytest.fixture(scope='module')
def net():
    sym = small_net()
    params = random_params(sym, {'data': (2, 2, 5, 5)})
    data = np.random.RandomState(0).rand(2, 2, 5, 5).astype(np.float32)
    args, auxs = split_params(sym, params)
    exe = sym.simple_bind(mx.cpu(), grad_req='null', data=data.shape)
    exe.copy_params_from(args, auxs)
    expected = exe.forward(is_train=False, data=data)[0].asnumpy()
    return sym, args, auxs, data, expected


def run(path, data):
    return session(str(path)).run(None, {'data': data})[0]


def test_params_in_every_accepted_form(net, tmp_path):
    sym, args, auxs, data, expected = net
    prefixed = {'arg:%s' % k: v for k, v in args.items()}
    prefixed.update({'aux:%s' % k: v for k, v in auxs.items()})
    merged = dict(args)
    merged.update(auxs)
    mx.model.save_checkpoint(str(tmp_path / 'net'), 7, sym, args, auxs)
    forms = [(sym, [args, auxs]), (sym, merged), (sym, prefixed),
             (str(tmp_path / 'net-symbol.json'), str(tmp_path / 'net-0007.params')),
             (sym, str(tmp_path / 'net-0007.params'))]
    for i, (s, p) in enumerate(forms):
        out = str(tmp_path / ('m%d.onnx' % i))
        assert export(s, p, [data.shape], np.float32, out) == out
        np.testing.assert_allclose(run(out, data), expected, rtol=1e-5, atol=1e-6)


def test_old_argument_names_and_default_path(net, tmp_path, monkeypatch):
    sym, args, auxs, data, expected = net
    monkeypatch.chdir(tmp_path)
    path = export(sym, [args, auxs], input_shape=[data.shape],
                                input_type=np.float32)
    assert path == 'model.onnx'
    np.testing.assert_allclose(run(tmp_path / 'model.onnx', data), expected, rtol=1e-5,
                               atol=1e-6)


def test_model_passes_full_check_and_names_follow_mxnet(net, tmp_path):
    sym, args, auxs, data, _ = net
    path = export(sym, [args, auxs], [data.shape],
                                onnx_file_path=str(tmp_path / 'm.onnx'),
                                run_shape_inference=True, opset_version=13)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    assert [o.version for o in model.opset_import] == [13]
    assert [i.name for i in model.graph.input] == ['data']      # no label, no weights
    assert [o.name for o in model.graph.output] == ['softmax']
    assert {'conv_weight', 'bn_moving_mean', 'fc_bias'} <= {t.name for t in
                                                            model.graph.initializer}
    assert len(model.graph.value_info) > 0      # run_shape_inference stored the shapes


def test_argument_errors(net, tmp_path):
    sym, args, auxs, data, _ = net
    out = str(tmp_path / 'x.onnx')
    with pytest.raises(MXNetError, match=r"2 input shapes given, but the model has 1 inputs "
                                         r"\['data'\]"):
        export(sym, [args, auxs], [data.shape, (1,)], onnx_file_path=out)
    with pytest.raises(ValueError, match='in_shapes is required'):
        export(sym, [args, auxs], onnx_file_path=out)
    with pytest.raises(ValueError, match='dynamic_input_shapes is specified'):
        export(sym, [args, auxs], [data.shape], onnx_file_path=out,
                             dynamic_input_shapes=[(None, 2, 5, 5)])
    with pytest.raises(ValueError, match='The dimensionality of each shape must match'):
        export(sym, [args, auxs], [data.shape], onnx_file_path=out,
                             dynamic=True, dynamic_input_shapes=[(None, 2)])
    with pytest.raises(ValueError,
                       match='opset_version must be between 12 and %d' % NEWEST_ONNX):
        export(sym, [args, auxs], [data.shape], onnx_file_path=out,
                             opset_version=11)
    with pytest.raises(ValueError, match='Symbol and params files provided are invalid'):
        export(str(tmp_path / 'missing-symbol.json'), [args, auxs],
                             [data.shape], onnx_file_path=out)
    with pytest.raises(ValueError, match='should either be files or objects'):
        export(sym, 42, [data.shape], onnx_file_path=out)
    assert not list(tmp_path.iterdir())     # nothing (half-)written on failure


def test_missing_parameter_becomes_an_input_needing_a_shape(net, tmp_path):
    sym, args, auxs, data, expected = net
    partial = {k: v for k, v in args.items() if k != 'fc_bias'}
    path = export(sym, [partial, auxs], [data.shape, (3,)],
                                onnx_file_path=str(tmp_path / 'm.onnx'))
    sess = session(path)
    assert [i.name for i in sess.get_inputs()] == ['data', 'fc_bias']
    got = sess.run(None, {'data': data, 'fc_bias': args['fc_bias'].asnumpy()})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_unexportable_operator_names_node_and_operator(tmp_path):
    sym = mx.sym.random.gamma_like(mx.sym.var('data'), name='my_gamma')
    with pytest.raises(MXNetError, match=r"node 'my_gamma' \(operator _random_gamma_like\) "
                                         r"to opset \d+: ONNX cannot express it: draws from "
                                         r"a gamma distribution"):
        export(sym, {}, [(2, 3, 3)], onnx_file_path=str(tmp_path / 'g.onnx'))
    lstmp = mx.sym.RNN(mx.sym.var('data'), mx.sym.var('w'), mx.sym.var('s'),
                       mx.sym.var('c'), state_size=4, num_layers=1, mode='lstm',
                       projection_size=2, name='r')
    with pytest.raises(MXNetError, match=r"node 'r' \(operator RNN\).*projection_size"):
        export(lstmp, {}, [(2, 1, 3), (120,), (1, 1, 2), (1, 1, 4)],
               onnx_file_path=str(tmp_path / 'r'))
    assert not list(tmp_path.iterdir())


def test_get_operator_support():
    ops12 = mx.onnx.get_operator_support(12)
    assert {'FullyConnected', 'Convolution', 'RNN', 'Reshape', 'softmax'} <= set(ops12)
    assert ops12 == sorted(ops12)
    assert mx.onnx.get_operator_support() == mx.onnx.get_operator_support(NEWEST_ONNX)
    assert 'Custom' not in ops12 and 'sgd_mom_update' not in ops12     # refused ones


# ---- dynamic shapes -------------------------------------------------------------------------
def x(*shape):
    return np.random.RandomState(sum(shape)).uniform(-1, 1, shape).astype(np.float32)


D = mx.sym.var('data')
DYNAMIC_CASES = [
    ('reshape_codes', mx.sym.Reshape(D, shape=(0, -3, -2)), x(2, 3, 4, 5),
     [x(5, 3, 4, 5)], None),
    ('reshape_merge_batch', mx.sym.Reshape(D, shape=(-3, -2)), x(2, 3, 4), [x(4, 3, 4)], None),
    ('reshape_two_varying', mx.sym.Reshape(D, shape=(-3, 0)), x(2, 3, 4), [x(3, 5, 4)],
     [(None, None, 4)]),
    ('reshape_split', mx.sym.Reshape(D, shape=(-4, -1, 2, -2)), x(4, 3), [x(6, 3)], None),
    ('softmax_output_nd', mx.sym.SoftmaxOutput(D, name='softmax'), x(2, 3, 4), [x(5, 3, 4)],
     None),
    ('zeros_state', mx.sym.FullyConnected(D, num_hidden=3, name='fc')
     + mx.sym.zeros(shape=(0, 3)), x(2, 4), [x(6, 4)], None),
    ('pool_full', mx.sym.Pooling(D, kernel=(3, 3), stride=(2, 2), pool_type='avg',
                                 pooling_convention='full'), x(1, 2, 7, 8),
     [x(2, 2, 9, 6)], None),
    ('broadcast_to', mx.sym.broadcast_to(mx.sym.expand_dims(D, axis=2), shape=(0, 0, 3)),
     x(2, 4), [x(5, 4)], None),
    ('repeat', mx.sym.repeat(D, repeats=2, axis=1), x(2, 3), [x(4, 3)], [(None, 3)]),
    ('slice_channel', mx.sym.SliceChannel(D, num_outputs=2, axis=0), x(4, 3), [x(6, 3)],
     None),
]


@pytest.mark.parametrize('name,sym,data,others,dyn', DYNAMIC_CASES,
                         ids=[c[0] for c in DYNAMIC_CASES])
def test_dynamic_shapes(name, sym, data, others, dyn):
    check_export(sym, {'data': data}, dynamic=True, dynamic_input_shapes=dyn,
                 dynamic_inputs=[{'data': o} for o in others], opsets=[12, NEWEST])


def test_dynamic_dimension_names_reach_the_model(net, tmp_path):
    sym, args, auxs, data, _ = net
    path = export(sym, [args, auxs], [data.shape], dynamic=True,
                                dynamic_input_shapes=[('batch', 2, 5, 5)],
                                onnx_file_path=str(tmp_path / 'm.onnx'))
    dims = onnx.load(path).graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ['batch', 2, 5, 5]
    assert session(path).run(None, {'data': np.zeros((7, 2, 5, 5), np.float32)})[0].shape \
        == (7, 3)


def test_default_opset_is_the_newest_onnx_knows(net, tmp_path):
    sym, args, auxs, data, _ = net
    path = mx.onnx.export_model(sym, [args, auxs], [data.shape],
                                onnx_file_path=str(tmp_path / 'm.onnx'))
    assert [o.version for o in onnx.load(path).opset_import] == [NEWEST_ONNX]


def test_translation_needing_a_newer_opset_names_it(tmp_path):
    data, grid = mx.sym.var('data'), mx.sym.var('grid')
    sampler = mx.sym.BilinearSampler(data, grid, name='warp')
    with pytest.raises(MXNetError, match=r"node 'warp' \(operator BilinearSampler\) to opset "
                                         r"12: its translation needs opset 16 or newer"):
        export(sampler, {}, [(1, 2, 4, 4), (1, 2, 3, 3)], opset_version=12,
               onnx_file_path=str(tmp_path / 'b.onnx'))
    align = mx.sym.contrib.ROIAlign(data, mx.sym.var('rois'), pooled_size=(2, 2),
                                    spatial_scale=1.0, aligned=True, name='align')
    with pytest.raises(MXNetError, match=r"node 'align' \(operator _contrib_ROIAlign\) to "
                                         r"opset 13: aligned=True .* needs opset 16"):
        export(align, {}, [(1, 2, 4, 4), (3, 5)], opset_version=13,
               onnx_file_path=str(tmp_path / 'a.onnx'))
    assert not list(tmp_path.iterdir())
