"""The fused optimizer updates as operators (ops/fused_updates.py): in a bound graph they
compute what the mx.nd functions compute (those are checked against MXNet 1.9.1 in
tests/optimizer), leave the weight input alone, and update the optimizer states in place."""
import numpy as np
import pytest

import symmod as mx
from symmod.ops.fused_updates import UPDATES

TESTED_OPS = set(UPDATES) | {'multi_sum_sq', 'multi_lars'}
RNG = np.random.RandomState(4)
SINGLE = sorted(n for n, layout in UPDATES.items() if layout[0] != 'multi')
MULTI = sorted(n for n, layout in UPDATES.items() if layout[0] == 'multi')


def _params(name):
    params = {'lr': 0.05, 'wd': 0.01, 'rescale_grad': 0.5}
    if 'lamb_update_phase1' in name:
        params = {'t': 3, 'wd': 0.01, 'rescale_grad': 0.5}
    elif name == 'ftml_update':
        params['t'] = 3
    elif 'lamb_update_phase2' in name:
        params = {'lr': 0.05}
    return params


def _value(name, arg, dtype=np.float32):
    if arg in ('r1', 'r2'):
        return RNG.uniform(0.5, 2, (1,)).astype(np.float32)
    if arg in ('n', 'v'):
        return RNG.uniform(0.1, 1, (2, 3)).astype(np.float32)
    return RNG.uniform(-1, 1, (2, 3)).astype(np.float32 if arg == 'weight32' else dtype)


@pytest.mark.parametrize('name', SINGLE)
def test_single_weight_update_in_a_graph_matches_the_nd_function(name):
    arguments, states = UPDATES[name]
    dtype = np.float16 if name.startswith('mp_') else np.float32
    values = {a: _value(name, a, dtype) for a in arguments + states}
    if name.startswith('mp_'):
        values['weight32'] = values['weight'].astype(np.float32)
    params = _params(name)
    sym = getattr(mx.sym, name)(*[mx.sym.var(a) for a in arguments], name='op', **params)
    assert sym.list_arguments() == list(arguments)
    assert sym.list_auxiliary_states() == ['op_' + s for s in states]
    exe = sym.bind(mx.cpu(), {a: mx.nd.array(values[a], dtype=values[a].dtype)
                              for a in arguments},
                   aux_states={'op_' + s: mx.nd.array(values[s], dtype=values[s].dtype)
                               for s in states})
    out = exe.forward()[0].asnumpy()
    nd_arrays = {k: mx.nd.array(v, dtype=v.dtype) for k, v in values.items()}
    want = getattr(mx.nd, name)(*[nd_arrays[a] for a in arguments + states], **params)
    np.testing.assert_allclose(out, want.asnumpy(), rtol=1e-6)
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(exe.arg_dict['weight'].asnumpy(), values['weight'])
    for s in states:        # states move exactly as the function moves them
        np.testing.assert_allclose(exe.aux_dict['op_' + s].asnumpy(), nd_arrays[s].asnumpy(),
                                   rtol=1e-6)


@pytest.mark.parametrize('name', MULTI)
def test_multi_weight_update_matches_the_nd_function(name):
    _, per_weight, trailing = UPDATES[name]
    mp = '_mp_' in name
    arrays = []
    for _ in range(2):
        weight = RNG.uniform(-1, 1, (2, 3)).astype(np.float16 if mp else np.float32)
        group = [weight, RNG.uniform(-1, 1, (2, 3)).astype(weight.dtype)]
        if 'mom' in name:
            group.append(RNG.uniform(-1, 1, (2, 3)).astype(np.float32))
        if mp:
            group.append(weight.astype(np.float32))
        arrays += group
    params = {'num_weights': 2, 'rescale_grad': 0.5}
    if 'mom' in name:
        params['momentum'] = 0.9
    if trailing:
        arrays += [np.array([0.1, 0.2], np.float32), np.array([0.0, 0.01], np.float32)]
    else:
        params.update(lrs=(0.1, 0.2), wds=(0.0, 0.01))
    names = ['x%d' % i for i in range(len(arrays))]
    sym = getattr(mx.sym, name)(*[mx.sym.var(n) for n in names], **params)
    exe = sym.bind(mx.cpu(), {n: mx.nd.array(a, dtype=a.dtype) for n, a in zip(names, arrays)})
    outs = [o.asnumpy() for o in exe.forward()]
    nd_arrays = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    wants = getattr(mx.nd, name)(*nd_arrays, **params)
    for got, want in zip(outs, wants):
        np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-6)
    for n, a in zip(names, nd_arrays):      # states (moms, master weights) updated in place
        np.testing.assert_allclose(exe.arg_dict[n].asnumpy(),
                                   a.asnumpy() if a is not nd_arrays[0] else arrays[0],
                                   rtol=1e-6)


def test_multi_sum_sq_and_multi_lars_operators():
    a, b = RNG.randn(2, 3).astype(np.float32), RNG.randn(4).astype(np.float32)
    sym = mx.sym.multi_sum_sq(mx.sym.var('a'), mx.sym.var('b'), num_arrays=2)
    out = sym.eval(a=mx.nd.array(a), b=mx.nd.array(b))[0].asnumpy()
    np.testing.assert_allclose(out, [np.square(a).sum(), np.square(b).sum()], rtol=1e-5)
    values = {k: RNG.uniform(0.5, 2, (3,)).astype(np.float32)
              for k in ('lrs', 'weights_sum_sq', 'grads_sum_sq', 'wds')}
    sym = mx.sym.multi_lars(*[mx.sym.var(k) for k in values], eta=0.9, eps=1e-8)
    out = sym.eval(**{k: mx.nd.array(v) for k, v in values.items()})[0].asnumpy()
    want = mx.nd.multi_lars(*[mx.nd.array(v) for v in values.values()], eta=0.9, eps=1e-8)
    np.testing.assert_allclose(out, want.asnumpy(), rtol=1e-6)


def test_updates_are_not_differentiable():
    sym = mx.sym.sgd_update(mx.sym.var('weight'), mx.sym.var('grad'), lr=0.1)
    with pytest.raises(mx.MXNetError, match='non-differentiable'):
        sym.simple_bind(mx.cpu(), weight=(2,), grad=(2,))
