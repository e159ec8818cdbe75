"""Record MXNet 1.9.1's multi-tensor contrib updates (tests/optimizer/test_fused_contrib.py):
multi_adamw_update, multi_mp_adamw_update, multi_lamb_update and multi_mp_lamb_update
(MXNet 1.9.1 has no dense CPU group_adagrad_update to record).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_fused_contrib_reference.py

Writes tests/data/fused_contrib_reference.npz: for case ``<c>``, ``<c>/meta`` (JSON: the
function, its keyword arguments, the list names and how many tensors), the inputs
``<c>/in/<list>/<k>`` and what MXNet left after the call: ``<c>/after/<list>/<k>`` (states
and masters updated in place) and ``<c>/out/<k>`` (the new weights).
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'fused_contrib_reference.npz')
RNG = np.random.RandomState(42)
SHAPES = [(3, 4), (5,), (2, 3, 2)]


def arrays(dtype=np.float32, low=-1, high=1, shapes=SHAPES):
    return [RNG.uniform(low, high, s).astype(dtype) for s in shapes]


def record(name, func, lists, kwargs, positional_after=()):
    """Call ``mx.nd.contrib.<func>`` with the lists (then ``positional_after``) and kwargs."""
    nd_lists = {k: [mx.nd.array(a, dtype=a.dtype) for a in v] for k, v in lists.items()}
    out = [mx.nd.zeros(a.shape, dtype=a.dtype) for a in lists['weights']]
    getattr(mx.nd.contrib, func)(*nd_lists.values(), *positional_after, out=out, **kwargs)
    rec = {name + '/meta': np.array(json.dumps({
        'func': func, 'lists': list(lists), 'kwargs': kwargs,
        'after': [float(x) if not isinstance(x, list) else x for x in positional_after],
        'count': len(lists['weights'])}))}
    for key, values in lists.items():
        for k, (before, after) in enumerate(zip(values, nd_lists[key])):
            rec['%s/in/%s/%d' % (name, key, k)] = before
            rec['%s/after/%s/%d' % (name, key, k)] = after.asnumpy()
    for k, o in enumerate(out):
        rec['%s/out/%d' % (name, k)] = o.asnumpy()
    return rec


def adamw_lists(mp):
    weights32 = arrays()
    lists = {'weights': [w.astype(np.float16) for w in weights32] if mp else weights32,
             'grads': [g.astype(np.float16) for g in arrays()] if mp else arrays(),
             'mean': arrays(low=0), 'var': arrays(low=0, high=0.5)}
    if mp:
        lists['weights32'] = weights32
    return lists


def main():
    rec = {}
    hyper = {'lrs': [0.1, 0.05, 0.2], 'wds': [0.01, 0.0, 0.1], 'etas': [1.0, 0.9, 0.5],
             'beta1': 0.8, 'beta2': 0.99, 'epsilon': 1e-6}
    rec.update(record('adamw', 'multi_adamw_update', adamw_lists(False), hyper, [0.7]))
    rec.update(record('adamw_clip', 'multi_adamw_update', adamw_lists(False),
                      dict(hyper, clip_gradient=0.3), [2.0]))
    rec.update(record('adamw_nan', 'multi_adamw_update', adamw_lists(False), hyper,
                      [float('nan')]))
    rec.update(record('mp_adamw', 'multi_mp_adamw_update', adamw_lists(True), hyper, [0.7]))

    lamb = {'step_count': [1, 3, 10], 'lrs': [0.1, 0.05, 0.2], 'wds': [0.01, 0.0, 0.1]}
    for name, extra in (('lamb', {}),
                        ('lamb_bounds', {'lower_bound': 0.5, 'upper_bound': 1.5,
                                         'clip_gradient': 0.4, 'rescale_grad': 0.8}),
                        ('lamb_no_bias', {'bias_correction': False, 'beta1': 0.7})):
        lists = adamw_lists(False)
        rec.update(record(name, 'multi_lamb_update', lists, dict(lamb, **extra)))
    rec.update(record('mp_lamb', 'multi_mp_lamb_update', adamw_lists(True), lamb))

    np.savez_compressed(OUT, **rec)
    print('wrote %s' % os.path.normpath(OUT))


if __name__ == '__main__':
    main()
