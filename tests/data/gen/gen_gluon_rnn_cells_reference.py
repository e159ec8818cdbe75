"""Write tests/data/gluon_rnn_cells_reference.npz with MXNet 1.9.1's gluon recurrent cells.

Run with the real MXNet (not in CI):

    /work/mxvenv/bin/python tests/data/gen/gen_gluon_rnn_cells_reference.py

Each case is a cell described by a JSON spec (``<case>/spec``, rebuilt the same way by
tests/gluon/test_rnn_cells.py) with fixed parameters (``<case>/param/<name>``), an
input ``x`` (N, T, C), begin states, output heads and ``valid_length``. Each run
``<case>/<layout>/<vl>/`` unrolls the cell (layout NTC or TNC, with or without
valid_length; merge_outputs True and False give the same numbers, checked here and
stored once) under autograd and stores the outputs
(stacked in the layout), the final states, and the gradients of
``sum(out * head) + sum(state_k * state_head_k)`` with respect to the input, the given
begin states and every parameter. The spec also records the parameter names, the repr
and the names in the graph of a symbolic unroll.
"""
import json
import os

import mxnet as mx
import numpy as np
from mxnet.gluon import nn, rnn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'gluon_rnn_cells_reference.npz')
N, T, C = 3, 3, 5
VALID_LENGTH = [3., 1., 2.]

CASES = {
    'rnn_tanh': {'cls': 'RNNCell', 'args': [4], 'kwargs': {'prefix': 'a_'}},
    'rnn_relu': {'cls': 'RNNCell', 'args': [4],
                 'kwargs': {'activation': 'relu', 'prefix': 'a_'}},
    # MXNet registers a LeakyReLU activation as a child block and its unroll() then
    # fails (LeakyReLU has no reset()): this case is run step by step
    'rnn_leaky': {'cls': 'RNNCell', 'args': [4], 'step': True,
                  'kwargs': {'activation': {'leaky': 0.1}, 'prefix': 'a_'}},
    'lstm': {'cls': 'LSTMCell', 'args': [4], 'kwargs': {'prefix': 'l_'}, 'vl': True},
    'lstm_act': {'cls': 'LSTMCell', 'args': [4],
                 'kwargs': {'prefix': 'l_', 'activation': 'softsign',
                            'recurrent_activation': 'tanh'}},
    'gru': {'cls': 'GRUCell', 'args': [4], 'kwargs': {'prefix': 'g_'}, 'vl': True},
    'seq': {'cls': 'SequentialRNNCell', 'kwargs': {'prefix': 's_'}, 'vl': True,
            'children': [{'cls': 'LSTMCell', 'args': [4]}, {'cls': 'GRUCell', 'args': [3]}]},
    'hseq': {'cls': 'HybridSequentialRNNCell', 'kwargs': {'prefix': 'h_'},
             'children': [{'cls': 'RNNCell', 'args': [4]}, {'cls': 'LSTMCell', 'args': [3]}]},
    'residual': {'cls': 'ResidualCell', 'vl': True,
                 'base': {'cls': 'GRUCell', 'args': [C], 'kwargs': {'prefix': 'r_'}}},
    'zoneout': {'cls': 'ZoneoutCell', 'train': False,
                'kwargs': {'zoneout_outputs': 0.3, 'zoneout_states': 0.4},
                'base': {'cls': 'LSTMCell', 'args': [4], 'kwargs': {'prefix': 'z_'}}},
    'dropout_seq': {'cls': 'SequentialRNNCell', 'kwargs': {'prefix': 'd_'}, 'train': False,
                    'children': [{'cls': 'DropoutCell', 'args': [0.5]},
                                 {'cls': 'GRUCell', 'args': [4]}]},
    'bi': {'cls': 'BidirectionalCell', 'vl': True,
           'l': {'cls': 'LSTMCell', 'args': [4], 'kwargs': {'prefix': 'bl_'}},
           'r': {'cls': 'GRUCell', 'args': [3], 'kwargs': {'prefix': 'br_'}}},
}


def build(spec):
    """The cell a spec describes (the test has the same function for symmod)."""
    cls = spec['cls']
    kwargs = dict(spec.get('kwargs', {}))
    if cls in ('SequentialRNNCell', 'HybridSequentialRNNCell'):
        cell = getattr(rnn, cls)(**kwargs)
        with cell.name_scope():
            for child in spec['children']:
                cell.add(build(child))
        return cell
    if cls in ('ZoneoutCell', 'ResidualCell'):
        return getattr(rnn, cls)(build(spec['base']), **kwargs)
    if cls == 'BidirectionalCell':
        return rnn.BidirectionalCell(build(spec['l']), build(spec['r']))
    if isinstance(kwargs.get('activation'), dict):
        kwargs['activation'] = nn.LeakyReLU(kwargs['activation']['leaky'])
    return getattr(rnn, cls)(*spec.get('args', []), **kwargs)


