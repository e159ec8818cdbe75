"""gluon.contrib.rnn.rnn_cell.dynamic_unroll against MXNet 1.9.1
(tests/data/gen/gen_dynamic_unroll_reference.py): outputs, states and gradients of LSTM and
GRU cells, imperative and hybridized (one _foreach node), TNC and NTC, with and without
valid_length."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from dynamic_unroll_cases import unrolled

REF = np.load(pathlib.Path(__file__).parents[1] / 'data' / 'dynamic_unroll_reference.npz')


@pytest.mark.parametrize('kind', ['LSTMCell', 'GRUCell'])
@pytest.mark.parametrize('layout', ['TNC', 'NTC'])
@pytest.mark.parametrize('valid', ['full', 'valid'])
@pytest.mark.parametrize('mode', ['nd', 'hybrid'])
def test_matches_mxnet(kind, layout, valid, mode):
    key = '%s_%s' % (kind, layout)
    net = unrolled(mx, kind, layout)
    net.initialize()
    names = sorted(k.split('/')[-1] for k in REF.files if k.startswith(key + '/param/'))
    for name in names:
        net.collect_params()[net.prefix + name].set_data(
            mx.nd.array(REF['%s/param/%s' % (key, name)]))
    if mode == 'hybrid':
        net.hybridize()
    x = mx.nd.array(REF[key + '/data'])
    x.attach_grad()
    states = [mx.nd.array(REF['%s/state%d' % (key, i)])
              for i in range(2 if kind == 'LSTMCell' else 1)]
    valid_length = mx.nd.array([3, 5]) if valid == 'valid' else []
    with mx.autograd.record():
        out, new_states = net(x, states, valid_length)
        loss = (out * out).sum() + sum((s * 2).sum() for s in new_states)
    loss.backward()
    got = [out.asnumpy()] + [s.asnumpy() for s in new_states] + [x.grad.asnumpy()] + \
        [net.collect_params()[net.prefix + n].grad().asnumpy() for n in names]
    prefix = '%s/%s/%s/' % (key, valid, mode)
    expected = [REF[prefix + str(i)] for i in range(len(got))]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_hybridized_graph_is_one_loop():
    net = unrolled(mx, 'GRUCell', 'TNC')
    net.initialize()
    out, _ = net(mx.sym.var('data'), [mx.sym.var('s')], [])
    ops = [n["op"] for n in json.loads(out.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ['_foreach']      # one loop node, not a copy of the cell per step
