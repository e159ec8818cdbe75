"""Unrolled graphs have MXNet's structure: the same outputs, states, arguments and
internal nodes (names and DFS order), and the same inferred shapes, for every cell
type, both layouts and merge_outputs True / False / None."""
import pytest

import symmod as mx

import rnn_cases

CASES = rnn_cases.graph_cases()


def _build(name):
    with mx.name.NameManager():
        return CASES[name](mx)


@pytest.mark.parametrize('name', sorted(CASES))
def test_graph_matches_mxnet(name, mxnet_ref):
    expected = mxnet_ref['graphs'][name]
    _, outputs, states, shapes = _build(name)
    got = rnn_cases.describe(mx, outputs, states)
    for key in ['outputs_is_list', 'num_outputs', 'output_names', 'state_nesting',
                'state_names', 'arguments', 'list_outputs', 'internals', 'attrs']:
        assert got[key] == expected[key], key


@pytest.mark.parametrize('name', sorted(CASES))
def test_inferred_shapes_match_mxnet(name, mxnet_ref):
    expected = mxnet_ref['graphs'][name]
    _, outputs, states, shapes = _build(name)
    group = rnn_cases.as_group(mx, outputs, states)
    arg_shapes, out_shapes, _ = group.infer_shape(**shapes)
    assert [list(s) for s in arg_shapes] == expected['arg_shapes']
    assert [list(s) for s in out_shapes] == expected['out_shapes']


def test_case_list_covers_every_cell_type():
    built = set()
    for name in CASES:
        cells, _, _, _ = _build(name)
        stack = list(cells)
        while stack:
            cell = stack.pop()
            built.add(type(cell).__name__)
            stack.extend(getattr(cell, '_cells', []))
            if hasattr(cell, 'base_cell'):
                stack.append(cell.base_cell)
    assert built >= {'RNNCell', 'LSTMCell', 'GRUCell', 'SequentialRNNCell',
                     'BidirectionalCell', 'DropoutCell', 'ZoneoutCell', 'ResidualCell'}
