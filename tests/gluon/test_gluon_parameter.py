"""gluon.Parameter and Constant."""
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod import autograd, gluon
from symmod.base import MXNetError


def test_initialize_data_grad_single_context():
    p = gluon.Parameter('fc_weight', shape=(3, 4), init=mx.init.Constant(0.5))
    p.initialize()
    assert p.data().shape == (3, 4) and p.data().dtype == np.float32
    np.testing.assert_array_equal(p.data().asnumpy(), np.full((3, 4), 0.5))
    np.testing.assert_array_equal(p.grad().asnumpy(), np.zeros((3, 4)))
    assert p.list_ctx() == [mx.cpu(0)]
    assert p.list_data()[0] is p.data() and p.list_grad()[0] is p.grad()
    assert repr(p) == 'Parameter fc_weight (shape=(3, 4), dtype=%s)' % np.float32


def test_int_shape_and_default_init_ignores_name_rules():
    # as in MXNet, gluon applies the initializer itself, whatever the name says
    p = gluon.Parameter('fc_bias', shape=4)
    assert p.shape == (4,)
    with pytest.raises(ValueError, match='Xavier initializer cannot be applied to vector'):
        p.initialize(default_init=mx.init.Xavier())
    p.initialize()                          # default Uniform(0.07), not zeros
    values = p.data().asnumpy()
    assert np.all(np.abs(values) <= 0.07) and np.any(values != 0)


def test_multi_context_copies_are_identical_and_independent():
    ctxs = [mx.cpu(0), mx.cpu(1), mx.cpu(3)]
    p = gluon.Parameter('w', shape=(2, 5))
    p.initialize(ctx=ctxs)
    assert p.list_ctx() == ctxs
    base = p.data(mx.cpu(0)).asnumpy()
    for ctx in ctxs:
        arr = p.data(ctx)
        assert arr.context == ctx
        np.testing.assert_array_equal(arr.asnumpy(), base)
        assert p.grad(ctx).context == ctx
    p.data(mx.cpu(1))[:] = 7
    np.testing.assert_array_equal(p.data(mx.cpu(0)).asnumpy(), base)
    with mx.cpu(3):
        assert p.data() is p.data(mx.cpu(3))
    with pytest.raises(RuntimeError, match=r"was not initialized on context cpu\(2\)"):
        p.data(mx.cpu(2))
    with pytest.raises(RuntimeError, match='was not initialized on context gpu'):
        p.data(mx.gpu(0))


def test_uninitialized_and_deferred_errors():
    p = gluon.Parameter('w', shape=(2, 0))
    with pytest.raises(RuntimeError, match="Parameter 'w' has not been initialized"):
        p.data()
    with pytest.raises(ValueError, match="Cannot initialize Parameter 'w' because it has "
                                         r"invalid shape: \(2, 0\)"):
        p.initialize()
    q = gluon.Parameter('q', shape=(2, 0), allow_deferred_init=True)
    q.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert q.list_ctx() == [mx.cpu(0), mx.cpu(1)]
    with pytest.raises(gluon.DeferredInitializationError, match='initialization was deferred'):
        q.data()
    q.shape = (2, 3)
    q._finish_deferred_init()
    assert q.data(mx.cpu(1)).shape == (2, 3)


def test_deferred_set_data_used_at_finish():
    q = gluon.Parameter('q', shape=(0,), allow_deferred_init=True)
    q.initialize()
    q.set_data(mx.nd.array([1., 2., 3.]))
    q._finish_deferred_init()
    np.testing.assert_array_equal(q.data().asnumpy(), [1., 2., 3.])


def test_shape_setter_compatibility():
    p = gluon.Parameter('w', shape=(2, 0))
    p.shape = (2, 5)
    assert p.shape == (2, 5)
    with pytest.raises(AssertionError, match='incompatible'):
        p.shape = (3, 5)


def test_initialize_twice_warns_and_force_reinit():
    p = gluon.Parameter('w', shape=(2,), init=mx.init.One())
    p.initialize()
    with pytest.warns(UserWarning, match="Parameter 'w' is already initialized, ignoring"):
        p.initialize()
    p.initialize(init=mx.init.Zero(), force_reinit=True)
    np.testing.assert_array_equal(p.data().asnumpy(), [0., 0.])


