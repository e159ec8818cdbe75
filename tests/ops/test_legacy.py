"""MXNet's legacy *_v1 operators: numbers, gradients, moving statistics and symbol JSON
equal MXNet 1.9.1's; old graphs using them load, bind and re-save unchanged."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import check_numeric_gradient
from legacy_cases import CASES, lenet_v1

TESTED_OPS = {'Convolution_v1', 'Pooling_v1', 'BatchNorm_v1'}
DATA = pathlib.Path(__file__).resolve().parents[1] / 'data'
REF = np.load(DATA / 'ops_legacy_reference.npz')
REF_JSON = json.loads((DATA / 'ops_legacy_reference.json').read_text())


def _ref(name, kind):
    prefix = '%s/%s/' % (name, kind)
    return {k[len(prefix):]: REF[k] for k in REF.files if k.startswith(prefix)}


@pytest.mark.parametrize('name, build, shape', CASES, ids=[c[0] for c in CASES])
def test_matches_mxnet(name, build, shape):
    with mx.name.NameManager():
        sym = build(mx)
    exe = sym.simple_bind(mx.cpu(), data=shape)
    for key, value in _ref(name, 'in').items():
        exe.arg_dict[key][:] = value
    for key, value in _ref(name, 'aux0').items():
        exe.aux_dict[key][:] = value
    exe.forward(is_train=True)
    outs = _ref(name, 'out')
    assert len(exe.outputs) == len(outs)
    for i, out in enumerate(exe.outputs):
        np.testing.assert_allclose(out.asnumpy(), outs[str(i)], rtol=1e-4, atol=1e-5,
                                   err_msg='output %d' % i)
    heads = _ref(name, 'head')
    exe.backward([mx.nd.array(heads[str(i)]) for i in range(len(exe.outputs))])
    for key, value in _ref(name, 'grad').items():
        np.testing.assert_allclose(exe.grad_dict[key].asnumpy(), value, rtol=1e-4, atol=1e-5,
                                   err_msg=key)
    for key, value in _ref(name, 'aux1').items():
        np.testing.assert_allclose(exe.aux_dict[key].asnumpy(), value, rtol=1e-5, atol=1e-6,
                                   err_msg=key)


@pytest.mark.parametrize('name, build, shape', CASES[:6], ids=[c[0] for c in CASES[:6]])
def test_numeric_gradient(name, build, shape):
    with mx.name.NameManager():
        sym = build(mx)
    rng = np.random.default_rng(3)
    arg_shapes, _, _ = sym.infer_shape(data=shape)
    location = {n: rng.standard_normal(s) for n, s in zip(sym.list_arguments(), arg_shapes)}
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                           dtype=np.float64)


def test_batchnorm_v1_numeric_gradient():
    sym = mx.sym.BatchNorm_v1(mx.sym.var('data'), fix_gamma=False, name='bn')
    rng = np.random.default_rng(4)
    location = {'data': rng.standard_normal((4, 3, 2, 2)), 'bn_gamma': rng.uniform(0.5, 2, 3),
                'bn_beta': rng.standard_normal(3)}
    aux = {'bn_moving_mean': np.zeros(3), 'bn_moving_var': np.ones(3)}
    check_numeric_gradient(sym, location, aux_states=aux, numeric_eps=1e-6, rtol=1e-4,
                           atol=1e-6, dtype=np.float64)


def test_3d_forms_equal_the_current_operators():
    rng = np.random.default_rng(5)
    x = mx.nd.array(rng.standard_normal((1, 2, 4, 4, 4)))
    w = mx.nd.array(rng.standard_normal((3, 2, 2, 2, 2)))
    b = mx.nd.array(rng.standard_normal(3))
    np.testing.assert_array_equal(
        mx.nd.Convolution_v1(x, w, b, kernel=(2, 2, 2), num_filter=3).asnumpy(),
        mx.nd.Convolution(x, w, b, kernel=(2, 2, 2), num_filter=3).asnumpy())
    np.testing.assert_array_equal(
        mx.nd.Pooling_v1(x, kernel=(2, 2, 2), pool_type='avg').asnumpy(),
        mx.nd.Pooling(x, kernel=(2, 2, 2), pool_type='avg').asnumpy())


def test_graph_json_names_and_shapes_are_mxnets():
    with mx.name.NameManager():
        net = lenet_v1(mx)
    assert net.tojson() == REF_JSON['lenet_v1']
    assert net.list_arguments() == REF_JSON['lenet_v1_arguments']
    assert net.list_auxiliary_states() == REF_JSON['lenet_v1_aux']
    assert [list(s) for s in net.infer_shape(data=(2, 1, 10, 10))[0]] == \
        REF_JSON['lenet_v1_shapes']
    loaded = mx.sym.load_json(REF_JSON['lenet_v1'])
    assert loaded.tojson() == REF_JSON['lenet_v1']


def test_old_graph_trains_in_a_module():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((40, 1, 10, 10)).astype(np.float32)
    y = (x.mean(axis=(1, 2, 3)) > 0).astype(np.float32)
    mod = mx.mod.Module(mx.sym.load_json(REF_JSON['lenet_v1']))
    mod.fit(mx.io.NDArrayIter(x, y, batch_size=10), num_epoch=2, optimizer='sgd',
            optimizer_params={'learning_rate': 0.1}, initializer=mx.init.Xavier())
    assert mod.get_params()[1]['bn1_moving_var'].asnumpy().min() > 0


def test_legacy_parameter_sets_and_errors():
    with pytest.raises(MXNetError, match="Cannot find argument 'count_include_pad'"):
        mx.sym.Pooling_v1(mx.sym.var('data'), kernel=(2, 2), count_include_pad=False)
    with pytest.raises(MXNetError, match="Cannot find argument 'axis'"):
        mx.sym.BatchNorm_v1(mx.sym.var('data'), axis=2)
    with pytest.raises(MXNetError, match='Pooling_v1.*lp'):
        mx.sym.Pooling_v1(mx.sym.var('data'), kernel=(2, 2), pool_type='lp')
    with pytest.raises(MXNetError, match='Convolution_v1: kernel must be 2-D or 3-D'):
        mx.sym.Convolution_v1(mx.sym.var('data'), kernel=(3,), num_filter=2)
