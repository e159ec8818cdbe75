"""Write tests/data/gluon_rnn_contrib_reference.npz with MXNet 1.9.1's
gluon.contrib.rnn cells (LSTMPCell, VariationalDropoutCell).

Run with the real MXNet (not in CI):

    /work/mxvenv/bin/python tests/data/gen/gen_gluon_rnn_contrib_reference.py

The layout is that of gluon_rnn_cells_reference.npz (see gen_gluon_rnn_cells_reference.py):
per case a JSON spec (from tests/gluon/rnn_contrib_cases.py, with the parameter names,
repr and the names of a symbolic unroll's graph), fixed parameters, input, begin states
and heads, and per run ``<case>/<layout>/<vl>/`` the outputs, final states and gradients
of ``rnn_cell_cases.run_cell``.
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'gluon_rnn_contrib_reference.npz')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from rnn_cell_cases import (C, N, T, VALID_LENGTH, run_cell,  # noqa: E402
                            symbolic_graph)
from rnn_contrib_cases import CASES, build  # noqa: E402


def main():
    rng = np.random.RandomState(11)
    arrays = {'valid_length': np.array(VALID_LENGTH, np.float32)}
    for case, spec in CASES.items():
        cell = build(mx, spec)
        cell.initialize()
        x_ntc = rng.uniform(-1, 1, (N, T, C)).astype(np.float32)
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
                    num_states=len(infos),
                    shapes={name: list(p.shape) for name, p in params.items()},
                    graph=symbolic_graph(mx, cell, spec.get('vl', False)))
        arrays[case + '/spec'] = np.array(json.dumps(spec))
        arrays[case + '/x'] = x_ntc
        for k, s in enumerate(states_np):
            arrays['%s/begin_state%d' % (case, k)] = s
        for k, h in enumerate(heads_np):
            arrays['%s/head%d' % (case, k)] = h
        for layout in ('NTC', 'TNC'):
            given = states_np if layout == 'NTC' else None
            for vl in ((False, True) if spec.get('vl') else (False,)):
                res = [run_cell(mx, cell, params, x_ntc, given, heads_np, layout, merge,
                                VALID_LENGTH if vl else None, spec.get('train', True))
                       for merge in (True, False)]
                for k, v in res[0].items():
                    np.testing.assert_allclose(res[1][k], v, rtol=1e-5, atol=1e-6)
                key = '%s/%s/%s/' % (case, layout, vl)
                arrays.update({key + k: v for k, v in res[0].items()})
    np.savez_compressed(OUT, **arrays)
    print('wrote %s (%d arrays, %d bytes)' % (OUT, len(arrays), os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
