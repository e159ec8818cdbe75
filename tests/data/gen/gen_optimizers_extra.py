"""Reference numbers from MXNet 1.9.1 for what optimizers.json does not cover.

Run with the MXNet 1.9.1 environment (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_optimizers_extra.py

Writes tests/data/mxnet-reference/optimizers_extra.json and .npz:

* ``cases``: optimizers driven through ``mx.optimizer.get_updater`` for several steps,
  possibly with several indices per call (LAMB, LARS, GroupAdaGrad, LBSGD warmup
  strategies, ccSGD, multi-index SGD/Adam/Nadam with schedulers and lr_mult).
* ``ops``: one call of each fused update operator of ``mx.nd`` (and contrib adamw),
  with its inputs and every array it writes.
"""
import json
import os

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(__file__), '..', 'mxnet-reference')
ARRAYS = {}


def put(key, value):
    ARRAYS[key] = np.asarray(value)
    return key


def tensors(seed, shapes, dtype='float32'):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, s).astype(dtype) for s in shapes]


def make_scheduler(spec):
    if spec is None:
        return None
    return getattr(mx.lr_scheduler, spec['class'])(**spec['kwargs'])


def run_case(name, optimizer, kwargs, shapes, calls, dtype='float32', idx2name=None,
             scheduler=None, seed=0):
    """``calls``: list of index lists, one updater call each."""
    kw = dict(kwargs)
    if idx2name is not None:
        kw['param_idx2name'] = idx2name
    if scheduler is not None:
        kw['lr_scheduler'] = make_scheduler(scheduler)
    opt = mx.optimizer.create(optimizer, **kw)
    upd = mx.optimizer.get_updater(opt)
    w0 = tensors(seed, shapes, dtype)
    weights = [mx.nd.array(w, dtype=dtype) for w in w0]
    case = {'name': name, 'optimizer': optimizer, 'kwargs': kwargs, 'dtype': dtype,
            'shapes': [list(s) for s in shapes], 'param_idx2name': idx2name,
            'lr_scheduler': scheduler, 'calls': calls, 'w0': [], 'steps': []}
    for i, w in enumerate(w0):
        case['w0'].append(put('%s/w0_%d' % (name, i), w))
    rng = np.random.RandomState(seed + 1)
    for step, indices in enumerate(calls):
        grads = [rng.normal(0, 1, shapes[i]).astype(dtype) for i in indices]
        gkeys = [put('%s/s%d_g%d' % (name, step, i), g) for i, g in zip(indices, grads)]
        nd_grads = [mx.nd.array(g, dtype=dtype) for g in grads]
        if len(indices) == 1:
            upd(indices[0], nd_grads[0], weights[indices[0]])
        else:
            upd(list(indices), nd_grads, [weights[i] for i in indices])
        case['steps'].append({
            'grads': gkeys,
            'weights': [put('%s/s%d_w%d' % (name, step, i), w.asnumpy())
                        for i, w in enumerate(weights)],
            'num_update': opt.num_update,
            'counts': {str(k): v for k, v in opt._index_update_count.items()}})
    return case


def op_case(name, fn, inputs, kwargs, written, out_idx=None):
    """Call ``fn(*inputs, **kwargs)``; record inputs and the arrays in ``written``.

    ``out_idx``: inputs passed as ``out=`` (in-place outputs, needed by multi_* ops).
    """
    nd_inputs = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    extra = {}
    if out_idx is not None:
        extra['out'] = [nd_inputs[i] for i in out_idx]
    result = fn(*nd_inputs, **kwargs, **extra)
    results = result if isinstance(result, (list, tuple)) else [result]
    entry = {'name': name, 'kwargs': kwargs, 'out_idx': out_idx,
             'inputs': [put('op/%s/in%d' % (name, i), x) for i, x in enumerate(inputs)],
             'outputs': [put('op/%s/out%d' % (name, i), r.asnumpy())
                         for i, r in enumerate(results)],
             'written': {str(i): put('op/%s/written%d' % (name, i), nd_inputs[i].asnumpy())
                         for i in written}}
    return entry


