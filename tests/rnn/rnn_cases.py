"""Graph-building cases shared by the MXNet generator (tests/data/gen/gen_rnn_reference.py,
run with real MXNet) and the symmod tests: each case takes the ``mx`` module so the very
same code builds the graph under both libraries.

A case returns ``(cells, outputs, states, input_shapes)``: the cells (for
pack/unpack), what ``unroll`` returned, and the shapes of the graph's inputs.
"""

BATCH, LENGTH, IN_DIM, HIDDEN = 2, 3, 4, 5


def data_shape(layout, length=LENGTH, dim=IN_DIM):
    return (BATCH, length, dim) if layout == 'NTC' else (length, BATCH, dim)


def make_cell(mx, kind, prefix, hidden=HIDDEN):
    if kind == 'rnn_tanh':
        return mx.rnn.RNNCell(hidden, prefix=prefix)
    if kind == 'rnn_relu':
        return mx.rnn.RNNCell(hidden, activation='relu', prefix=prefix)
    if kind == 'lstm':
        return mx.rnn.LSTMCell(hidden, prefix=prefix)
    if kind == 'lstm_fb0':
        return mx.rnn.LSTMCell(hidden, prefix=prefix, forget_bias=0.0)
    if kind == 'gru':
        return mx.rnn.GRUCell(hidden, prefix=prefix)
    raise ValueError(kind)


def _inputs(mx, layout, as_list):
    if as_list:
        steps = [mx.sym.var('x%d' % t) for t in range(LENGTH)]
        return steps, {'x%d' % t: (BATCH, IN_DIM) for t in range(LENGTH)}
    return mx.sym.var('data'), {'data': data_shape(layout)}


def single(kind, layout, merge, as_list):
    def build(mx):
        cell = make_cell(mx, kind, kind + '_')
        inputs, shapes = _inputs(mx, layout, as_list)
        outputs, states = cell.unroll(LENGTH, inputs, layout=layout, merge_outputs=merge)
        return [cell], outputs, states, shapes
    return build


def sequential(layout, merge):
    def build(mx):
        stack = mx.rnn.SequentialRNNCell()
        stack.add(mx.rnn.LSTMCell(HIDDEN, prefix='l0_'))
        stack.add(mx.rnn.DropoutCell(0.0, prefix='d0_'))
        stack.add(mx.rnn.GRUCell(HIDDEN, prefix='l1_'))
        stack.add(mx.rnn.RNNCell(HIDDEN, prefix='l2_'))
        inputs, shapes = _inputs(mx, layout, False)
        outputs, states = stack.unroll(LENGTH, inputs, layout=layout, merge_outputs=merge)
        return [stack], outputs, states, shapes
    return build


def sequential_step():
    """A stack stepped by hand with __call__ (no unroll)."""
    def build(mx):
        stack = mx.rnn.SequentialRNNCell()
        stack.add(mx.rnn.LSTMCell(HIDDEN, prefix='s0_'))
        stack.add(mx.rnn.GRUCell(HIDDEN, prefix='s1_'))
        states = stack.begin_state()
        outputs = []
        for t in range(LENGTH):
            out, states = stack(mx.sym.var('x%d' % t), states)
            outputs.append(out)
        return [stack], outputs, states, {'x%d' % t: (BATCH, IN_DIM) for t in range(LENGTH)}
    return build


def bidirectional(l_kind, r_kind, layout, merge, as_list=False):
    def build(mx):
        cell = mx.rnn.BidirectionalCell(make_cell(mx, l_kind, 'fw_'),
                                        make_cell(mx, r_kind, 'bw_'), output_prefix='bi_')
        inputs, shapes = _inputs(mx, layout, as_list)
        outputs, states = cell.unroll(LENGTH, inputs, layout=layout, merge_outputs=merge)
        return [cell], outputs, states, shapes
    return build


