"""Out-of-range embedding indices in real MXNet 1.9.1, for
tests/ops/test_embedding_index_bounds.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_embedding_bounds_reference.py

A dense lookup clips an index to [0, input_dim - 1]; the row-sparse weight gradient
(``sparse_grad=True``, ``_contrib_SparseEmbedding``) and the lookup in a row_sparse weight
refuse an index outside that range, compared as given (4.5 is refused for input_dim 5,
3.9 is row 3). Each case records the weight-gradient rows (or the lookup), or that MXNet
raised and the last line of its message.

Output: tests/data/sparse/embedding_bounds_cases.json, a list of
{name, path, indices, dtype, error (null or message), rows, values}
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')
INPUT_DIM, OUTPUT_DIM = 5, 2
INDICES = [('in_range', [0, 4, 2], 'float32'), ('above', [0, 5], 'float32'),
           ('negative', [-1, 1], 'float32'), ('fraction_above', [4.5], 'float32'),
           ('fraction_below', [-0.5], 'float32'), ('fraction_inside', [3.9, 0], 'float32'),
           ('int_above', [1, 7], 'int32'), ('int64_negative', [-2, 3], 'int64')]


def _weight():
    return mx.nd.array(np.arange(INPUT_DIM * OUTPUT_DIM).reshape(INPUT_DIM, OUTPUT_DIM) + 1)


def imperative_backward(data, sparse_grad):
    w = _weight()
    w.attach_grad(stype='row_sparse' if sparse_grad else 'default')
    with mx.autograd.record():
        y = mx.nd.Embedding(data, w, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM,
                            sparse_grad=sparse_grad)
    y.backward()
    return w.grad.tostype('default').asnumpy()


def symbolic_backward(data, op):
    d, w = mx.sym.var('d'), mx.sym.var('w')
    if op == 'SparseEmbedding':
        sym = mx.sym.contrib.SparseEmbedding(d, w, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM)
    else:
        sym = mx.sym.Embedding(d, w, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM,
                               sparse_grad=True)
    exe = sym.bind(mx.cpu(), {'d': data, 'w': _weight()},
                   args_grad={'w': mx.nd.zeros((INPUT_DIM, OUTPUT_DIM), stype='row_sparse')},
                   grad_req={'d': 'null', 'w': 'write'})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((data.shape[0], OUTPUT_DIM)))
    return exe.grad_dict['w'].tostype('default').asnumpy()


def hybridized_backward(data):
    net = mx.gluon.nn.Embedding(INPUT_DIM, OUTPUT_DIM, sparse_grad=True, prefix='e_')
    net.initialize()
    net.weight.set_data(_weight())
    net.hybridize()
    with mx.autograd.record():
        y = (net(data) * 2 + 1).sum()
    y.backward()
    return net.weight.grad().tostype('default').asnumpy()


def row_sparse_weight_forward(data):
    w = _weight().tostype('row_sparse')
    return mx.nd.Embedding(data, w, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM).asnumpy()


PATHS = {
    'dense_grad': lambda d: imperative_backward(d, False),
    'sparse_grad': lambda d: imperative_backward(d, True),
    'symbolic_embedding': lambda d: symbolic_backward(d, 'Embedding'),
    'symbolic_sparse_embedding': lambda d: symbolic_backward(d, 'SparseEmbedding'),
    'hybridized': hybridized_backward,
    'row_sparse_weight_forward': row_sparse_weight_forward,
}


def main():
    cases = []
    for path, run in PATHS.items():
        for name, indices, dtype in INDICES:
            case = {'name': '%s-%s' % (path, name), 'path': path, 'indices': indices,
                    'dtype': dtype, 'error': None, 'values': None}
            try:
                case['values'] = run(mx.nd.array(indices, dtype=dtype)).tolist()
            except mx.base.MXNetError as err:
                case['error'] = str(err).strip().splitlines()[-1]
            cases.append(case)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, 'embedding_bounds_cases.json'), 'w') as f:
        json.dump(cases, f, indent=1)


if __name__ == '__main__':
    main()
