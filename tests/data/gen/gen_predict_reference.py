"""Record what MXNet 1.9.1's ``Module.predict`` returns for each of its options, for
tests/module/test_predict_semantics.py.

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_predict_reference.py

Writes tests/data/predict_reference.npz: the parameters and data used, and for every
case the returned arrays (``<case>/<batch>/<output>``) plus the structure of the result
(``<case>/structure``: 'array', 'list' or 'nested', with the counts).
"""
import json
import os

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'predict_reference.npz')


def network(two_outputs):
    """6 -> 5 (relu) -> 3 with softmax; with ``two_outputs`` the hidden layer is a
    second output."""
    data = mx.sym.var('data')
    hidden = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=5, name='fc1'),
                               act_type='relu', name='relu1')
    out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(hidden, num_hidden=3, name='fc2'),
                               name='softmax')
    return mx.sym.Group([out, hidden]) if two_outputs else out


def record(store, name, result):
    """Store ``result`` (NDArray, list of NDArray or list of lists) under ``name``."""
    if isinstance(result, mx.nd.NDArray):
        store[name + '/0/0'] = result.asnumpy()
        structure = ['array']
    elif result and isinstance(result[0], list):
        for b, outs in enumerate(result):
            for o, out in enumerate(outs):
                store['%s/%d/%d' % (name, b, o)] = out.asnumpy()
        structure = ['nested', len(result), len(result[0])]
    else:
        for o, out in enumerate(result):
            store['%s/0/%d' % (name, o)] = out.asnumpy()
        structure = ['list', len(result)]
    store[name + '/structure'] = np.array(json.dumps(structure))


def main():
    rng = np.random.RandomState(0)
    params = {'fc1_weight': rng.randn(5, 6), 'fc1_bias': rng.randn(5),
              'fc2_weight': rng.randn(3, 5), 'fc2_bias': rng.randn(3)}
    params = {k: v.astype(np.float32) for k, v in params.items()}
    data = rng.randn(13, 6).astype(np.float32)
    store = {'data': data}
    store.update({'param/' + k: v for k, v in params.items()})

    for two in (False, True):
        tag = 'two_' if two else 'one_'
        for batch_size in (1, 4, 13):
            mod = mx.mod.Module(network(two))
            mod.bind(data_shapes=[('data', (batch_size, 6))], for_training=False)
            mod.set_params({k: mx.nd.array(v) for k, v in params.items()}, {})
            it = mx.io.NDArrayIter(data, batch_size=batch_size)
            pre = '%sbs%d_' % (tag, batch_size)
            record(store, pre + 'default', mod.predict(it))
            record(store, pre + 'list', mod.predict(it, always_output_list=True))
            record(store, pre + 'nomerge', mod.predict(it, merge_batches=False))
            record(store, pre + 'num_batch2', mod.predict(it, num_batch=2))
            it.reset()
            it.next()
            record(store, pre + 'noreset_after_one', mod.predict(it, reset=False))
            record(store, pre + 'noreset_exhausted', mod.predict(it, reset=False))
            record(store, pre + 'again', mod.predict(it))
        mod = mx.mod.Module(network(two))
        mod.bind(data_shapes=[('data', (4, 6))], for_training=False)
        mod.set_params({k: mx.nd.array(v) for k, v in params.items()}, {})
        for handle in ('discard', 'roll_over'):
            it = mx.io.NDArrayIter(data, batch_size=4, last_batch_handle=handle)
            record(store, '%sbs4_%s_first' % (tag, handle), mod.predict(it))
            record(store, '%sbs4_%s_second' % (tag, handle),
                   mod.predict(it, merge_batches=False))
    np.savez_compressed(OUT, **store)
    print('wrote', OUT, len(store), 'arrays')


if __name__ == '__main__':
    main()
