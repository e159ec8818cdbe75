"""_square_sum of a row_sparse input has a row_sparse gradient on the input's rows, as in
MXNet 1.9.1 (tests/data/sparse/square_sum_rsp_grad.npz, from
tests/data/gen/gen_square_sum_rsp_grad.py): simple_bind allocates it row_sparse, so an
optimizer updates those rows lazily instead of the whole table."""
import os

import numpy as np
import pytest

import symmod as mx

REF = np.load(os.path.join(os.path.dirname(__file__), '..', 'data', 'sparse',
                           'square_sum_rsp_grad.npz'))
CASES = [(0, False), (1, True), (1, False)]


def _x():
    return mx.nd.array(REF['x']).tostype('row_sparse')


@pytest.mark.parametrize('axis,keepdims', CASES)
def test_bound_gradient_matches_mxnet(axis, keepdims):
    key = 'a%d_k%d_' % (axis, keepdims)
    sym = mx.sym._internal._square_sum(mx.sym.var('x', stype='row_sparse'), axis=axis,
                                       keepdims=keepdims)
    exe = sym.simple_bind(mx.cpu(), x=(6, 4), stype_dict={'x': 'row_sparse'})
    _x().copyto(exe.arg_dict['x'])
    out = exe.forward(is_train=True)[0]
    assert out.stype == str(REF[key + 'out_stype'])
    head = mx.nd.array(REF[key + 'head'])
    exe.backward(head.tostype(out.stype))
    grad = exe.grad_dict['x']
    assert grad.stype == str(REF[key + 'stype']) == 'row_sparse'
    np.testing.assert_array_equal(grad.indices.asnumpy(), REF[key + 'rows'])
    np.testing.assert_allclose(grad.data.asnumpy(), REF[key + 'data'], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('axis,keepdims', CASES)
def test_autograd_gradient_matches_mxnet(axis, keepdims):
    key = 'a%d_k%d_' % (axis, keepdims)
    x = _x()
    x.attach_grad(stype='row_sparse')
    with mx.autograd.record():
        out = mx.nd._internal._square_sum(x, axis=axis, keepdims=keepdims)
    out.backward(mx.nd.array(REF[key + 'head']).tostype(out.stype))
    np.testing.assert_array_equal(x.grad.indices.asnumpy(), REF[key + 'rows'])
    np.testing.assert_allclose(x.grad.data.asnumpy(), REF[key + 'data'], rtol=1e-6, atol=1e-7)


def test_factorization_machine_term_gets_row_sparse_gradient():
    # the pairwise term of MXNet's example/sparse/factorization_machine: v feeds both
    # dot(csr, v) and _square_sum(v); both give row_sparse gradients, so v's is row_sparse
    data = mx.sym.var('data', stype='csr')
    v = mx.sym.var('v', stype='row_sparse')
    v_s = mx.sym._internal._square_sum(data=v, axis=1, keepdims=True)
    out = mx.sym.sum(mx.sym.dot(data, v)) + mx.sym.sum(mx.sym.dot(data.square(), v_s))
    exe = out.simple_bind(mx.cpu(), data=(3, 6), v=(6, 4),
                          stype_dict={'data': 'csr', 'v': 'row_sparse'})
    assert exe.grad_dict['v'].stype == 'row_sparse'
    exe.arg_dict['data'][:] = mx.nd.array([[1, 0, 2, 0, 0, 0], [0, 0, 1, 0, 0, 0],
                                           [0, 0, 0, 0, 0, 3]]).tostype('csr')
    _x().copyto(exe.arg_dict['v'])
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((1,)))
    x = REF['x']
    present = np.abs(x).sum(axis=1) > 0
    col = np.array([1, 0, 3, 0, 0, 3], dtype=np.float32)          # column sums of data
    col_sq = np.array([1, 0, 5, 0, 0, 9], dtype=np.float32)       # of data ** 2
    expected = col[:, None] + 2 * x * col_sq[:, None]
    grad = exe.grad_dict['v']
    dense = grad.asnumpy()
    np.testing.assert_allclose(dense[present], expected[present], rtol=1e-6)