def step_through(cell, x, states, layout):
    """Call the cell once per step (what unroll does without valid_length)."""
    if states is None:
        states = cell.begin_state(batch_size=N)
    outputs = []
    for t in range(T):
        out, states = cell(x[:, t] if layout == 'NTC' else x[t], states)
        outputs.append(out)
    return outputs, states


def run(cell, params, x_ntc, states_np, heads_np, layout, merge, valid_length, train,
        step=False):
    """Outputs, states and gradients of one unroll (or of stepping, ``step``)."""
    x_np = x_ntc if layout == 'NTC' else x_ntc.transpose(1, 0, 2)
    x = mx.nd.array(x_np)
    x.attach_grad()
    states = [mx.nd.array(s) for s in states_np] if states_np is not None else None
    for s in states or []:
        s.attach_grad()
    vl = mx.nd.array(VALID_LENGTH) if valid_length else None
    out_head = heads_np[0] if layout == 'NTC' else heads_np[0].transpose(1, 0, 2)
    with mx.autograd.record(train_mode=train):
        if step:
            out, new_states = step_through(cell, x, states, layout)
            if merge:
                out = mx.nd.stack(*out, axis=layout.find('T'))
        else:
            out, new_states = cell.unroll(T, x, begin_state=states, layout=layout,
                                          merge_outputs=merge, valid_length=vl)
        if not merge:
            assert isinstance(out, list) and len(out) == T
            out = mx.nd.stack(*out, axis=layout.find('T'))
        loss = (out * mx.nd.array(out_head)).sum()
        for s, h in zip(new_states, heads_np[1:]):
            loss = loss + (s * mx.nd.array(h)).sum()
    loss.backward()
    res = {'out': out.asnumpy(), 'grad_x': x.grad.asnumpy()}
    for k, s in enumerate(new_states):
        res['state%d' % k] = s.asnumpy()
    for k, s in enumerate(states or []):
        res['grad_state%d' % k] = s.grad.asnumpy()
    for name, p in params.items():
        res['grad_param/' + name] = p.grad().asnumpy()
    return res


def symbolic_graph(cell, valid_length):
    """The names in the graph of a symbolic unroll (NTC, merged outputs)."""
    with mx.name.NameManager():
        vl = mx.sym.var('valid_length') if valid_length else None
        out, states = cell.unroll(T, mx.sym.var('data'), merge_outputs=True,
                                  valid_length=vl)
        graph = mx.sym.Group([out] + list(states))
    return {'outputs': graph.list_outputs(), 'arguments': graph.list_arguments(),
            'internals': graph.get_internals().list_outputs()}


def main():
    rng = np.random.RandomState(7)
    arrays = {'valid_length': np.array(VALID_LENGTH, np.float32)}
    for case, spec in CASES.items():
        cell = build(spec)
        cell.initialize()
        x_ntc = rng.uniform(-1, 1, (N, T, C)).astype(np.float32)
        if spec.get('step'):     # finish the deferred initialization
            out = mx.nd.stack(*step_through(cell, mx.nd.array(x_ntc), None, 'NTC')[0], axis=1)
        else:
            out = cell.unroll(T, mx.nd.array(x_ntc), merge_outputs=True)[0]
        params = cell.collect_params()
        for name, p in params.items():
            value = rng.normal(0, 0.5, p.shape).astype(np.float32)
            p.set_data(mx.nd.array(value))
            arrays['%s/param/%s' % (case, name)] = value
        infos = cell.state_info(N)
        states_np = [rng.normal(0, 0.5, info['shape']).astype(np.float32) for info in infos]
        heads_np = [rng.normal(0, 1, out.shape).astype(np.float32)]
        heads_np += [rng.normal(0, 1, info['shape']).astype(np.float32) for info in infos]
        spec = dict(spec, params=sorted(params.keys()), repr=repr(cell),
                    num_states=len(infos))
        if not spec.get('step'):
            spec['graph'] = symbolic_graph(cell, spec.get('vl', False))
        arrays[case + '/spec'] = np.array(json.dumps(spec))
        arrays[case + '/x'] = x_ntc
        for k, s in enumerate(states_np):
            arrays['%s/begin_state%d' % (case, k)] = s
        for k, h in enumerate(heads_np):
            arrays['%s/head%d' % (case, k)] = h
        for layout in ('NTC', 'TNC'):
            # the begin states are given in NTC runs and left to begin_state() in TNC runs
            given = states_np if layout == 'NTC' else None
            for vl in ((False, True) if spec.get('vl') else (False,)):
                res = [run(cell, params, x_ntc, given, heads_np, layout, merge, vl,
                           spec.get('train', True), spec.get('step', False))
                       for merge in (True, False)]
                # merged and per-step outputs carry the same numbers: store them once
                for k, v in res[0].items():
                    np.testing.assert_allclose(res[1][k], v, rtol=1e-5, atol=1e-6)
                key = '%s/%s/%s/' % (case, layout, vl)
                arrays.update({key + k: v for k, v in res[0].items()})
    np.savez_compressed(OUT, **arrays)
    print('wrote %s (%d arrays, %d bytes)' % (OUT, len(arrays), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
