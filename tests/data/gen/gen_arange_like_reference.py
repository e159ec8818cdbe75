"""Reference values of mx.nd.contrib.arange_like from real MXNet 1.9.1.

Run with the MXNet venv (never a symmod dependency):
    /work/mxnet-venv/bin/python tests/data/gen/gen_arange_like_reference.py
writes tests/data/arange_like_reference.npz: for each case ``<name>__out`` and the case's
parameters as JSON in ``<name>__params``, input shape in ``<name>__shape``, dtype in
``<name>__dtype``.
"""
import json
import os

import mxnet as mx
import numpy as np

CASES = {
    'whole_shape': ((2, 3), 'float32', {}),
    'start_step': ((3, 4), 'float32', {'start': 0.5, 'step': 0.1}),
    'axis0': ((10, 20), 'float64', {'axis': 0, 'start': 1, 'step': 0.01}),
    'axis_last_repeat': ((3, 6), 'float32', {'axis': -1, 'repeat': 2, 'step': 0.5}),
    'repeat_3d': ((2, 3, 4), 'float32', {'repeat': 3, 'start': -2}),
    'int32_negative_step': ((4, 5), 'int32', {'start': 7, 'step': -2}),
    'int64_axis1': ((2, 7), 'int64', {'axis': 1, 'start': 3, 'step': 3}),
    'float16': ((5, 6), 'float16', {'start': 100, 'step': 0.3}),
}


def main():
    out = {}
    for name, (shape, dtype, params) in CASES.items():
        data = mx.nd.ones(shape, dtype=dtype)
        out[name + '__out'] = mx.nd.contrib.arange_like(data, **params).asnumpy()
        out[name + '__params'] = np.array(json.dumps(params))
        out[name + '__shape'] = np.array(shape)
        out[name + '__dtype'] = np.array(dtype)
    path = os.path.join(os.path.dirname(__file__), '..', 'arange_like_reference.npz')
    np.savez(path, **out)


if __name__ == '__main__':
    main()
