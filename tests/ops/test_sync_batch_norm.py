"""_contrib_SyncBatchNorm: MXNet 1.9.1's recorded operator output
(tests/data/gluon_contrib_reference.npz), finite differences, two devices of a Module's
executor group against one, and the rendezvous' refusal to wait forever."""
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.ops import sync_batch_norm
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

TESTED_OPS = {'_contrib_SyncBatchNorm'}

REF = dict(np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                                'gluon_contrib_reference.npz')))


def test_operator_outputs_against_mxnet():
    args = [mx.nd.array(REF['syncbn_op/x']), mx.nd.array([1.5, 0.5]), mx.nd.array([0.1, -0.2]),
            mx.nd.zeros(2), mx.nd.ones(2)]
    with mx.autograd.train_mode():
        out, mean, var = mx.nd._contrib_SyncBatchNorm(*args, key='op', output_mean_var=True,
                                                      fix_gamma=False, eps=1e-4)
    for name, got in (('out', out), ('mean', mean), ('var', var)):
        assert_almost_equal(got.asnumpy(), REF['syncbn_op/' + name], rtol=1e-5, atol=1e-6)


def test_symbol_names():
    sym = mx.sym.contrib.SyncBatchNorm(mx.sym.var('data'), key='k', name='bn')
    assert sym.list_arguments() == ['data', 'bn_gamma', 'bn_beta']
    assert sym.list_auxiliary_states() == ['bn_moving_mean', 'bn_moving_var']
    assert sym.infer_shape(data=(2, 4, 3))[2] == [(4,), (4,)]


@pytest.mark.parametrize('shape', [(4, 3), (3, 2, 5)])
def test_numeric_gradient(shape):
    rng = np.random.RandomState(0)
    sym = mx.sym.contrib.SyncBatchNorm(mx.sym.var('data'), mx.sym.var('gamma'),
                                       mx.sym.var('beta'), key='grad', fix_gamma=False)
    location = {'data': rng.randn(*shape), 'gamma': rng.uniform(0.5, 1.5, shape[1]),
                'beta': rng.randn(shape[1])}
    aux = {'syncbatchnorm0_moving_mean': np.zeros(shape[1]),
           'syncbatchnorm0_moving_var': np.ones(shape[1])}
    aux = dict(zip(sym.list_auxiliary_states(), aux.values()))
    check_numeric_gradient(sym, location, aux_states=aux, numeric_eps=1e-5, rtol=1e-3,
                           atol=1e-5, dtype=np.float64)


def test_module_over_two_devices_equals_one():
    """The executor group runs its devices on threads: with ndev=2 the two halves of the
    batch are normalized together, as BatchNorm normalizes the whole batch."""
    rng = np.random.RandomState(2)
    x = rng.randn(8, 3, 4).astype(np.float32)

    def run(op, contexts, **kwargs):
        net = op(mx.sym.var('data'), fix_gamma=False, name='bn', **kwargs)
        net = mx.sym.MakeLoss(mx.sym.sum(mx.sym.square(net)))
        mod = mx.mod.Module(net, data_names=['data'], label_names=None, context=contexts)
        mod.bind(data_shapes=[('data', x.shape)])
        mod.init_params(mx.init.Constant(0.7))
        batch = mx.io.DataBatch([mx.nd.array(x)])
        mod.forward_backward(batch)
        grads = {n: sum(g.asnumpy() for g in gs)
                 for n, gs in zip(mod._exec_group.param_names, mod._exec_group.grad_arrays)}
        return grads

    want = run(mx.sym.BatchNorm, [mx.cpu(0)], eps=1e-3)
    got = run(mx.sym.contrib.SyncBatchNorm, [mx.cpu(0), mx.cpu(1)], key='mod', ndev=2)
    for name in want:
        assert_almost_equal(got[name], want[name], rtol=1e-4, atol=1e-4, names=(name, 'bn'))


def test_devices_stepped_in_one_thread_get_an_error(monkeypatch):
    monkeypatch.setattr(sync_batch_norm, 'RENDEZVOUS_TIMEOUT', 0.2)
    args = [mx.nd.ones((2, 3)), mx.nd.ones(3), mx.nd.zeros(3), mx.nd.zeros(3), mx.nd.ones(3)]
    with mx.autograd.train_mode():
        with pytest.raises(MXNetError, match='concurrently'):
            mx.nd._contrib_SyncBatchNorm(*args, key='lonely', ndev=2)
