"""Write tests/data/mxnet_monitor_names.json: the names MXNet 1.9.1's executor monitor
callback reports over one forward and backward pass of a small network (run with
/work/mxnet-venv/bin/python)."""
import json
import os
import pathlib

import mxnet as mx

OUT = pathlib.Path(__file__).resolve().parents[1] / 'mxnet_monitor_names.json'


def network():
    data = mx.sym.var('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=3, name='fc1')
    act = mx.sym.Activation(fc1, act_type='tanh', name='act1')
    return mx.sym.LinearRegressionOutput(act, name='lro')


def main():
    exe = network().simple_bind(mx.cpu(), data=(2, 4),
                                grad_req={'data': 'null', 'fc1_weight': 'write',
                                          'fc1_bias': 'write', 'lro_label': 'null'})
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append(mx.base.py_str(name)))
    exe.forward(is_train=True)
    exe.backward()
    mx.nd.waitall()
    result = {'forward_backward': seen}
    os.environ['MXNET_SUBGRAPH_BACKEND'] = 'NONE'     # MKLDNN would rename fused nodes
    data = mx.sym.Variable('data', shape=(2, 3, 4, 4))
    for key, sym in (('conv', mx.sym.Convolution(data, kernel=(2, 2), num_filter=1, name='conv')),
                     ('concat', mx.sym.concat(data, data, dim=0, name='concat')),
                     ('lrn', mx.sym.LRN(data, nsize=1, name='lrn')),
                     ('softmax_activation', mx.sym.SoftmaxActivation(data, name='sa')),
                     ('upsampling', mx.sym.UpSampling(data, scale=2, sample_type='nearest',
                                                      name='up'))):
        names = []
        exe = sym.simple_bind(mx.cpu(), grad_req='null')
        exe.set_monitor_callback(lambda name, arr: names.append(mx.base.py_str(name)), True)
        exe.forward()
        mx.nd.waitall()
        result['all/' + key] = names
    OUT.write_text(json.dumps(result, indent=1) + '\n')


if __name__ == '__main__':
    main()
