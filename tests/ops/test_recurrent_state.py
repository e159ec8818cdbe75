"""The fused RNN operator keeps what backward needs in per-node state, not in a hidden
output: its symbol JSON is MXNet 1.9.1's byte for byte
(tests/data/gen/gen_rnn_symbol_json.py), and executors, buckets and recorded calls each
keep their own state."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import assert_almost_equal

from rnn_symbol_cases import GRAPHS

TESTED_OPS = {'RNN'}

JSON_REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                        'rnn_symbol_json_reference.json')


@pytest.fixture(scope='module')
def json_ref():
    with open(JSON_REF) as f:
        return json.load(f)


@pytest.mark.parametrize('key', sorted(GRAPHS))
def test_symbol_json_is_mxnet_bytes(json_ref, key):
    with mx.name.NameManager():
        ours = GRAPHS[key](mx).tojson()
    assert ours == json_ref[key]
    # and MXNet's file reads back and re-saves unchanged
    assert mx.sym.load_json(json_ref[key]).tojson() == json_ref[key]


@pytest.mark.parametrize('mode,state_outputs,count', [
    ('lstm', False, 1), ('lstm', True, 3), ('gru', True, 2), ('rnn_tanh', False, 1)])
def test_outputs_are_mxnet_outputs_only(mode, state_outputs, count):
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=3, num_layers=1, mode=mode,
                     state_outputs=state_outputs, name='rnn')
    assert len(sym.list_outputs()) == count
    # node_row_ptr counts every output of a node, hidden ones included
    row_ptr = json.loads(sym.tojson())['node_row_ptr']
    assert row_ptr[-1] - row_ptr[-2] == count
    assert len(sym.get_internals().list_outputs()) == len(sym.list_inputs()) + count


# ---- state isolation --------------------------------------------------------------------
def lstm_symbol():
    return mx.sym.RNN(mx.sym.var('data'), state_size=3, num_layers=2, bidirectional=True,
                      mode='lstm', state_outputs=True, name='rnn')


def random_args(sym, T, N, rng):
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape(data=(T, N, 4))[0]))
    return {k: rng.uniform(-0.7, 0.7, s) for k, s in shapes.items()}


def heads_for(sym, T, N, rng):
    return [rng.uniform(-1, 1, s) for s in sym.infer_shape(data=(T, N, 4))[1]]


def fresh_gradients(sym, args, heads):
    """Forward/backward on a newly bound executor of its own: the expected gradients."""
    exe = sym.bind(mx.cpu(), {k: mx.nd.array(v, dtype=np.float64) for k, v in args.items()},
                   args_grad={k: mx.nd.zeros(v.shape, dtype=np.float64)
                              for k, v in args.items()})
    exe.forward(is_train=True)
    exe.backward([mx.nd.array(h, dtype=np.float64) for h in heads])
    return {k: g.asnumpy() for k, g in exe.grad_dict.items()}


@pytest.mark.parametrize('second_length', [5, 2])
def test_bucket_executors_keep_their_own_state(second_length):
    """A second executor sharing memory with the first runs its forward between the
    first one's forward and backward; the first one's gradients stay right."""
    rng = np.random.RandomState(0)
    sym = lstm_symbol()
    first = sym.simple_bind(mx.cpu(), type_dict={'data': np.float64}, data=(5, 2, 4))
    second = sym.simple_bind(mx.cpu(), type_dict={'data': np.float64},
                             data=(second_length, 2, 4), shared_exec=first)
    args_a = random_args(sym, 5, 2, rng)
    args_b = random_args(sym, second_length, 2, rng)
    heads_a, heads_b = heads_for(sym, 5, 2, rng), heads_for(sym, second_length, 2, rng)
    first.forward(is_train=True, **args_a)
    second.forward(is_train=True, **args_b)
    first.backward([mx.nd.array(h, dtype=np.float64) for h in heads_a])
    second.backward([mx.nd.array(h, dtype=np.float64) for h in heads_b])
    for exe, args, heads in ((first, args_a, heads_a), (second, args_b, heads_b)):
        expected = fresh_gradients(sym, args, heads)
        for name, grad in exe.grad_dict.items():
            assert_almost_equal(grad.asnumpy(), expected[name], rtol=1e-12, atol=1e-12)


def test_executor_reuses_its_state_across_steps():
    sym = lstm_symbol()
    exe = sym.simple_bind(mx.cpu(), data=(4, 2, 4))
    op = next(step[0] for step in exe._forward_steps if step[0].name == 'RNN')
    space = op._reserve_space
    assert space is not None        # made at bind time, from the inferred shapes
    heads = [mx.nd.ones(o.shape) for o in exe.outputs]
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward(heads)
    assert op._reserve_space is space


def test_two_recorded_calls_keep_their_own_state():
    """Two calls of the same RNN in one record() scope: each taped call back-propagates
    through its own forward, so the gradients add up to those of two separate runs."""
    rng = np.random.RandomState(1)
    sym = lstm_symbol()
    args_a = random_args(sym, 4, 2, rng)
    args_b = random_args(sym, 4, 2, rng)       # same shapes: same operator instance key
    args_b['rnn_parameters'] = args_a['rnn_parameters']
    heads_a, heads_b = heads_for(sym, 4, 2, rng), heads_for(sym, 4, 2, rng)
    names = sym.list_arguments()
    arrays = {}
    for tag, args in (('a', args_a), ('b', args_b)):
        for name in names:
            if tag == 'b' and name == 'rnn_parameters':
                continue
            arrays[tag, name] = mx.nd.array(args[name], dtype=np.float64)
            arrays[tag, name].attach_grad()
    arrays['b', 'rnn_parameters'] = arrays['a', 'rnn_parameters']
    with mx.autograd.record():
        loss = 0
        for tag, heads in (('a', heads_a), ('b', heads_b)):
            outs = mx.nd.RNN(*[arrays[tag, n] for n in names], state_size=3, num_layers=2,
                             bidirectional=True, mode='lstm', state_outputs=True)
            for out, head in zip(outs, heads):
                loss = loss + (out * mx.nd.array(head, dtype=np.float64)).sum()
    loss.backward()
    expected_a = fresh_gradients(sym, args_a, heads_a)
    expected_b = fresh_gradients(sym, args_b, heads_b)
    for name in names:
        if name == 'rnn_parameters':
            want = expected_a[name] + expected_b[name]
            assert_almost_equal(arrays['a', name].grad.asnumpy(), want, rtol=1e-10,
                                atol=1e-12)
            continue
        assert_almost_equal(arrays['a', name].grad.asnumpy(), expected_a[name], rtol=1e-12,
                            atol=1e-12)
        assert_almost_equal(arrays['b', name].grad.asnumpy(), expected_b[name], rtol=1e-12,
                            atol=1e-12)
