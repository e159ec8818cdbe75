"""The gluon.contrib recurrent cells of tests/data/gluon_rnn_contrib_reference.npz, built
by a given ``mx`` (symmod in tests/gluon/test_rnn_contrib_cells.py or, in
tests/data/gen/gen_gluon_rnn_contrib_reference.py, real MXNet). The runs themselves are
``rnn_cell_cases.run_cell``."""

# each case: the class, its arguments, the base cell (VariationalDropoutCell), whether it
# also runs with valid_length ('vl') and autograd's train_mode ('train')
CASES = {
    'lstmp': {'cls': 'LSTMPCell', 'args': [4, 3], 'kwargs': {'prefix': 'p_'}, 'vl': True},
    # outside training the masks are ones: the numbers are the base cell's
    'vardrop_states': {'cls': 'VariationalDropoutCell', 'train': False,
                       'kwargs': {'drop_inputs': 0.3, 'drop_states': 0.2,
                                  'drop_outputs': 0.4},
                       'base': {'cls': 'LSTMPCell', 'args': [4, 3],
                                'kwargs': {'prefix': 'v_'}}},
    'vardrop_seq': {'cls': 'VariationalDropoutCell', 'train': False, 'vl': True,
                    'kwargs': {'drop_inputs': 0.3, 'drop_outputs': 0.4},
                    'base': {'cls': 'GRUCell', 'args': [4], 'kwargs': {'prefix': 's_'}}},
}


def build(mx, spec):
    """The cell a spec describes, made with ``mx.gluon`` (contrib cells from
    ``mx.gluon.contrib.rnn``, the others from ``mx.gluon.rnn``)."""
    contrib = mx.gluon.contrib.rnn
    kwargs = dict(spec.get('kwargs', {}))
    if spec['cls'] == 'VariationalDropoutCell':
        return contrib.VariationalDropoutCell(build(mx, spec['base']), **kwargs)
    module = contrib if hasattr(contrib, spec['cls']) else mx.gluon.rnn
    return getattr(module, spec['cls'])(*spec.get('args', []), **kwargs)
