"""Write small optimizer-state pickles with real MXNet 1.9.1 for tests/formats.

Run with the MXNet virtual environment (not part of CI):

    /work/mxvenv/bin/python tests/data/gen/gen_formats_states.py

Outputs, under tests/data/mxnet-reference/generated/:
  adam.states           Updater.get_states() after one adam step on two weights:
                        {0: (mean, var), 1: (mean, var)}
  sgd_mp.states         float16 weight, sgd momentum 0 with multi_precision:
                        {0: (None, float32 master weight)}
  sgd_dump_optimizer.states
                        get_states(dump_optimizer=True): (states, pickled SGD object)
  states_expected.npz   the arrays above, keys '<file stem>/<index>/<item>'
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'mxnet-reference',
                   'generated')


def run_steps(opt, weights, steps=1):
    upd = mx.optimizer.get_updater(opt)
    rng = np.random.RandomState(3)
    for _ in range(steps):
        for i, w in enumerate(weights):
            g = mx.nd.array(rng.normal(size=w.shape), dtype=w.dtype)
            upd(i, g, w)
    return upd


def record(expected, stem, states):
    for idx, state in states.items():
        items = state if isinstance(state, tuple) else (state,)
        for j, item in enumerate(items):
            if item is not None:
                expected['%s/%d/%d' % (stem, idx, j)] = item.asnumpy()


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {}
    rng = np.random.RandomState(0)
    w = [mx.nd.array(rng.uniform(-1, 1, (3, 4))), mx.nd.array(rng.uniform(-1, 1, (5,)))]
    upd = run_steps(mx.optimizer.Adam(learning_rate=0.01), w)
    with open(os.path.join(OUT, 'adam.states'), 'wb') as f:
        f.write(upd.get_states())
    record(expected, 'adam', upd.states)

    w16 = [mx.nd.array(rng.uniform(-1, 1, (2, 3)), dtype='float16')]
    upd = run_steps(mx.optimizer.SGD(learning_rate=0.1, multi_precision=True), w16)
    with open(os.path.join(OUT, 'sgd_mp.states'), 'wb') as f:
        f.write(upd.get_states())
    record(expected, 'sgd_mp', upd.states)

    w = [mx.nd.array(rng.uniform(-1, 1, (2, 2)))]
    upd = run_steps(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), w)
    with open(os.path.join(OUT, 'sgd_dump_optimizer.states'), 'wb') as f:
        f.write(upd.get_states(dump_optimizer=True))

    np.savez(os.path.join(OUT, 'states_expected.npz'), **expected)


if __name__ == '__main__':
    main()
