"""Write tests/data/ops_legacy_reference.npz and ops_legacy_reference.json: forward outputs,
input gradients and updated moving statistics of MXNet 1.9.1's *_v1 operators for the
cases in tests/ops/legacy_cases.py, and the symbol JSON of a LeNet built from them.
Run with /work/mxvenv/bin/python (MKLDNN off so that the reference CPU kernels run)."""
import json
import os
import pathlib
import sys

os.environ['MXNET_MKLDNN_ENABLED'] = '0'
import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2] / 'ops'))
from legacy_cases import CASES, lenet_v1  # noqa: E402

rng = np.random.default_rng(7)
arrays = {}
for name, build, shape in CASES:
    with mx.name.NameManager():
        sym = build(mx)
    exe = sym.simple_bind(mx.cpu(), data=shape, type_dict={'data': np.float32})
    for key, value in sorted(exe.arg_dict.items()):
        value[:] = rng.standard_normal(value.shape)
        arrays['%s/in/%s' % (name, key)] = value.asnumpy()
    for key, value in sorted(exe.aux_dict.items()):
        value[:] = rng.uniform(0.5, 1.5, value.shape)
        arrays['%s/aux0/%s' % (name, key)] = value.asnumpy()
    exe.forward(is_train=True)
    heads = []
    for i, out in enumerate(exe.outputs):
        arrays['%s/out/%d' % (name, i)] = out.asnumpy()
        grad = rng.standard_normal(out.shape) if i == 0 else np.zeros(out.shape)
        arrays['%s/head/%d' % (name, i)] = grad
        heads.append(mx.nd.array(grad, dtype=np.float32))
    exe.backward(heads)
    for key, value in sorted(exe.grad_dict.items()):
        arrays['%s/grad/%s' % (name, key)] = value.asnumpy()
    for key, value in sorted(exe.aux_dict.items()):
        arrays['%s/aux1/%s' % (name, key)] = value.asnumpy()
out = HERE.parents[1]
np.savez_compressed(out / 'ops_legacy_reference.npz', **arrays)
with mx.name.NameManager():
    graph = lenet_v1(mx)
(out / 'ops_legacy_reference.json').write_text(json.dumps({
    'lenet_v1': graph.tojson(),
    'lenet_v1_shapes': graph.infer_shape(data=(2, 1, 10, 10))[0],
    'lenet_v1_arguments': graph.list_arguments(),
    'lenet_v1_aux': graph.list_auxiliary_states()}, indent=1) + '\n')
