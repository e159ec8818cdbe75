"""Record MXNet 1.9.1's gluon.contrib.cnn deformable layers (tests/gluon/test_deformable_layers.py).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_deformable_layers_reference.py

Writes tests/data/deformable_layers_reference.npz: per case the parameters
(``<case>/param/<name>``, in MXNet's order: ``<case>/names``), the repr, the output and
(not for the modulated layer, whose offsets MXNet's CPU build cannot differentiate) the
gradient of sum(output) with respect to the input.
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from deformable_cases import LAYERS, run  # noqa: E402


def main():
    record = {}
    for case in LAYERS:
        res = run(mx, case)
        record[case + '/out'] = res['out']
        if res['grad'] is not None:
            record[case + '/grad'] = res['grad']
        record[case + '/repr'] = np.array(res['repr'])
        record[case + '/names'] = np.array(json.dumps(list(res['params'])))
        for name, value in res['params'].items():
            record['%s/param/%s' % (case, name)] = value
    path = os.path.join(HERE, '..', 'deformable_layers_reference.npz')
    np.savez_compressed(path, **record)
    print('wrote', path, os.path.getsize(path))


if __name__ == '__main__':
    main()
