"""The executor's monitor callback reports the gradient nodes' outputs in backward with the
names MXNet 1.9.1 gives them (reference: tests/data/gen/gen_monitor_names.py)."""
import json
import pathlib

import numpy as np

import symmod as mx

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
