"""Symbol JSON: byte-identical round trips with files MXNet 1.9.1 wrote, legacy upgrades,
and clear errors for bad files."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symbol_cases import composite

REF = pathlib.Path(__file__).parent.parent / 'data' / 'mxnet-reference'
SYMBOLS = REF / 'symbols'


def _composite():
    """The graph of tests/data/gen/gen_symbol_json.py, built with symmod."""
    with mx.name.NameManager():
        return composite(mx)


def test_mlp_symbol_resaves_byte_identical():
    text = (REF / 'mlp' / 'mlp-symbol.json').read_text()
    sym = mx.sym.load(str(REF / 'mlp' / 'mlp-symbol.json'))
    assert sym.tojson() == text
    assert sym.list_arguments() == ['data', 'fc1_weight', 'fc1_bias', 'fc2_weight',
                                    'fc2_bias', 'fc3_weight', 'fc3_bias', 'softmax_label']
    assert sym.list_outputs() == ['softmax_output']


def test_symbol_built_in_symmod_writes_mxnet_bytes():
    assert _composite().tojson() == (SYMBOLS / 'composite.json').read_text()


def test_composite_matches_mxnet_listing_attrs_and_shapes():
    info = json.loads((SYMBOLS / 'composite_info.json').read_text())
    for sym in (_composite(), mx.sym.load(str(SYMBOLS / 'composite.json'))):
        assert sym.list_arguments() == info['list_arguments']
        assert sym.list_outputs() == info['list_outputs']
        assert sym.list_auxiliary_states() == info['list_auxiliary_states']
        assert sym.attr_dict() == info['attr_dict']
        assert sym.get_internals().list_outputs() == info['internals']
        args, outs, auxs = sym.infer_shape(data=(4, 3, 8, 8))
        assert [list(s) for s in args] == info['arg_shapes']
        assert [list(s) for s in outs] == info['out_shapes']
        assert [list(s) for s in auxs] == info['aux_shapes']


def test_loaded_composite_resaves_byte_identical():
    text = (SYMBOLS / 'composite.json').read_text()
    assert mx.sym.load_json(text).tojson() == text


def test_legacy_0_8_file_is_upgraded_like_mxnet():
    sym = mx.sym.load(str(REF / 'legacy' / 'save_000800.json'))
    assert sym.tojson() == (SYMBOLS / 'save_000800_upgraded.json').read_text()
    assert sym.list_auxiliary_states() == ['batchnorm0_moving_mean', 'batchnorm0_moving_var']
    # the upgraded file reads back to the same graph
    again = mx.sym.load_json(sym.tojson())
    assert again.tojson() == sym.tojson()
    args, outs, auxs = sym.infer_shape(data=(5, 20))
    assert outs == [(5, 10)] and auxs == [(10,), (10,)]


def test_save_and_load_file(tmp_path):
    sym = _composite()
    path = tmp_path / 'net-symbol.json'
    sym.save(str(path))
    assert path.read_text() == sym.tojson()
    assert mx.sym.load(str(path)).tojson() == sym.tojson()


def test_unknown_operator_is_named():
    text = (REF / 'mlp' / 'mlp-symbol.json').read_text()
    bad = text.replace('"op": "Activation"', '"op": "NoSuchOp"')
    with pytest.raises(mx.MXNetError, match='NoSuchOp'):
        mx.sym.load_json(bad)


@pytest.mark.parametrize('mutate, message', [
    (lambda d: d.__setitem__('heads', [[99, 0, 0]]), 'out of range'),
    (lambda d: d['nodes'][3].__setitem__('inputs', [[5, 0, 0]]), 'out of range'),
    (lambda d: d['nodes'][3].__setitem__('inputs', [[0, 0, 0]]), 'has 1 inputs'),
    (lambda d: d['nodes'][3].__setitem__('inputs', [[0, 0, 0], "x", [2, 0, 0]]), 'entry'),
    (lambda d: d.pop('nodes'), 'nodes'),
    (lambda d: d['nodes'][4].pop('name'), 'name'),
    (lambda d: d.__setitem__('heads', [[0, 3, 0]]), 'missing output'),
])
def test_malformed_json_raises_clear_errors(mutate, message):
    data = json.loads((REF / 'mlp' / 'mlp-symbol.json').read_text())
    mutate(data)
    with pytest.raises(mx.MXNetError, match=message):
        mx.sym.load_json(json.dumps(data))


def test_not_json_and_missing_file(tmp_path):
    with pytest.raises(mx.MXNetError, match='not valid JSON'):
        mx.sym.load_json('{"nodes": [')
    with pytest.raises(mx.MXNetError, match='cannot read'):
        mx.sym.load(str(tmp_path / 'absent.json'))


def test_long_input_lists_are_multiline_like_mxnet():
    parts = [mx.sym.var('x%d' % i) for i in range(12)]
    text = mx.sym.Concat(*parts, dim=0, name='cat').tojson()
    assert '"inputs": [\n        [0, 0, 0], \n' in text
    assert '"arg_nodes": [\n    0, \n' in text
    assert mx.sym.load_json(text).tojson() == text
    assert not text.endswith('\n')


def test_mlp_checkpoint_forward_matches_mxnet():
    """The core issue's done-criterion: MXNet's trained MLP runs and gives MXNet's output."""
    sym = mx.sym.load(str(REF / 'mlp' / 'mlp-symbol.json'))
    params = mx.nd.load(str(REF / 'mlp' / 'mlp-0003.params'))
    args = {k[4:]: v for k, v in params.items() if k.startswith('arg:')}
    x = np.load(REF / 'mlp' / 'input.npy')
    expected = np.load(REF / 'mlp' / 'expected_output.npy')
    exe = sym.simple_bind(mx.cpu(), data=x.shape, grad_req='null')
    exe.copy_params_from(args)
    out = exe.forward(is_train=False, data=mx.nd.array(x))[0].asnumpy()
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