def test_grad_req_null_and_switch():
    p = gluon.Parameter('w', shape=(2,), grad_req='null')
    p.initialize()
    with pytest.raises(RuntimeError, match="because grad_req='null'"):
        p.grad()
    p.grad_req = 'write'
    assert p.grad().shape == (2,)
    x = p.data()
    with autograd.record():
        y = x * 3
    y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), [3., 3.])
    p.grad_req = 'null'
    with autograd.record():
        y = p.data() * 3
    with pytest.raises(MXNetError, match='not in a computational graph'):
        y.backward()
    with pytest.raises(AssertionError, match="grad_req must be one of"):
        p.grad_req = 'bad'
    nd_param = gluon.Parameter('c', shape=(2,), differentiable=False)
    assert nd_param.grad_req == 'null'


def test_grad_req_add_accumulates_until_zero_grad():
    p = gluon.Parameter('w', shape=(2,), grad_req='add', init=mx.init.One())
    p.initialize()
    for _ in range(2):
        with autograd.record():
            y = p.data() * 2
        y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), [4., 4.])
    p.zero_grad()
    np.testing.assert_array_equal(p.grad().asnumpy(), [0., 0.])


def test_set_data_all_contexts():
    p = gluon.Parameter('w', shape=(2,))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    p.set_data(mx.nd.array([4., 5.]))
    for arr in p.list_data():
        np.testing.assert_array_equal(arr.asnumpy(), [4., 5.])


def test_reset_ctx_keeps_average():
    p = gluon.Parameter('w', shape=(2,))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    p.data(mx.cpu(0))[:] = 1
    p.data(mx.cpu(1))[:] = 3
    p.reset_ctx([mx.cpu(2)])
    assert p.list_ctx() == [mx.cpu(2)]
    np.testing.assert_array_equal(p.data(mx.cpu(2)).asnumpy(), [2., 2.])
    q = gluon.Parameter('q', shape=(2,))
    with pytest.raises(ValueError, match='has not been initialized'):
        q.reset_ctx(mx.cpu())


def test_cast_data_and_grad():
    p = gluon.Parameter('w', shape=(2,), init=mx.init.One())
    p.initialize()
    p.cast('float64')
    assert p.data().dtype == np.float64 and p.grad().dtype == np.float64
    with autograd.record():
        y = p.data() * 2
    y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), [2., 2.])


def test_var_carries_attributes():
    p = gluon.Parameter('fc_weight', shape=(3, 4), lr_mult=2.0, wd_mult=0.5)
    v = p.var()
    assert v.name == 'fc_weight'
    attrs = v.list_attr()
    assert attrs['__shape__'] == '(3, 4)'
    assert float(attrs['__lr_mult__']) == 2.0 and float(attrs['__wd_mult__']) == 0.5
    assert p.var() is v


def test_storage_type_names_checked():
    # row_sparse weights: tests/gluon/test_sparse_weights.py; csr: test_parameter_csr.py
    with pytest.raises(AssertionError, match='must be one of'):
        gluon.Parameter('w', shape=(2,), stype='dense')
    p = gluon.Parameter('w', shape=(2,))
    p.initialize()
    with pytest.raises(RuntimeError, match='Please use data\\(\\) instead'):
        p.row_sparse_data(mx.nd.array([0]))


def test_constant():
    c = gluon.Constant('const', [[1, 2], [3, 4]])
    assert c.grad_req == 'null'
    c.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    for arr in c.list_data():
        np.testing.assert_array_equal(arr.asnumpy(), [[1, 2], [3, 4]])
    with pytest.warns(UserWarning, match='does not support grad_req other than "null"'):
        c.grad_req = 'write'
    assert c.grad_req == 'null'
    assert repr(c).startswith('Constant const (shape=(2, 2)')


def test_load_init_checks_shape_and_dtype():
    p = gluon.Parameter('w', shape=(2, 0))
    with pytest.raises(AssertionError, match='shape incompatible'):
        p._load_init(mx.nd.zeros((3, 4)), mx.cpu())
    p._load_init(mx.nd.ones((2, 4)), mx.cpu())
    assert p.shape == (2, 4)
    q = gluon.Parameter('q', shape=(2,))
    with pytest.raises(AssertionError, match='dtype incompatible'):
        q._load_init(mx.nd.zeros((2,), dtype='float64'), mx.cpu())
    q._load_init(mx.nd.zeros((2,), dtype='float64'), mx.cpu(), cast_dtype=True)
    assert q.data().dtype == np.float32
    r = gluon.Parameter('r', shape=(2,))
    r._load_init(mx.nd.zeros((2,), dtype='float64'), mx.cpu(), cast_dtype=True,
                 dtype_source='saved')
    assert r.data().dtype == np.float64
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        r._load_init(mx.nd.ones((2,), dtype='float64'), None)   # already initialized: set
    np.testing.assert_array_equal(r.data().asnumpy(), [1., 1.])
