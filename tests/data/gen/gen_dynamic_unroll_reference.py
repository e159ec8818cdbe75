"""Record MXNet 1.9.1's gluon.contrib.rnn.rnn_cell.dynamic_unroll on a small LSTM and GRU
(tests/gluon/test_dynamic_unroll.py): outputs, states and gradients, imperative and
hybridized, with and without valid_length, layouts TNC and NTC.

    /work/mxnet-venv/bin/python tests/data/gen/gen_dynamic_unroll_reference.py
"""
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'dynamic_unroll_reference.npz')
BATCH, STEPS = 2, 5
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from dynamic_unroll_cases import HIDDEN, INPUT, unrolled  # noqa: E402


def inputs(rng, kind, layout):
    shape = (STEPS, BATCH, INPUT) if layout == 'TNC' else (BATCH, STEPS, INPUT)
    n_states = 2 if kind == 'LSTMCell' else 1
    gates = {'LSTMCell': 4, 'GRUCell': 3}[kind]
    params = {'c_i2h_weight': rng.uniform(-0.5, 0.5, (gates * HIDDEN, INPUT)),
              'c_h2h_weight': rng.uniform(-0.5, 0.5, (gates * HIDDEN, HIDDEN)),
              'c_i2h_bias': rng.uniform(-0.5, 0.5, (gates * HIDDEN,)),
              'c_h2h_bias': rng.uniform(-0.5, 0.5, (gates * HIDDEN,))}
    data = rng.standard_normal(shape)
    states = [rng.standard_normal((BATCH, HIDDEN)) for _ in range(n_states)]
    return params, data, states


def run(kind, layout, valid, hybrid, params, data, states):
    net = unrolled(mx, kind, layout)
    net.initialize()
    for name, value in params.items():
        net.collect_params()[net.prefix + name].set_data(mx.nd.array(value))
    if hybrid:
        net.hybridize()
    x = mx.nd.array(data)
    x.attach_grad()
    st = [mx.nd.array(s) for s in states]
    vl = mx.nd.array([3, 5]) if valid else []
    with mx.autograd.record():
        out, new_states = net(x, st, vl)
        loss = (out * out).sum() + sum((s * 2).sum() for s in new_states)
    loss.backward()
    grads = [net.collect_params()[net.prefix + n].grad().asnumpy() for n in sorted(params)]
    return [out.asnumpy()] + [s.asnumpy() for s in new_states] + [x.grad.asnumpy()] + grads


def main():
    rng = np.random.RandomState(7)
    ref = {}
    for kind in ('LSTMCell', 'GRUCell'):
        for layout in ('TNC', 'NTC'):
            params, data, states = inputs(rng, kind, layout)
            key = '%s_%s' % (kind, layout)
            for name, value in params.items():
                ref['%s/param/%s' % (key, name)] = value
            ref[key + '/data'] = data
            for i, s in enumerate(states):
                ref['%s/state%d' % (key, i)] = s
            for valid in (False, True):
                for hybrid in (False, True):
                    results = run(kind, layout, valid, hybrid, params, data, states)
                    for i, r in enumerate(results):
                        ref['%s/%s/%s/%d' % (key, 'valid' if valid else 'full',
                                            'hybrid' if hybrid else 'nd', i)] = r
    np.savez_compressed(OUT, **ref)
    print('wrote', OUT, len(ref))


if __name__ == '__main__':
    main()