def stacked_bidirectional(layout, merge):
    """Two bidirectional layers with dropout between them (MXNet's unfused layout)."""
    def build(mx):
        stack = mx.rnn.SequentialRNNCell()
        for i in range(2):
            stack.add(mx.rnn.BidirectionalCell(
                mx.rnn.LSTMCell(HIDDEN, prefix='lstm_l%d_' % i),
                mx.rnn.LSTMCell(HIDDEN, prefix='lstm_r%d_' % i),
                output_prefix='lstm_bi_l%d_' % i))
            if i == 0:
                stack.add(mx.rnn.DropoutCell(0.0, prefix='lstm__dropout0_'))
        inputs, shapes = _inputs(mx, layout, False)
        outputs, states = stack.unroll(LENGTH, inputs, layout=layout, merge_outputs=merge)
        return [stack], outputs, states, shapes
    return build


def residual(kind, layout, merge):
    def build(mx):
        cell = mx.rnn.ResidualCell(make_cell(mx, kind, 'res_', hidden=IN_DIM))
        inputs, shapes = _inputs(mx, layout, False)
        outputs, states = cell.unroll(LENGTH, inputs, layout=layout, merge_outputs=merge)
        return [cell], outputs, states, shapes
    return build


def residual_step():
    """ResidualCell stepped through a SequentialRNNCell's __call__."""
    def build(mx):
        stack = mx.rnn.SequentialRNNCell()
        stack.add(mx.rnn.LSTMCell(IN_DIM, prefix='a_'))
        stack.add(mx.rnn.ResidualCell(mx.rnn.GRUCell(IN_DIM, prefix='b_')))
        outputs, states = stack.unroll(LENGTH, [mx.sym.var('x%d' % t) for t in range(LENGTH)],
                                       merge_outputs=False)
        return [stack], outputs, states, {'x%d' % t: (BATCH, IN_DIM) for t in range(LENGTH)}
    return build


def zoneout(p_out, p_state, merge):
    def build(mx):
        cell = mx.rnn.ZoneoutCell(mx.rnn.LSTMCell(HIDDEN, prefix='z_'),
                                  zoneout_outputs=p_out, zoneout_states=p_state)
        inputs, shapes = _inputs(mx, 'NTC', False)
        outputs, states = cell.unroll(LENGTH, inputs, merge_outputs=merge)
        return [cell], outputs, states, shapes
    return build


def dropout(p, layout, merge, as_list):
    def build(mx):
        cell = mx.rnn.DropoutCell(p)
        inputs, shapes = _inputs(mx, layout, as_list)
        outputs, states = cell.unroll(LENGTH, inputs, layout=layout, merge_outputs=merge)
        return [cell], outputs, states, shapes
    return build


def variable_states(kind):
    """Begin states fed as inputs (func=mx.sym.Variable)."""
    def build(mx):
        cell = make_cell(mx, kind, kind + '_')
        begin = cell.begin_state(func=mx.sym.Variable)
        inputs, shapes = _inputs(mx, 'NTC', False)
        outputs, states = cell.unroll(LENGTH, inputs, begin_state=begin, merge_outputs=True)
        for s in begin:
            shapes[s.name] = (BATCH, HIDDEN)
        return [cell], outputs, states, shapes
    return build


def shared_params():
    """Two LSTM layers on one RNNParams container (tied weights) and a stack that
    hands its container to its cells."""
    def build(mx):
        params = mx.rnn.RNNParams('shared_')
        first = mx.rnn.LSTMCell(IN_DIM, prefix='first_', params=params)
        second = mx.rnn.LSTMCell(IN_DIM, prefix='second_', params=params)
        inputs, shapes = _inputs(mx, 'NTC', False)
        mid, _ = first.unroll(LENGTH, inputs, merge_outputs=False)
        outputs, states = second.unroll(LENGTH, mid, merge_outputs=True)
        return [first], outputs, states, shapes
    return build


def stack_params():
    """A stack given a container; only weightless cells can be added to it (a cell
    that built its weights no longer 'owns' its params, as in MXNet)."""
    def build(mx):
        stack = mx.rnn.SequentialRNNCell(params=mx.rnn.RNNParams('stack_'))
        stack.add(mx.rnn.DropoutCell(0.0, prefix='d_'))
        stack.add(mx.rnn.ResidualCell(mx.rnn.GRUCell(IN_DIM, prefix='r_')))
        inputs, shapes = _inputs(mx, 'TNC', False)
        outputs, states = stack.unroll(LENGTH, inputs, layout='TNC', merge_outputs=True)
        return [stack], outputs, states, shapes
    return build


CONV_INPUT = (BATCH, 3, 5, 4)     # one step: N, C, H, W


