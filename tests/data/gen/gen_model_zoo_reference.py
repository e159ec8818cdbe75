"""Write tests/data/model_zoo_reference.json.gz and model_zoo_reference.npz with MXNet
1.9.1's gluon.model_zoo.vision (tests/gluon/test_model_zoo.py).

Run with the real MXNet (not in CI):

    MXNET_MKLDNN_ENABLED=0 /work/mxnet-venv/bin/python tests/data/gen/gen_model_zoo_reference.py

Every network is made in a fresh NameManager (its prefix is counted from 0). The JSON
holds, for every model name of ``get_model``, its parameters (name -> shape, 0
for dimensions inferred at the first call) and its repr. The npz holds, for the networks
of tests/gluon/model_zoo_cases.py.BUILT (parameters filled by ``fill``), the output of
one inference forward pass (``<case>/out``), the gradient of sum(out) with respect to the
input (``<case>/grad``, every 4th row and column, to stay small) and the node names of the hybridized graph
(``<case>/nodes``, JSON).
"""
import gzip
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_JSON = os.path.join(HERE, '..', 'model_zoo_reference.json.gz')
OUT_NPZ = os.path.join(HERE, '..', 'model_zoo_reference.npz')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from model_zoo_cases import BUILT, run_filled  # noqa: E402

NAMES = ['resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1', 'resnet152_v1',
         'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2', 'resnet152_v2',
         'vgg11', 'vgg13', 'vgg16', 'vgg19', 'vgg11_bn', 'vgg13_bn', 'vgg16_bn', 'vgg19_bn',
         'alexnet', 'densenet121', 'densenet161', 'densenet169', 'densenet201',
         'squeezenet1.0', 'squeezenet1.1', 'inceptionv3', 'mobilenet1.0', 'mobilenet0.75',
         'mobilenet0.5', 'mobilenet0.25', 'mobilenetv2_1.0', 'mobilenetv2_0.75',
         'mobilenetv2_0.5', 'mobilenetv2_0.25']


def parameter_lists():
    vision = mx.gluon.model_zoo.vision
    record = {}
    for name in NAMES:
        with mx.name.NameManager():     # every network's names counted from 0
            net = vision.get_model(name)
        record[name] = {'params': [[k, list(p.shape)] for k, p in net.collect_params().items()],
                        'repr': repr(net)}
    with open(OUT_JSON, 'wb') as raw, gzip.GzipFile(fileobj=raw, mode='wb', mtime=0) as f:
        f.write(json.dumps(record, sort_keys=True).encode())
    print('wrote %s (%d bytes)' % (OUT_JSON, os.path.getsize(OUT_JSON)))


def built_networks():
    arrays = {}
    for case in BUILT:
        out, grad, nodes = run_filled(mx, case)
        arrays[case + '/out'] = out
        arrays[case + '/grad'] = grad
        arrays[case + '/nodes'] = np.array(json.dumps(nodes))
    np.savez_compressed(OUT_NPZ, **arrays)
    print('wrote %s (%d bytes)' % (OUT_NPZ, os.path.getsize(OUT_NPZ)))


if __name__ == '__main__':
    parameter_lists()
    built_networks()