def main():
    s2 = [(5, 7), (3,)]
    cases = []
    for tag, kw in [('plain', {}), ('wd', {'wd': 0.01}),
                    ('rescale_clip', {'rescale_grad': 0.5, 'clip_gradient': 0.1}),
                    ('bounds', {'lower_bound': 0.5, 'upper_bound': 1.5}),
                    ('no_bias_correction', {'bias_correction': False})]:
        cases.append(run_case('lamb__' + tag, 'lamb', dict(learning_rate=0.01, **kw),
                              s2, [[0, 1]] * 4))
    cases.append(run_case('lamb__single_index', 'lamb', {'learning_rate': 0.01}, s2,
                          [[0], [1], [0], [1]]))
    names = {0: 'fc_weight', 1: 'fc_bias'}
    cases.append(run_case('lars__mom', 'lars', {'learning_rate': 0.1, 'momentum': 0.9,
                                                'wd': 0.01, 'eta': 0.01},
                          s2, [[0, 1]] * 4, idx2name=names))
    cases.append(run_case('lars__sched', 'lars', {'learning_rate': 0.1, 'momentum': 0.9,
                                                  'eta': 0.01, 'rescale_grad': 0.5,
                                                  'clip_gradient': 0.5},
                          s2, [[0, 1]] * 5, idx2name=names,
                          scheduler={'class': 'FactorScheduler',
                                     'kwargs': {'step': 2, 'factor': 0.5, 'base_lr': 0.1}}))
    cases.append(run_case('lars__nomom', 'lars', {'learning_rate': 0.1, 'eta': 0.01},
                          s2, [[0, 1]] * 3, idx2name=names))
    cases.append(run_case('groupadagrad__plain', 'groupadagrad', {'learning_rate': 0.1},
                          [(5, 7)], [[0]] * 4))
    cases.append(run_case('groupadagrad__rescale_clip', 'groupadagrad',
                          {'learning_rate': 0.1, 'rescale_grad': 0.5, 'clip_gradient': 0.1},
                          [(5, 7)], [[0]] * 4))
    for strategy in ['linear', 'power2', 'sqrt', 'lars', 'none']:
        cases.append(run_case('lbsgd__' + strategy, 'lbsgd',
                              {'learning_rate': 0.1, 'momentum': 0.9, 'batch_scale': 2,
                               'warmup_strategy': strategy, 'warmup_epochs': 2,
                               'updates_per_epoch': 2, 'wd': 0.01}, [(5, 7)], [[0]] * 8))
    cases.append(run_case('lbsgd__sched', 'lbsgd', {'learning_rate': 0.1, 'momentum': 0.9},
                          [(5, 7)], [[0]] * 5,
                          scheduler={'class': 'FactorScheduler',
                                     'kwargs': {'step': 2, 'factor': 0.5, 'base_lr': 0.1}}))
    cases.append(run_case('ccsgd__mom', 'ccsgd', {'learning_rate': 0.1, 'momentum': 0.9,
                                                  'wd': 0.01}, [(5, 7)], [[0]] * 4))
    # multi-index calls: aggregation chunks, dtype groups, schedulers, lr/wd multipliers
    s6 = [(4, 3), (5,), (2, 2, 2), (7,), (3, 3), (6,)]
    cases.append(run_case('sgd_mom__multi6_sched', 'sgd',
                          {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01,
                           'begin_num_update': 2},
                          s6, [[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0],
                               [0, 2, 4], [0, 1, 2, 3, 4, 5]],
                          idx2name={0: 'a_weight', 1: 'a_bias', 2: 'b_weight', 3: 'b_bias',
                                    4: 'c_gamma', 5: 'c_beta'},
                          scheduler={'class': 'FactorScheduler',
                                     'kwargs': {'step': 3, 'factor': 0.5, 'base_lr': 0.1}}))
    cases.append(run_case('sgd__multi6_fp16_mp', 'sgd',
                          {'learning_rate': 0.1, 'momentum': 0.9, 'multi_precision': True},
                          s6, [[0, 1, 2, 3, 4, 5]] * 3, dtype='float16'))
    cases.append(run_case('adam__multi_uneven_sched', 'adam', {'learning_rate': 0.01, 'wd': 0.1},
                          s2, [[0], [0, 1], [1, 0], [0, 1]],
                          idx2name={0: 'x_weight', 1: 'x_bias'},
                          scheduler={'class': 'MultiFactorScheduler',
                                     'kwargs': {'step': [1, 2], 'factor': 0.5, 'base_lr': 0.01}}))
    cases.append(run_case('nadam__multi', 'nadam', {'learning_rate': 0.01}, s2, [[0, 1]] * 3))
    cases.append(run_case('adam__mp_fp16', 'adam', {'learning_rate': 0.01,
                                                    'multi_precision': True},
                          [(5, 7)], [[0]] * 3, dtype='float16'))
    cases.append(run_case('nag__mp_fp16', 'nag', {'learning_rate': 0.1, 'momentum': 0.9,
                                                  'multi_precision': True, 'wd': 0.01},
                          [(5, 7)], [[0]] * 3, dtype='float16'))

    rng = np.random.RandomState(7)

    def r(*shape, dtype='float32', low=-1, high=1):
        return rng.uniform(low, high, shape).astype(dtype)

    shape = (4, 6)
    ops = []
    clip = {'rescale_grad': 0.7, 'clip_gradient': 0.3}
    ops.append(op_case('sgd_update', mx.nd.sgd_update, [r(*shape), r(*shape)],
                       dict(lr=0.1, wd=0.01, **clip), []))
    ops.append(op_case('sgd_mom_update', mx.nd.sgd_mom_update,
                       [r(*shape), r(*shape), r(*shape)],
                       dict(lr=0.1, momentum=0.9, wd=0.01, **clip), [2]))
    ops.append(op_case('mp_sgd_update', mx.nd.mp_sgd_update,
                       [r(*shape, dtype='float16'), r(*shape, dtype='float16'), r(*shape)],
                       dict(lr=0.1, wd=0.01, **clip), [2]))
    ops.append(op_case('mp_sgd_mom_update', mx.nd.mp_sgd_mom_update,
                       [r(*shape, dtype='float16'), r(*shape, dtype='float16'), r(*shape),
                        r(*shape)], dict(lr=0.1, momentum=0.9, wd=0.01), [2, 3]))
    ops.append(op_case('nag_mom_update', mx.nd.nag_mom_update,
                       [r(*shape), r(*shape), r(*shape)],
                       dict(lr=0.1, momentum=0.9, wd=0.01, **clip), [2]))
    ops.append(op_case('mp_nag_mom_update', mx.nd.mp_nag_mom_update,
                       [r(*shape, dtype='float16'), r(*shape, dtype='float16'), r(*shape),
                        r(*shape)], dict(lr=0.1, momentum=0.9, wd=0.01), [2, 3]))
    ops.append(op_case('adam_update', mx.nd.adam_update,
                       [r(*shape), r(*shape), r(*shape), r(*shape, low=0)],
                       dict(lr=0.01, wd=0.01, **clip), [2, 3]))
    ops.append(op_case('rmsprop_update', mx.nd.rmsprop_update,
                       [r(*shape), r(*shape), r(*shape, low=0)],
                       dict(lr=0.01, wd=0.01, clip_weights=0.5, **clip), [2]))
    ops.append(op_case('rmspropalex_update', mx.nd.rmspropalex_update,
                       [r(*shape), r(*shape), r(*shape, low=1, high=2), r(*shape), r(*shape)],
                       dict(lr=0.01, wd=0.01, **clip), [2, 3, 4]))
    ops.append(op_case('ftrl_update', mx.nd.ftrl_update,
                       [r(*shape), r(*shape), r(*shape), r(*shape, low=0)],
                       dict(lr=0.1, wd=0.01, **clip), [2, 3]))
    ops.append(op_case('ftml_update', mx.nd.ftml_update,
                       [r(*shape), r(*shape), r(*shape, low=0.5), r(*shape, low=0), r(*shape)],
                       dict(lr=0.1, wd=0.01, t=3, rescale_grad=0.7, clip_grad=0.3), [2, 3, 4]))
    ops.append(op_case('signsgd_update', mx.nd.signsgd_update, [r(*shape), r(*shape)],
                       dict(lr=0.1, wd=0.01, **clip), []))
    ops.append(op_case('signum_update', mx.nd.signum_update,
                       [r(*shape), r(*shape), r(*shape)],
                       dict(lr=0.1, momentum=0.9, wd=0.01, wd_lh=0.1, **clip), [2]))
    shapes3 = [(3, 4), (5,), (2, 3)]
    data = []
    for s in shapes3:
        data += [r(*s), r(*s)]
    ops.append(op_case('multi_sgd_update', mx.nd.multi_sgd_update, data,
                       dict(lrs=[0.1, 0.2, 0.3], wds=[0.0, 0.01, 0.02], num_weights=3, **clip),
                       [], out_idx=[0, 2, 4]))
    data = []
    for s in shapes3:
        data += [r(*s), r(*s), r(*s)]
    ops.append(op_case('multi_sgd_mom_update', mx.nd.multi_sgd_mom_update, data,
                       dict(lrs=[0.1, 0.2, 0.3], wds=[0.0, 0.01, 0.02], momentum=0.9,
                            num_weights=3), [2, 5, 8], out_idx=[0, 3, 6]))
    data = []
    for s in shapes3:
        data += [r(*s, dtype='float16'), r(*s, dtype='float16'), r(*s)]
    ops.append(op_case('multi_mp_sgd_update', mx.nd.multi_mp_sgd_update, data,
                       dict(lrs=[0.1, 0.2, 0.3], wds=[0.0, 0.01, 0.02], num_weights=3), [2, 5, 8],
                       out_idx=[0, 3, 6]))
    data = []
    for s in shapes3:
        data += [r(*s, dtype='float16'), r(*s, dtype='float16'), r(*s), r(*s)]
    ops.append(op_case('multi_mp_sgd_mom_update', mx.nd.multi_mp_sgd_mom_update, data,
                       dict(lrs=[0.1, 0.2, 0.3], wds=[0.0, 0.01, 0.02], momentum=0.9,
                            num_weights=3, **clip), [2, 3, 6, 7, 10, 11], out_idx=[0, 4, 8]))
    data = []
    for s in shapes3:
        data += [r(*s), r(*s), r(*s)]
    data += [np.array([0.1, 0.2, 0.3], dtype='float32'), np.array([0.0, 0.01, 0.02], 'float32')]
    ops.append(op_case('preloaded_multi_sgd_mom_update', mx.nd.preloaded_multi_sgd_mom_update,
                       data, dict(momentum=0.9, num_weights=3, **clip), [2, 5, 8],
                       out_idx=[0, 3, 6]))
    ops.append(op_case('multi_sum_sq', mx.nd.multi_sum_sq, [r(3, 4), r(5), r(2, 3)],
                       dict(num_arrays=3), []))
    ops.append(op_case('multi_lars', mx.nd.multi_lars,
                       [np.array([0.1, 0.2, 0.3, 0.4], 'float32'),
                        np.array([4.0, 0.0, 9.0, 1.0], 'float32'),
                        np.array([1.0, 2.0, 0.0, 0.25], 'float32'),
                        np.array([0.01, 0.0, 0.1, 0.001], 'float32')],
                       dict(eta=0.01, eps=1e-8, rescale_grad=0.5), []))
    ops.append(op_case('lamb_update_phase1', mx.nd.lamb_update_phase1,
                       [r(*shape), r(*shape), r(*shape), r(*shape, low=0)],
                       dict(t=3, wd=0.01, **clip), [2, 3]))
    ops.append(op_case('lamb_update_phase2', mx.nd.lamb_update_phase2,
                       [r(*shape), r(*shape), np.array([2.0], 'float32'),
                        np.array([0.5], 'float32')],
                       dict(lr=0.01, lower_bound=0.1, upper_bound=1.5), []))
    ops.append(op_case('adamw_update', mx.nd.contrib.adamw_update,
                       [r(*shape), r(*shape), r(*shape), r(*shape, low=0),
                        np.array([0.7], 'float32')],
                       dict(lr=0.01, eta=0.5, wd=0.01, clip_gradient=0.3), [2, 3]))
    ops.append(op_case('adamw_update_skip', mx.nd.contrib.adamw_update,
                       [r(*shape), r(*shape), r(*shape), r(*shape, low=0),
                        np.array([np.inf], 'float32')],
                       dict(lr=0.01, eta=0.5, wd=0.01), [2, 3]))
    ops.append(op_case('mp_adamw_update', mx.nd.contrib.mp_adamw_update,
                       [r(*shape, dtype='float16'), r(*shape, dtype='float16'), r(*shape),
                        r(*shape, low=0), r(*shape), np.array([0.7], 'float32')],
                       dict(lr=0.01, eta=0.5, wd=0.01), [2, 3, 4]))

    with open(os.path.join(OUT, 'optimizers_extra.json'), 'w') as f:
        json.dump({'generator': 'tests/data/gen/gen_optimizers_extra.py',
                   'mxnet_version': mx.__version__, 'cases': cases, 'ops': ops}, f, indent=1)
    np.savez_compressed(os.path.join(OUT, 'optimizers_extra.npz'), **ARRAYS)


if __name__ == '__main__':
    main()
