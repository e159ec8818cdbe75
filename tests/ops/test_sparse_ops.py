"""Operators on csr / row_sparse arrays against MXNet 1.9.1's results and storage types
(tests/data/sparse/ops_reference.npz, made by tests/data/gen/gen_sparse_ops_reference.py),
and the gradients of the operators that exist for sparse arrays."""
import json
import pathlib

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient, check_symbolic_backward

TESTED_OPS = {'cast_storage', '_sparse_retain', '_square_sum', '_contrib_SparseEmbedding',
              '_scatter_elemwise_div', '_scatter_plus_scalar', '_scatter_minus_scalar',
              '_contrib_getnnz'}

DATA = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'sparse'
REF = np.load(DATA / 'ops_reference.npz')
STYPES = json.loads((DATA / 'ops_stypes.json').read_text())


def _in(name, stype='default'):
    array = mx.nd.array(REF['in/' + name])
    return array if stype == 'default' else array.tostype(stype)


def _check(case, got, exact_indices=True):
    assert got.stype == STYPES[case], (case, got.stype, STYPES[case])
    np.testing.assert_allclose(got.asnumpy(), REF['out/' + case], rtol=1e-5, atol=1e-6,
                               err_msg=case)
    if exact_indices and got.stype == 'row_sparse':
        np.testing.assert_array_equal(got.indices.asnumpy(), REF['idx/' + case], err_msg=case)
    if got.stype == 'csr':
        got.check_format()


def test_dot_storage_types_and_values():
    csr = _in('csr', 'csr')
    _check('dot_csr_dns', mx.nd.dot(csr, _in('rhs')))
    _check('dot_csrT_dns', mx.nd.dot(csr, _in('rhs_t'), transpose_a=True))
    _check('dot_csrT_dns_default', mx.nd.dot(csr, _in('rhs_t'), transpose_a=True,
                                             forward_stype='default'))
    _check('dot_dns_csr', mx.nd.dot(_in('lhs_d'), _in('rhs_csr', 'csr')))
    _check('dot_dns_csrT', mx.nd.dot(_in('lhs_d8'), _in('rhs_csr', 'csr'), transpose_b=True))
    _check('dot_csr_rsp', mx.nd.sparse.dot(csr, _in('rsp_rhs', 'row_sparse')))
    _check('dot_csr_dns_as_csr', mx.nd.dot(csr, _in('rhs'), forward_stype='csr'))


@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.int64])
def test_dot_csr_transposed_keeps_exactly_the_used_columns(dtype):
    rng = np.random.RandomState(3)
    dense = (rng.uniform(0, 1, (9, 40)) > 0.9) * rng.randint(1, 5, (9, 40))
    dense[:, :5] = 0                   # columns nothing uses: absent from the result
    rhs = rng.randint(-3, 4, (9, 6))
    got = mx.nd.dot(mx.nd.array(dense, dtype=dtype).tostype('csr'),
                    mx.nd.array(rhs, dtype=dtype), transpose_a=True)
    assert got.stype == 'row_sparse' and got.dtype == dtype
    np.testing.assert_array_equal(got.indices.asnumpy(), np.flatnonzero(dense.any(axis=0)))
    np.testing.assert_array_equal(got.asnumpy(), dense.T @ rhs)
    empty = mx.nd.dot(mx.nd.sparse.zeros('csr', (9, 40), dtype=dtype),
                      mx.nd.array(rhs, dtype=dtype), transpose_a=True)
    assert empty.indices.shape == (0,) and not empty.asnumpy().any()


def test_dot_backward_gives_row_sparse_weight_gradient():
    x = mx.sym.var('x', stype='csr')
    exe = mx.sym.dot(x, mx.sym.var('w')).simple_bind(mx.cpu(), x=(6, 8), w=(8, 3))
    assert exe.grad_dict['w'].stype == 'row_sparse'
    exe.arg_dict['x'][:] = _in('csr', 'csr')
    exe.arg_dict['w'][:] = _in('rhs')
    exe.forward(is_train=True)
    _check('dot_csr_dns', exe.outputs[0])
    exe.backward(_in('ograd'))
    _check('dot_grad_w', exe.grad_dict['w'])


