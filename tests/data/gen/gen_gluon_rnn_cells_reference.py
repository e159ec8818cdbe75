"""Write tests/data/gluon_rnn_cells_reference.npz with MXNet 1.9.1's gluon recurrent cells.

Run with the real MXNet (not in CI):

    /work/mxvenv/bin/python tests/data/gen/gen_gluon_rnn_cells_reference.py

Each case is a cell described by a JSON spec (``<case>/spec``, from
tests/gluon/rnn_cell_cases.py, which builds the cells for both this script and
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
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'gluon_rnn_cells_reference.npz')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from rnn_cell_cases import (C, CASES, N, T, VALID_LENGTH, build,  # noqa: E402
                            run_cell, step_through, symbolic_graph)


def main():
    rng = np.random.RandomState(7)
    arrays = {'valid_length': np.array(VALID_LENGTH, np.float32)}
    for case, spec in CASES.items():
        cell = build(mx, spec)
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
            spec['graph'] = symbolic_graph(mx, cell, spec.get('vl', False))
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
                res = [run_cell(mx, cell, params, x_ntc, given, heads_np, layout, merge,
                                VALID_LENGTH if vl else None, spec.get('train', True),
                                spec.get('step', False))
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
