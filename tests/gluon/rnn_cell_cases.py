"""The gluon recurrent cells of tests/data/gluon_rnn_cells_reference.npz, built by a given
``mx`` (symmod in tests/gluon/test_rnn_cells.py or, in
tests/data/gen/gen_gluon_rnn_cells_reference.py, real MXNet)."""

# input (N, T, C) and the valid_length of the reference runs
N, T, C = 3, 3, 5
VALID_LENGTH = [3., 1., 2.]

# each case is a JSON spec: the class, its arguments, the children or base cells, and
# how it is run ('vl': also with valid_length, 'train': autograd's train_mode, 'step':
# stepped instead of unrolled)
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


def build(mx, spec):
    """The cell a spec describes, made with ``mx.gluon``."""
    rnn = mx.gluon.rnn
    cls = spec['cls']
    kwargs = dict(spec.get('kwargs', {}))
    if cls in ('SequentialRNNCell', 'HybridSequentialRNNCell'):
        cell = getattr(rnn, cls)(**kwargs)
        with cell.name_scope():
            for child in spec['children']:
                cell.add(build(mx, child))
        return cell
    if cls in ('ZoneoutCell', 'ResidualCell'):
        return getattr(rnn, cls)(build(mx, spec['base']), **kwargs)
    if cls == 'BidirectionalCell':
        return rnn.BidirectionalCell(build(mx, spec['l']), build(mx, spec['r']))
    if isinstance(kwargs.get('activation'), dict):
        kwargs['activation'] = mx.gluon.nn.LeakyReLU(kwargs['activation']['leaky'])
    return getattr(rnn, cls)(*spec.get('args', []), **kwargs)


def step_through(cell, x, states, layout):
    """Call the cell once per time step of ``x`` (what unroll does without
    valid_length); the begin states come from ``begin_state`` when ``states`` is None."""
    if states is None:
        states = cell.begin_state(batch_size=x.shape[layout.find('N')])
    outputs = []
    for t in range(x.shape[layout.find('T')]):
        out, states = cell(x[:, t] if layout == 'NTC' else x[t], states)
        outputs.append(out)
    return outputs, states


def run_cell(mx, cell, params, x_ntc, begin_states, heads, layout, merge, valid_length,
             train, step=False):
    """Outputs (stacked in ``layout``), final states and gradients of one unroll (or of
    stepping, ``step``) under autograd, for the loss
    ``sum(out * heads[0]) + sum_k sum(state_k * heads[k + 1])``.

    ``x_ntc``, ``heads`` and ``begin_states`` are numpy arrays (``begin_states`` None:
    the cell's ``begin_state`` zeros); ``valid_length`` is a list or None. The gradients
    are those of the input, the given begin states and every parameter in ``params``.
    """
    length = x_ntc.shape[1]
    x = mx.nd.array(x_ntc if layout == 'NTC' else x_ntc.transpose(1, 0, 2))
    x.attach_grad()
    states = None
    if begin_states is not None:
        states = [mx.nd.array(s) for s in begin_states]
        for s in states:
            s.attach_grad()
    head = heads[0] if layout == 'NTC' else heads[0].transpose(1, 0, 2)
    vl = mx.nd.array(valid_length) if valid_length is not None else None
    with mx.autograd.record(train_mode=train):
        if step:
            out, new_states = step_through(cell, x, states, layout)
            if merge:
                out = mx.nd.stack(*out, axis=layout.find('T'))
        else:
            out, new_states = cell.unroll(length, x, begin_state=states, layout=layout,
                                          merge_outputs=merge, valid_length=vl)
        if merge:
            assert isinstance(out, mx.nd.NDArray)
        else:
            assert isinstance(out, list) and len(out) == length
            out = mx.nd.stack(*out, axis=layout.find('T'))
        loss = (out * mx.nd.array(head)).sum()
        for k, s in enumerate(new_states):
            loss = loss + (s * mx.nd.array(heads[k + 1])).sum()
    loss.backward()
    res = {'out': out.asnumpy(), 'grad_x': x.grad.asnumpy()}
    res.update({'state%d' % k: s.asnumpy() for k, s in enumerate(new_states)})
    res.update({'grad_state%d' % k: s.grad.asnumpy() for k, s in enumerate(states or [])})
    res.update({'grad_param/' + name: p.grad().asnumpy() for name, p in params.items()})
    return res


def symbolic_graph(mx, cell, valid_length):
    """The names in the graph of a symbolic unroll (NTC, merged outputs)."""
    with mx.name.NameManager():
        vl = mx.sym.var('valid_length') if valid_length else None
        out, states = cell.unroll(T, mx.sym.var('data'), merge_outputs=True,
                                  valid_length=vl)
        graph = mx.sym.Group([out] + list(states))
    return {'outputs': graph.list_outputs(), 'arguments': graph.list_arguments(),
            'internals': graph.get_internals().list_outputs()}


def unroll_runs(specs):
    """(case, layout, merge_outputs, with valid_length) for every reference unroll."""
    return [(case, layout, merge, vl)
            for case, spec in specs.items()
            for layout in ('NTC', 'TNC')
            for merge in (True, False)
            for vl in ((False, True) if spec.get('vl') else (False,))]
