"""The legacy DataParallelExecutorManager and its helpers, tested directly."""
import logging

import numpy as np
import pytest

import symmod as mx
from symmod.executor.manager import (_bind_exec, _check_arguments, _split_input_slice,
                                     DataParallelExecutorManager)


@pytest.fixture(autouse=True)
def _fresh_names():
    with mx.name.NameManager():
        yield


def _net(seq_len=None):
    data = mx.sym.var('data')
    fc = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
    return mx.sym.SoftmaxOutput(fc, name='softmax')


class _Batch:
    def __init__(self, x, y, key=None):
        self.data = [mx.nd.array(x)]
        self.label = [mx.nd.array(y)]
        self.bucket_key = key
        self.provide_data = [mx.io.DataDesc('data', x.shape)]
        self.provide_label = [mx.io.DataDesc('softmax_label', y.shape)]


class _Iter:
    batch_size = 6
    default_bucket_key = 5
    provide_data = [mx.io.DataDesc('data', (6, 5))]
    provide_label = [mx.io.DataDesc('softmax_label', (6,))]


def test_check_arguments_rejects_duplicates():
    w = mx.sym.var('w')
    a = mx.sym.FullyConnected(mx.sym.var('x'), weight=w, no_bias=True, num_hidden=2)
    dup = mx.sym.FullyConnected(a, weight=mx.sym.var('w'), no_bias=True, num_hidden=2)
    with pytest.raises(ValueError, match='Find duplicated argument name "w"'):
        _check_arguments(dup)
    _check_arguments(_net())
    bn1 = mx.sym.BatchNorm(mx.sym.var('x'), name='bn')
    bn2 = mx.sym.BatchNorm(bn1, name='bn')
    with pytest.raises(ValueError, match='duplicated'):
        _check_arguments(bn2)


def test_split_input_slice():
    assert _split_input_slice(6, [1, 2]) == [slice(0, 2), slice(2, 6)]
    with pytest.raises(ValueError, match='Too many slices'):
        _split_input_slice(1, [1, 1])


def test_bind_exec_shares_and_reallocates_data_arrays(caplog):
    shared = {}
    big = _bind_exec(_net(), mx.cpu(), {'data': (8, 5), 'softmax_label': (8,)}, ['fc_weight',
                                                                               'fc_bias'],
                     need_grad=True, shared_data_arrays=shared)
    assert set(big.grad_dict) >= {'fc_weight', 'fc_bias'} and big.grad_dict['fc_weight'] is not None
    assert big.grad_dict['data'] is None
    small = _bind_exec(_net(), mx.cpu(), {'data': (4, 5), 'softmax_label': (4,)},
                       ['fc_weight', 'fc_bias'], need_grad=True, base_exec=big,
                       shared_data_arrays=shared)
    assert np.shares_memory(small.arg_dict['data']._data, big.arg_dict['data']._data)
    assert small.arg_dict['fc_weight'] is big.arg_dict['fc_weight']
    assert small.grad_dict['fc_weight'] is big.grad_dict['fc_weight']
    with caplog.at_level(logging.WARNING):
        larger = _bind_exec(_net(), mx.cpu(), {'data': (16, 5), 'softmax_label': (16,)},
                            ['fc_weight', 'fc_bias'], need_grad=True, base_exec=big,
                            shared_data_arrays=shared)
    assert 'bucketing: data "data" has a shape (16, 5), which is larger than already ' \
        'allocated shape (8, 5)' in caplog.text
    assert shared['data'] is larger.arg_dict['data']
    with pytest.raises(AssertionError, match='need_grad'):
        _bind_exec(_net(), mx.cpu(), {'data': (4, 5)}, [], need_grad='yes')


def test_manager_trains_across_two_devices():
    rng = np.random.RandomState(0)
    net = _net()
    arg_names = net.list_arguments()
    mgr = DataParallelExecutorManager(net, [mx.cpu(0), mx.cpu(1)], _Iter(), arg_names,
                                      ['fc_weight', 'fc_bias'], [])
    assert [e.arg_dict['data'].shape for e in mgr.execgrp.train_execs] == [(3, 5), (3, 5)]
    weight = mx.nd.array(rng.randn(4, 5))
    mgr.set_params({'fc_weight': weight, 'fc_bias': mx.nd.zeros(4)}, {})
    assert len(mgr.param_arrays) == 2 and len(mgr.param_arrays[0]) == 2
    x, y = rng.randn(6, 5).astype(np.float32), np.array([0, 1, 2, 3, 0, 1], np.float32)
    mgr.load_data_batch(_Batch(x, y))
    mgr.forward(is_train=True)
    mgr.backward()
    # the per-device gradients add up to the full-batch gradient
    total = mgr.grad_arrays[0][0].asnumpy() + mgr.grad_arrays[0][1].asnumpy()
    z = x @ weight.asnumpy().T
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p[np.arange(6), y.astype(int)] -= 1
    np.testing.assert_allclose(total, p.T @ x, rtol=1e-4, atol=1e-5)
    metric = mx.metric.Accuracy()
    mgr.update_metric(metric, [mx.nd.array(y)])
    assert metric.num_inst == 6
    out_w = mx.nd.zeros((4, 5))
    mgr.copy_to({'fc_weight': out_w, 'fc_bias': mx.nd.zeros(4)}, {})
    np.testing.assert_allclose(out_w.asnumpy(), weight.asnumpy(), rtol=1e-6)
    mon = mx.Monitor(1)
    mgr.install_monitor(mon)
    assert len(mon.exes) == 2


def test_manager_binds_new_buckets_against_the_shared_group():
    def sym_gen(key):
        data = mx.sym.var('data')
        net = mx.sym.sum(data, axis=1, keepdims=True)     # (batch, key) -> (batch, 1)
        net = mx.sym.FullyConnected(net, num_hidden=4, name='fc')
        return mx.sym.SoftmaxOutput(net, name='softmax')

    net = sym_gen(5)
    mgr = DataParallelExecutorManager(net, [mx.cpu(0)], _Iter(), net.list_arguments(),
                                      ['fc_weight', 'fc_bias'], [], sym_gen=sym_gen)
    with pytest.raises(mx.MXNetError, match='bucketing'):
        mgr.install_monitor(mx.Monitor(1))
    mgr.load_data_batch(_Batch(np.ones((6, 5), np.float32), np.zeros(6, np.float32), key=5))
    assert mgr.curr_execgrp is mgr.execgrp
    mgr.load_data_batch(_Batch(np.ones((6, 3), np.float32), np.zeros(6, np.float32), key=3))
    assert mgr.curr_execgrp is mgr.execgrp_bucket[3]
    assert mgr.execgrp_bucket[3].param_arrays[0][0] is mgr.execgrp.param_arrays[0][0]
