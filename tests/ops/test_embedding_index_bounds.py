"""Out-of-range embedding indices against MXNet 1.9.1
(tests/data/gen/gen_embedding_bounds_reference.py): a dense lookup and its dense
gradient clip them, while the row-sparse weight gradient (imperative, bound symbol,
hybridized block, SparseEmbedding) and the lookup in a row_sparse weight raise MXNet's
error; symmod clipped those silently."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

CASES = json.loads((pathlib.Path(__file__).resolve().parents[1] / 'data' / 'sparse'
                    / 'embedding_bounds_cases.json').read_text())
INPUT_DIM, OUTPUT_DIM = 5, 2


def _weight():
    return mx.nd.array(np.arange(INPUT_DIM * OUTPUT_DIM).reshape(INPUT_DIM, OUTPUT_DIM) + 1)


def _imperative_backward(data, sparse_grad):
    w = _weight()
    w.attach_grad(stype='row_sparse' if sparse_grad else 'default')
    with mx.autograd.record():
        y = mx.nd.Embedding(data, w, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM,
                            sparse_grad=sparse_grad)
    y.backward()
    return w.grad.tostype('default').asnumpy()


def _symbolic_backward(data, sparse_embedding):
    d, w = mx.sym.var('d'), mx.sym.var('w')
    if sparse_embedding:
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


def _hybridized_backward(data):
    net = mx.gluon.nn.Embedding(INPUT_DIM, OUTPUT_DIM, sparse_grad=True, prefix='e_')
    net.initialize()
    net.weight.set_data(_weight())
    net.hybridize()
    with mx.autograd.record():
        y = (net(data) * 2 + 1).sum()
    y.backward()
    return net.weight.grad().tostype('default').asnumpy()


def _row_sparse_weight_forward(data):
    w = _weight().tostype('row_sparse')
    return mx.nd.Embedding(data, w, input_dim=INPUT_DIM, output_dim=OUTPUT_DIM).asnumpy()


PATHS = {
    'dense_grad': lambda d: _imperative_backward(d, False),
    'sparse_grad': lambda d: _imperative_backward(d, True),
    'symbolic_embedding': lambda d: _symbolic_backward(d, False),
    'symbolic_sparse_embedding': lambda d: _symbolic_backward(d, True),
    'hybridized': _hybridized_backward,
    'row_sparse_weight_forward': _row_sparse_weight_forward,
}


@pytest.mark.parametrize('case', CASES, ids=[c['name'] for c in CASES])
def test_embedding_indices_out_of_range_as_mxnet(case):
    data = mx.nd.array(case['indices'], dtype=case['dtype'])
    run = PATHS[case['path']]
    if case['error']:
        what = 'SparseEmbedding' if 'SparseEmbedding' in case['error'] else 'Embedding'
        with pytest.raises(MXNetError, match='^%s input contains data out of bound: '
                           r'indices must lie in \[0, 4\]' % what):
            run(data)
    else:
        np.testing.assert_array_equal(run(data), np.array(case['values'], dtype=np.float32))