def conv(kind, merge, **kwargs):
    """A convolutional cell over a TNC sequence of images, shape (T, N, C, H, W)."""
    def build(mx):
        make = {'conv_rnn': mx.rnn.ConvRNNCell, 'conv_lstm': mx.rnn.ConvLSTMCell,
                'conv_gru': mx.rnn.ConvGRUCell}[kind]
        cell = make(CONV_INPUT, 2, **kwargs)
        outputs, states = cell.unroll(2, mx.sym.var('data'), layout='TNC', merge_outputs=merge)
        return [cell], outputs, states, {'data': (2,) + CONV_INPUT}
    return build


def graph_cases():
    """name -> builder for every graph whose names and shapes are compared with MXNet."""
    cases = {}
    for kind in ['rnn_tanh', 'rnn_relu', 'lstm', 'gru']:
        for layout in ['NTC', 'TNC']:
            for merge in [True, False, None]:
                for as_list in [False, True]:
                    name = '%s_%s_%s_%s' % (kind, layout, merge, 'list' if as_list else 'sym')
                    cases[name] = single(kind, layout, merge, as_list)
    for layout in ['NTC', 'TNC']:
        for merge in [True, False, None]:
            cases['seq_%s_%s' % (layout, merge)] = sequential(layout, merge)
            cases['bi_lstm_gru_%s_%s' % (layout, merge)] = bidirectional('lstm', 'gru', layout,
                                                                         merge)
            cases['bi_stack_%s_%s' % (layout, merge)] = stacked_bidirectional(layout, merge)
            cases['res_gru_%s_%s' % (layout, merge)] = residual('gru', layout, merge)
            cases['dropout_%s_%s' % (layout, merge)] = dropout(0.3, layout, merge, False)
            cases['dropout_list_%s_%s' % (layout, merge)] = dropout(0.3, layout, merge, True)
    cases['bi_rnn_list_None'] = bidirectional('rnn_tanh', 'rnn_relu', 'NTC', None, True)
    cases['res_bi_True'] = lambda mx: _residual_bidirectional(mx)
    cases['dropout0_None'] = dropout(0.0, 'NTC', None, False)
    cases['seq_step'] = sequential_step()
    cases['res_step'] = residual_step()
    for p_out, p_state in [(0.5, 0.0), (0.0, 0.5), (0.3, 0.4)]:
        for merge in [True, False]:
            cases['zoneout_%s_%s_%s' % (p_out, p_state, merge)] = zoneout(p_out, p_state, merge)
    for kind in ['lstm', 'gru', 'rnn_tanh']:
        cases['varstate_%s' % kind] = variable_states(kind)
    for kind in ['conv_rnn', 'conv_lstm', 'conv_gru']:
        cases['%s_True' % kind] = conv(kind, True)
        cases['%s_False' % kind] = conv(kind, False)
    cases['conv_lstm_opts'] = conv('conv_lstm', True, h2h_kernel=(3, 1), h2h_dilate=(2, 1),
                                   i2h_kernel=(2, 3), i2h_stride=(2, 1), i2h_pad=(1, 0),
                                   activation='tanh', prefix='cl_')
    cases['conv_gru_init'] = conv('conv_gru', None, i2h_weight_initializer='ones',
                                  h2h_bias_initializer='one', prefix='cg_')
    cases['shared_params'] = shared_params()
    cases['stack_params'] = stack_params()
    return cases


