"""autograd.get_symbol: the recorded graph as a Symbol, as MXNet 1.9.1 writes it."""
import json
import pathlib
import re

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from autograd_symbol_cases import CASES

REF = json.loads((pathlib.Path(__file__).parent / 'data' / 'autograd_symbol_reference.json')
                 .read_text())


def _normalized(text):
    """Renumber var<k>/null<k>/node_<k> in order of appearance: the numbers come from
    process-wide counters, so only the structure is comparable across processes."""
    seen = {}
    return re.sub(r'\b(var|null|node_)(\d+)(?!\d)',
                  lambda m: '%s%d' % (m.group(1), seen.setdefault(m.group(0), len(seen))), text)


@pytest.mark.parametrize('case', CASES, ids=lambda f: f.__name__)
def test_json_matches_mxnet(case):
    got = json.loads(mx.autograd.get_symbol(case(mx)).tojson())
    for node in got['nodes']:
        if node['op'] == '_CachedOp':
            # symmod's node carries its graph (MXNet's keeps it in memory only)
            mx.sym.load_json(node['attrs'].pop('subgraph'))
            del node['attrs']
    assert json.loads(_normalized(json.dumps(got))) == \
        json.loads(_normalized(REF[case.__name__]))


def test_names_are_mxnets_and_a_reused_constant_is_one_variable():
    x = mx.nd.ones((2,)); x.attach_grad()
    c = mx.nd.full((2,), 3.0)
    with mx.autograd.record():
        y = x * c + c
    sym = mx.autograd.get_symbol(y)
    args = sym.list_arguments()
    assert len(args) == 2
    assert re.fullmatch(r'var\d+', args[0]) and re.fullmatch(r'null\d+', args[1])
    assert re.fullmatch(r'node_\d+_output', sym.list_outputs()[0])
    # the same graph, asked for twice, has the same names
    assert mx.autograd.get_symbol(y).tojson() == sym.tojson()


def test_the_symbol_computes_the_recorded_value_and_gradient():
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal((3, 5))); x.attach_grad()
    w = mx.nd.array(rng.standard_normal((4, 5))); w.attach_grad()
    b = mx.nd.array(rng.standard_normal((4,)))
    with mx.autograd.record():
        out = mx.nd.sum(mx.nd.tanh(mx.nd.FullyConnected(x, w, b, num_hidden=4)) ** 2, axis=1)
    out.backward(retain_graph=True)
    sym = mx.autograd.get_symbol(out)
    names = sym.list_arguments()
    exe = sym.bind(mx.cpu(), dict(zip(names, [x, w, b])),
                   args_grad={names[0]: mx.nd.zeros(x.shape), names[1]: mx.nd.zeros(w.shape)},
                   grad_req={names[0]: 'write', names[1]: 'write', names[2]: 'null'})
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), out.asnumpy(), rtol=1e-6)
    exe.backward(mx.nd.ones(out.shape))
    np.testing.assert_allclose(exe.grad_dict[names[0]].asnumpy(), x.grad.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(exe.grad_dict[names[1]].asnumpy(), w.grad.asnumpy(), rtol=1e-5)


def test_errors_outside_a_recorded_graph():
    x = mx.nd.ones((2,)); x.attach_grad()
    with pytest.raises(MXNetError, match='not in a computational graph'):
        mx.autograd.get_symbol(x * 2)
    with mx.autograd.record():
        y = x * 2
    y.backward()
    with pytest.raises(MXNetError, match='not in a computational graph'):
        mx.autograd.get_symbol(y)
