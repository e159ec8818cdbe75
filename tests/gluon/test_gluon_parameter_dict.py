"""gluon.ParameterDict: prefixes, sharing, initialize, save/load in MXNet's format."""
import os

import numpy as np
import pytest

import symmod as mx
from symmod import gluon

DATA = os.path.join(os.path.dirname(__file__), '..', 'data')
REF = np.load(os.path.join(DATA, 'gluon_reference.npz'))


def test_get_prefix_and_reuse():
    params = gluon.ParameterDict('net_')
    w = params.get('weight', shape=(2, 3))
    assert w.name == 'net_weight' and params.prefix == 'net_'
    assert params.get('weight') is w
    assert list(params.keys()) == ['net_weight']
    assert params['net_weight'] is w


def test_get_fills_unknown_dims_and_rejects_conflicts():
    params = gluon.ParameterDict('p_')
    w = params.get('w', shape=(2, 0))
    assert params.get('w', shape=(2, 5)) is w
    assert w.shape == (2, 5)
    with pytest.raises(AssertionError, match="desired attribute does not match with stored "
                                             "for attribute 'shape'"):
        params.get('w', shape=(3, 5))
    params.get('w', dtype='float32')
    with pytest.raises(AssertionError, match="attribute 'lr_mult'"):
        params.get('w', lr_mult=2.0)


def test_shared_dict():
    shared = gluon.ParameterDict('a_')
    w = shared.get('w', shape=(2,))
    params = gluon.ParameterDict('a_', shared=shared)
    assert params.get('w') is w


def test_update_conflict():
    a, b = gluon.ParameterDict('x_'), gluon.ParameterDict('x_')
    a.get('w', shape=(1,))
    b.get('w', shape=(1,))
    with pytest.raises(AssertionError, match="different Parameters with the same name 'x_w'"):
        a.update(b)


def test_get_constant():
    params = gluon.ParameterDict('c_')
    const = params.get_constant('k', [1., 2.])
    assert isinstance(const, gluon.Constant)
    assert params.get_constant('k') is const
    params.get_constant('k', [1., 2.])
    with pytest.raises(AssertionError, match="value doesn't match"):
        params.get_constant('k', [1., 3.])
    with pytest.raises(KeyError, match='No constant named'):
        params.get_constant('missing')


def test_initialize_zero_grad_setattr_list_ctx():
    params = gluon.ParameterDict('n_')
    params.get('w', shape=(2, 2), init=mx.init.One())
    params.get('b', shape=(2,))
    params.initialize(init=mx.init.Zero(), ctx=[mx.cpu(0), mx.cpu(1)])
    np.testing.assert_array_equal(params['n_w'].data(mx.cpu(1)).asnumpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(params['n_b'].data(mx.cpu(0)).asnumpy(), np.zeros(2))
    assert sorted(params.list_ctx(), key=str) == [mx.cpu(0), mx.cpu(1)]
    for g in params['n_w'].list_grad():
        g[:] = 3
    params.zero_grad()
    for g in params['n_w'].list_grad():
        np.testing.assert_array_equal(g.asnumpy(), np.zeros((2, 2)))
    params.setattr('lr_mult', 0.5)
    assert all(p.lr_mult == 0.5 for p in params.values())
    params.setattr('grad_req', 'null')
    assert params['n_w']._grad is None
    params.reset_ctx(mx.cpu(2))
    assert params.list_ctx() == [mx.cpu(2)]


def test_save_load_round_trip_with_prefix(tmp_path):
    params = gluon.ParameterDict('model_')
    params.get('w', shape=(2, 3))
    params.get('b', shape=(3,))
    params.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    fname = str(tmp_path / 'p.params')
    params.save(fname, strip_prefix='model_')
    loaded = mx.nd.load(fname)
    assert sorted(loaded) == ['b', 'w']
    np.testing.assert_array_equal(loaded['w'].asnumpy(), params['model_w'].data(mx.cpu(0))
                                  .asnumpy())
    other = gluon.ParameterDict('model_')
    other.get('w', shape=(2, 0))
    other.get('b', shape=(3,))
    other.load(fname, ctx=mx.cpu(0), restore_prefix='model_')
    assert other['model_w'].shape == (2, 3)
    np.testing.assert_array_equal(other['model_w'].data().asnumpy(), loaded['w'].asnumpy())
    with pytest.raises(ValueError, match="Prefix 'zzz_' is to be striped before saving"):
        params.save(fname, strip_prefix='zzz_')
    with pytest.raises(AssertionError, match="restore_prefix is 'q_'"):
        other.load(fname, restore_prefix='q_')


def test_load_checks_missing_and_extra(tmp_path):
    fname = str(tmp_path / 'p.params')
    mx.nd.save(fname, {'arg:a': mx.nd.ones((2,)), 'aux:b': mx.nd.zeros((2,))})
    params = gluon.ParameterDict()
    params.get('a', shape=(2,))
    params.get('c', shape=(2,))
    with pytest.raises(AssertionError, match="Parameter 'c' is missing in file: "):
        params.load(fname)
    with pytest.raises(AssertionError, match="Parameter 'b' loaded from file: .* is not present"):
        params.load(fname, allow_missing=True)
    params.load(fname, allow_missing=True, ignore_extra=True)
    np.testing.assert_array_equal(params['a'].data().asnumpy(), [1., 1.])   # 'arg:' stripped
    mx.nd.save(fname, [mx.nd.ones((2,))])
    with pytest.raises(ValueError, match='unnamed list'):
        params.load(fname)


def test_load_mxnet_written_files():
    """Files MXNet's ParameterDict.save and Block.save_parameters wrote."""
    params = gluon.ParameterDict('model_')
    params.get('dense0_weight', shape=(4, 3))
    params.get('dense0_bias', shape=(4,))
    params.get('dense1_weight', shape=(2, 4))
    params.load(os.path.join(DATA, 'gluon', 'saved_strip.params'), restore_prefix='model_')
    for name, param in params.items():
        np.testing.assert_array_equal(param.data().asnumpy(), REF['params/%s' % name])


def test_repr():
    params = gluon.ParameterDict('net_')
    params.get('w', shape=(2,))
    assert repr(params) == 'net_ (\n  Parameter net_w (shape=(2,), dtype=%s)\n)' % np.float32