def _residual_bidirectional(mx):
    cell = mx.rnn.ResidualCell(mx.rnn.BidirectionalCell(
        mx.rnn.GRUCell(IN_DIM // 2, prefix='rl_'), mx.rnn.GRUCell(IN_DIM // 2, prefix='rr_')))
    inputs, shapes = _inputs(mx, 'NTC', False)
    outputs, states = cell.unroll(LENGTH, inputs, merge_outputs=True)
    return [cell], outputs, states, shapes


# cases whose forward outputs and gradients are compared with MXNet's numbers
NUMERIC_CASES = ['rnn_tanh_NTC_True_sym', 'rnn_relu_TNC_False_sym', 'lstm_NTC_True_sym',
                 'lstm_TNC_None_list', 'gru_NTC_True_sym', 'gru_TNC_True_sym',
                 'seq_NTC_True', 'bi_lstm_gru_NTC_True', 'bi_lstm_gru_TNC_False',
                 'bi_stack_TNC_True', 'res_gru_NTC_True', 'res_step', 'res_bi_True',
                 'varstate_lstm', 'varstate_gru', 'shared_params', 'stack_params',
                 'seq_step', 'zoneout_0.3_0.4_True', 'conv_rnn_True', 'conv_lstm_True',
                 'conv_gru_False', 'conv_lstm_opts']


def flatten_states(states):
    """States as a flat list (BidirectionalCell nests them as [l_states, r_states])."""
    flat = []
    for s in states:
        if isinstance(s, list):
            flat.extend(flatten_states(s))
        else:
            flat.append(s)
    return flat


def as_group(mx, outputs, states):
    """One symbol holding the outputs (merged or per step) then the states."""
    outs = [outputs] if not isinstance(outputs, list) else list(outputs)
    return mx.sym.Group(outs + flatten_states(states))


def describe(mx, outputs, states):
    """What a case's graph looks like: the structure compared with MXNet."""
    group = as_group(mx, outputs, states)
    return {
        'outputs_is_list': isinstance(outputs, list),
        'num_outputs': len(outputs) if isinstance(outputs, list) else 1,
        'output_names': ([o.name for o in outputs] if isinstance(outputs, list)
                         else [outputs.name]),
        'state_nesting': [len(s) if isinstance(s, list) else -1 for s in states],
        'state_names': [s.name for s in flatten_states(states)],
        'arguments': group.list_arguments(),
        'list_outputs': group.list_outputs(),
        'internals': group.get_internals().list_outputs(),
        'attrs': {k: v for k, v in group.attr_dict().items() if '__init__' in v
                  or '__layout__' in v},
    }


def input_values(names, shapes, seed):
    """Deterministic values for every argument (the same under both libraries)."""
    import numpy as np
    rng = np.random.RandomState(seed)
    return {n: rng.uniform(-0.8, 0.8, size=shapes[n]).astype(np.float32) for n in names}


def _err_unroll_none(mx):
    mx.rnn.LSTMCell(2).unroll(3, None)


def _err_grouped_input(mx):
    mx.rnn.GRUCell(2).unroll(3, mx.sym.Group([mx.sym.var('a'), mx.sym.var('b')]))


def _err_list_length(mx):
    mx.rnn.RNNCell(2).unroll(3, [mx.sym.var('a'), mx.sym.var('b')])


def _err_modified_begin_state(mx):
    base = mx.rnn.LSTMCell(2)
    mx.rnn.ResidualCell(base)
    base.begin_state()


def _err_modified_unroll(mx):
    base = mx.rnn.GRUCell(2)
    mx.rnn.ZoneoutCell(base, 0.1, 0.1)
    base.unroll(2, mx.sym.var('data'))


def _err_stack_params(mx):
    stack = mx.rnn.SequentialRNNCell(params=mx.rnn.RNNParams('s_'))
    stack.add(mx.rnn.LSTMCell(2, prefix='a_'))


def _err_bi_params(mx):
    mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(2, prefix='a_'), mx.rnn.LSTMCell(2, prefix='b_'),
                             params=mx.rnn.RNNParams('bi_'))


def _err_bi_step(mx):
    cell = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(2, prefix='a_'),
                                    mx.rnn.LSTMCell(2, prefix='b_'))
    cell(mx.sym.var('x'), cell.begin_state())


def _err_stack_step_bi(mx):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(2, prefix='a_'),
                                       mx.rnn.LSTMCell(2, prefix='b_')))
    stack(mx.sym.var('x'), stack.begin_state())


def _err_zoneout_bi(mx):
    mx.rnn.ZoneoutCell(mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(2, prefix='a_'),
                                                mx.rnn.LSTMCell(2, prefix='b_')), 0.1)


def _err_dropout_type(mx):
    mx.rnn.DropoutCell('0.5')


def _err_iter_layout(mx):
    mx.rnn.BucketSentenceIter([[1, 2, 3]] * 4, 2, buckets=[4], layout='TC')


def error_cases():
    """name -> function raising the error MXNet raises for misuse."""
    return {name[len('_err_'):]: fn for name, fn in globals().items()
            if name.startswith('_err_')}
