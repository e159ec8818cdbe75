"""The executor's monitor callback as MXNet 1.9.1's graph executor: the gradient nodes'
outputs in backward, with monitor_all the variable inputs by their own names, hidden outputs,
kept across reshape, arrays a callback can cast to a ctypes handle and back (reference
names: tests/data/gen/gen_monitor_names.py)."""
import ctypes
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.base import NDArrayHandle

REF = json.loads((pathlib.Path(__file__).resolve().parents[1] / 'data' /
                  'mxnet_monitor_names.json').read_text())


def _bound():
    data = mx.sym.var('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=3, name='fc1')
    act = mx.sym.Activation(fc1, act_type='tanh', name='act1')
    out = mx.sym.LinearRegressionOutput(act, name='lro')
    return out.simple_bind(mx.cpu(), data=(2, 4),
                           grad_req={'data': 'null', 'fc1_weight': 'write',
                                     'fc1_bias': 'write', 'lro_label': 'null'})


def test_forward_and_backward_names_match_mxnet():
    exe = _bound()
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append((mx.base.py_str(name), arr)))
    exe.forward(is_train=True)
    exe.backward()
    assert [name for name, _ in seen] == REF['forward_backward']
    reported = dict(seen)
    np.testing.assert_array_equal(reported['fc1_backward_output1'].asnumpy(),
                                  exe.grad_dict['fc1_weight'].asnumpy())
    assert reported['fc1_backward_output0'].shape == (2, 4)     # 'null' data gradient too


def test_backward_without_monitor_reports_nothing():
    exe = _bound()
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append(name))
    exe.set_monitor_callback(None)
    exe.forward(is_train=True)
    exe.backward()
    assert seen == []


@pytest.mark.parametrize('key', ['conv', 'concat', 'lrn', 'softmax_activation', 'upsampling'])
def test_monitor_all_names_variables_and_hidden_outputs_as_mxnet(key):
    data = mx.sym.Variable('data', shape=(2, 3, 4, 4))
    sym = {'conv': lambda: mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name='conv'),
           'concat': lambda: mx.sym.concat(data, data, dim=0, name='concat'),
           'lrn': lambda: mx.sym.LRN(data, nsize=1, name='lrn'),
           'softmax_activation': lambda: mx.sym.SoftmaxActivation(data, name='sa'),
           'upsampling': lambda: mx.sym.UpSampling(data, scale=2, sample_type='nearest',
                                                   name='up')}[key]()
    names = []
    exe = sym.simple_bind(mx.cpu(), grad_req='null')
    exe.set_monitor_callback(lambda name, arr: names.append(mx.base.py_str(name)), True)
    exe.forward()
    assert names == REF['all/' + key]


def test_reshaped_executor_keeps_the_monitor():
    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=(1, 1), num_filter=1, name='conv')
    exe = sym.simple_bind(mx.cpu(), data=(1, 3, 4, 4))
    names = []
    exe.set_monitor_callback(lambda name, arr: names.append(mx.base.py_str(name)))
    exe.reshape(allow_up_sizing=True, data=(1, 3, 4, 6)).forward()
    assert names == ['conv_output']


def test_callbacks_may_cast_the_array_to_a_handle_and_back():
    # the pattern of MXNet's own monitor callbacks
    seen = []

    def callback(name, arr):
        handle = ctypes.cast(arr, NDArrayHandle)
        seen.append(mx.nd.NDArray(handle, writable=False).asnumpy().copy())
        with pytest.raises(ValueError):
            mx.nd.NDArray(handle, writable=False)[:] = 0

    exe = _bound()
    exe.set_monitor_callback(callback)
    exe.forward(is_train=False, data=mx.nd.ones((2, 4)))
    np.testing.assert_array_equal(seen[-1], exe.outputs[0].asnumpy())
    with pytest.raises(mx.MXNetError, match='live'):
        mx.nd.NDArray(ctypes.c_void_p(1))