@pytest.mark.parametrize('transpose_a', [False, True])
def test_dot_csr_dense_gradient_as_mxnet_defines_it(transpose_a):
    rng = np.random.RandomState(1)
    lhs = mx.nd.array(rng.uniform(size=(5, 7)) * (rng.uniform(size=(5, 7)) < 0.4),
                      dtype='float64').tostype('csr')
    rhs_shape = (5, 3) if transpose_a else (7, 3)
    rhs = rng.uniform(-1, 1, rhs_shape)
    sym = mx.sym.sparse.dot(mx.sym.var('lhs', stype='csr'), mx.sym.var('rhs'),
                            transpose_a=transpose_a)
    ograd = rng.uniform(-1, 1, (7 if transpose_a else 5, 3))
    dense = lhs.asnumpy()
    expected = (dense @ ograd) if transpose_a else (dense.T @ ograd)
    check_symbolic_backward(sym, {'lhs': lhs, 'rhs': rhs}, [ograd], {'rhs': expected},
                            grad_req={'lhs': 'null', 'rhs': 'write'}, dtype=np.float64)
    check_symbolic_backward(sym, {'lhs': lhs, 'rhs': rhs}, [ograd], {'rhs': expected},
                            grad_req={'lhs': 'null', 'rhs': 'write'},
                            grad_stypes={'rhs': 'row_sparse'}, dtype=np.float64)


