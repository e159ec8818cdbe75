"""Write tests/data/sparse/gluon_sparse_weight.npz and gluon_sparse_weight.params with
MXNet 1.9.1: gluon training with a row_sparse weight (SparseEmbedding + Dense, the cases
of tests/gluon/sparse_weight_cases.py) on one and two contexts.

Run with the real MXNet (not in CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_gluon_sparse_weight_reference.py

Keys: ``<optimizer>/<ncontexts>/<what>`` for what in grad_indices, grad_data (the
embedding's row_sparse gradient on context 0 after the last backward), embedding,
weight, bias (after three steps); ``kvstore/<optimizer>/<ncontexts>`` the Trainer's
store type and update_on_kvstore (JSON). gluon_sparse_weight.params is
``save_parameters`` of the adam / 2-context net (its embedding a row_sparse record).
"""
import json
import os
import sys
import tempfile

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'sparse', 'gluon_sparse_weight.npz')
PARAMS = os.path.join(HERE, '..', 'sparse', 'gluon_sparse_weight.params')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from sparse_weight_cases import CONTEXTS, OPTIMIZERS, save_initial, train  # noqa: E402


def main():
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        init_file = os.path.join(tmp, 'init.params')
        save_initial(mx, init_file)
        for name, optimizer, kwargs in OPTIMIZERS:
            for n in CONTEXTS:
                net, trainer, res = train(mx, init_file, n, optimizer, kwargs)
                for what, value in res.items():
                    out['%s/%d/%s' % (name, n, what)] = value
                out['kvstore/%s/%d' % (name, n)] = np.array(json.dumps(
                    [trainer._kvstore.type, trainer._update_on_kvstore]))
                if name == 'adam' and n == 2:
                    net.save_parameters(PARAMS)
    np.savez_compressed(OUT, **out)
    print('wrote', OUT, len(out), 'arrays;', PARAMS)


if __name__ == '__main__':
    main()
