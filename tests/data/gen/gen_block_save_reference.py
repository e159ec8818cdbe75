"""Write MXNet 1.9.1's ``Block.save`` files for tests/gluon/test_block_save_load.py.

Run with the real MXNet (not in CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_block_save_reference.py

For each model of tests/gluon/block_save_cases.py (the hybrid one hybridized and run
once), ``tests/data/gluon/block_save/<model>-model.json`` and ``-model.params``, and in
``expected.npz`` its output ``<model>/out`` on ``model_input()``.
"""
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'gluon', 'block_save')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from block_save_cases import MODELS, model_input  # noqa: E402


def main():
    mx.random.seed(3)
    expected = {}
    x = mx.nd.array(model_input())
    for name, make in MODELS.items():
        with mx.name.NameManager():
            net = make(mx)
        net.initialize(mx.init.Xavier())
        if isinstance(net, mx.gluon.HybridBlock):
            net.hybridize()
        expected[name + '/out'] = net(x).asnumpy()
        net.save(os.path.join(OUT, name))
    np.savez(os.path.join(OUT, 'expected.npz'), **expected)
    print('wrote', sorted(os.listdir(OUT)))


if __name__ == '__main__':
    main()