def test_retain_and_square_sum():
    rsp = _in('rsp', 'row_sparse')
    _check('retain', mx.nd.sparse.retain(rsp, mx.nd.array([0, 1, 3, 5], dtype='int64')))
    for axis in (0, 1):
        for keepdims in (False, True):
            case = 'square_sum_%d_%d' % (axis, keepdims)
            _check(case, mx.nd._internal._square_sum(rsp, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize('name', ['elemwise_add', 'elemwise_sub', 'elemwise_mul',
                                  'elemwise_div'])
def test_elemwise_binary_storage_rules(name):
    fn = getattr(mx.nd, name)
    rsp, rsp2 = _in('rsp', 'row_sparse'), _in('rsp2', 'row_sparse')
    csr, csr2 = _in('csr', 'csr'), _in('csr2', 'csr')
    exact = name != 'elemwise_mul'      # MXNet keeps rows whose products are all zero
    _check('%s_rsp_rsp' % name, fn(rsp, rsp2), exact)
    _check('%s_csr_csr' % name, fn(csr, csr2))
    _check('%s_dns_rsp' % name, fn(_in('dns7'), rsp))
    _check('%s_rsp_dns' % name, fn(rsp, _in('dns7')))
    _check('%s_csr_dns' % name, fn(csr, _in('dns6')))


def test_add_n_storage_rules():
    rsp, rsp2 = _in('rsp', 'row_sparse'), _in('rsp2', 'row_sparse')
    _check('add_n_rsp', mx.nd.add_n(rsp, rsp2, rsp))
    _check('add_n_mixed', mx.nd.add_n(rsp, _in('dns7'), rsp2))


@pytest.mark.parametrize('op', ['abs', 'square', 'sqrt', 'sin', 'cos', 'relu', 'sigmoid',
                                'negative', 'expm1', 'log1p', 'floor', 'zeros_like'])
def test_unary_keeps_sparsity_when_zero_maps_to_zero(op):
    with np.errstate(invalid='ignore'):
        for stype, short in (('row_sparse', 'rsp'), ('csr', 'csr')):
            got = getattr(mx.nd, op)(_in(short, stype))
            case = '%s_%s' % (op, short)
            assert got.stype == STYPES[case]
            np.testing.assert_allclose(got.asnumpy(), REF['out/' + case], rtol=1e-5,
                                       equal_nan=True)


def test_zeros_like_of_sparse_stores_nothing_also_into_out():
    # MXNet 1.9.1: zeros_like(rsp).indices and zeros_like(csr).data are empty
    for stype, short in (('row_sparse', 'rsp'), ('csr', 'csr')):
        x = _in(short, stype)
        for got in (mx.nd.zeros_like(x), mx.nd.zeros_like(x, out=x)):
            assert got.stype == stype
            assert got.data.shape[0] == 0
            assert got.shape == x.shape and not got.asnumpy().any()


def test_scalar_operators_storage_rules():
    cases = [('mul_scalar', lambda a: a * 3), ('div_scalar', lambda a: a / 2),
             ('plus_scalar', lambda a: a + 1), ('gt_scalar', lambda a: a > 0.2),
             ('ge_scalar', lambda a: a >= -0.5), ('eq_scalar', lambda a: a == 0)]
    for name, fn in cases:
        _check('%s_rsp' % name, fn(_in('rsp', 'row_sparse')))
        _check('%s_csr' % name, fn(_in('csr', 'csr')))
    _check('clip_csr', mx.nd.clip(_in('csr', 'csr'), -0.5, 0.5))


def test_csr_slice_take_cast_getnnz():
    csr2 = _in('csr2', 'csr')
    _check('slice_csr', mx.nd.slice(csr2, begin=(1, 2), end=(5, 7)))
    _check('slice_csr_rows', csr2[2:5])
    _check('take_csr', mx.nd.take(csr2, mx.nd.array([4, 0, 4, 9]), mode='clip'))
    _check('cast_csr_dns', mx.nd.cast_storage(_in('csr', 'csr'), stype='default'))
    _check('cast_dns_rsp', mx.nd.cast_storage(_in('dns7'), stype='row_sparse'))
    _check('getnnz_none', mx.nd.contrib.getnnz(csr2))
    _check('getnnz_1', mx.nd.contrib.getnnz(csr2, axis=1))
    with pytest.raises(mx.MXNetError, match='axis = 0'):
        mx.nd.contrib.getnnz(csr2, axis=0)
    with pytest.raises(mx.MXNetError, match='csr'):
        mx.nd.contrib.getnnz(_in('dns6'))


def test_scatter_operators_touch_stored_values_only():
    rsp, csr = _in('rsp', 'row_sparse'), _in('csr', 'csr')
    _check('scatter_div_rsp', mx.nd._internal._scatter_elemwise_div(rsp, _in('dns7') + 2))
    _check('scatter_div_csr', mx.nd._internal._scatter_elemwise_div(csr, _in('dns6') + 2))
    _check('scatter_plus_rsp', mx.nd._internal._scatter_plus_scalar(rsp, scalar=2.5))
    _check('scatter_minus_csr', mx.nd._internal._scatter_minus_scalar(csr, scalar=1.5))
    dense = mx.nd.array([[1., 0.], [0., 2.]])
    np.testing.assert_allclose(mx.nd._internal._scatter_plus_scalar(dense, scalar=1).asnumpy(),
                               [[2, 1], [1, 3]])


@pytest.mark.parametrize('op_name', ['Embedding', 'SparseEmbedding'])
def test_embedding_row_sparse_gradient(op_name):
    data, weight = mx.sym.var('data'), mx.sym.var('weight')
    if op_name == 'Embedding':
        sym = mx.sym.Embedding(data, weight, input_dim=10, output_dim=3, sparse_grad=True)
    else:
        sym = mx.sym.contrib.SparseEmbedding(data, weight, input_dim=10, output_dim=3)
    exe = sym.simple_bind(mx.cpu(), data=(5,), grad_req={'data': 'null', 'weight': 'write'})
    assert exe.grad_dict['weight'].stype == 'row_sparse'
    exe.arg_dict['data'][:] = np.array([3, 7, 3, 0, 9])
    exe.arg_dict['weight'][:] = REF['in/emb_weight']
    exe.forward(is_train=True)
    _check('%s_out' % op_name, exe.outputs[0])
    exe.backward(_in('emb_ograd'))
    _check('%s_grad' % op_name, exe.grad_dict['weight'])
    # a dense weight gradient without sparse_grad
    dense = mx.sym.Embedding(data, weight, input_dim=10, output_dim=3).simple_bind(
        mx.cpu(), data=(5,), grad_req={'data': 'null', 'weight': 'write'})
    assert dense.grad_dict['weight'].stype == 'default'


def test_embedding_looks_up_row_sparse_weight():
    weight = _in('emb_rsp', 'row_sparse')
    out = mx.nd.Embedding(mx.nd.array([3, 7, 0]), weight, input_dim=10, output_dim=3)
    _check('Embedding_rsp_weight', out)


def _sparse_input(stype, shape, seed=0):
    rng = np.random.RandomState(seed)
    dense = rng.uniform(0.5, 1.5, shape) * (rng.uniform(size=shape) < 0.5)
    return mx.nd.array(dense, dtype='float64').tostype(stype)


def test_numeric_gradients_of_sparse_operators():
    data = mx.sym.var('data')
    rsp = _sparse_input('row_sparse', (5, 3))
    check_numeric_gradient(mx.sym.cast_storage(data, stype='csr'), [rsp.tostype('default')],
                           dtype=np.float64)
    check_numeric_gradient(mx.sym.sparse.retain(data, mx.sym.var('indices')),
                           [rsp, mx.nd.array([0, 3], dtype='float64')], grad_nodes=['data'],
                           grad_stype_dict={'data': 'row_sparse'}, dtype=np.float64)
    for axis, keepdims in ((0, False), (1, True)):
        check_numeric_gradient(mx.sym._internal._square_sum(data, axis=axis, keepdims=keepdims),
                               [rsp], grad_stype_dict={'data': 'row_sparse'}, dtype=np.float64)
    check_numeric_gradient(mx.sym.contrib.SparseEmbedding(data, mx.sym.var('w'), input_dim=4,
                                                          output_dim=2),
                           [np.array([0., 3., 3.]), np.random.uniform(size=(4, 2))],
                           grad_nodes=['w'], dtype=np.float64)
    lhs, rhs = mx.sym.var('lhs'), mx.sym.var('rhs')
    check_numeric_gradient(mx.sym._internal._scatter_elemwise_div(lhs, rhs),
                           [np.random.uniform(1, 2, (2, 3)), np.random.uniform(1, 2, (2, 3))],
                           dtype=np.float64)
    for name in ('_scatter_plus_scalar', '_scatter_minus_scalar'):
        check_numeric_gradient(getattr(mx.sym._internal, name)(data, scalar=0.5),
                               [np.random.uniform(size=(2, 3))], dtype=np.float64)


def test_fallback_operators_densify_and_keep_out_storage():
    rsp = _sparse_input('row_sparse', (4, 3))
    csr = _sparse_input('csr', (4, 3), seed=2)
    out = mx.nd.broadcast_add(rsp, csr)
    assert out.stype == 'default'
    np.testing.assert_allclose(out.asnumpy(), rsp.asnumpy() + csr.asnumpy())
    target = mx.nd.zeros((4, 3), stype='csr', dtype='float64')
    mx.nd.broadcast_mul(rsp, csr, out=target)
    assert target.stype == 'csr'
    np.testing.assert_allclose(target.asnumpy(), rsp.asnumpy() * csr.asnumpy())
    with pytest.raises(mx.MXNetError, match='fix_gamma'):
        mx.sym.BatchNorm(mx.sym.var('data', stype='row_sparse'), fix_gamma=True).simple_bind(
            mx.cpu(), data=(2, 3))
