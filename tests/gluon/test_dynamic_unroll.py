"""gluon.contrib.rnn.rnn_cell.dynamic_unroll against MXNet 1.9.1
(tests/data/gen/gen_dynamic_unroll_reference.py): outputs, states and gradients of LSTM and
GRU cells, imperative and hybridized (one _foreach node), TNC and NTC, with and without
valid_length."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod import gluon
from symmod.gluon.contrib.rnn.rnn_cell import dynamic_unroll

REF = np.load(pathlib.Path(__file__).parents[1] / 'data' / 'dynamic_unroll_reference.npz')
HIDDEN, INPUT = 4, 3


class Unrolled(gluon.HybridBlock):
    def __init__(self, kind, layout, **kwargs):
        super().__init__(**kwargs)
        self.layout = layout
        with self.name_scope():
            self.cell = getattr(gluon.rnn, kind)(HIDDEN, input_size=INPUT, prefix='c_')

    def hybrid_forward(self, F, data, states, valid_length):
        if isinstance(valid_length, list) and not valid_length:
            valid_length = None
        return dynamic_unroll(self.cell, data, states, valid_length=valid_length,
                              layout=self.layout)


@pytest.mark.parametrize('kind', ['LSTMCell', 'GRUCell'])
@pytest.mark.parametrize('layout', ['TNC', 'NTC'])
@pytest.mark.parametrize('valid', ['full', 'valid'])
@pytest.mark.parametrize('mode', ['nd', 'hybrid'])
def test_matches_mxnet(kind, layout, valid, mode):
    key = '%s_%s' % (kind, layout)
    net = Unrolled(kind, layout)
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
    net = Unrolled('GRUCell', 'TNC')
    net.initialize()
    out, _ = net(mx.sym.var('data'), [mx.sym.var('s')], [])
    ops = [n["op"] for n in json.loads(out.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ['_foreach']      # one loop node, not a copy of the cell per step
