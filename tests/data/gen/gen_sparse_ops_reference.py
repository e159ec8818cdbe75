"""Reference results of MXNet 1.9.1's sparse operators for tests/ops/test_sparse_ops.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_sparse_ops_reference.py

Outputs, under tests/data/sparse/:
  ops_reference.npz   inputs 'in/<name>' (dense values) and results 'out/<case>' (dense
                      values) and, for sparse results, 'idx/<case>' (row_sparse indices or
                      csr indptr+indices concatenated)
  ops_stypes.json     {case: storage type of the result}
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')


def main():
    rng = np.random.RandomState(11)
    inputs, outs, stypes = {}, {}, {}

    def dense(name, shape, density=1.0, rows=None):
        value = rng.uniform(-1, 1, shape)
        if rows is not None:
            mask = np.zeros(shape[0], bool)
            mask[rows] = True
            value[~mask] = 0
        elif density < 1:
            value[rng.uniform(size=shape) > density] = 0
        inputs[name] = value.astype(np.float32)
        return inputs[name]

    def record(case, arr):
        stypes[case] = arr.stype
        outs['out/' + case] = arr.asnumpy()
        if arr.stype == 'row_sparse':
            outs['idx/' + case] = arr.indices.asnumpy()
        elif arr.stype == 'csr':
            outs['idx/' + case] = np.concatenate([arr.indptr.asnumpy(), arr.indices.asnumpy()])

    csr = mx.nd.array(dense('csr', (6, 8), 0.3)).tostype('csr')
    rhs = mx.nd.array(dense('rhs', (8, 3)))
    rhs_t = mx.nd.array(dense('rhs_t', (6, 3)))
    lhs_d = mx.nd.array(dense('lhs_d', (4, 6)))
    rhs_csr = mx.nd.array(dense('rhs_csr', (6, 8), 0.3)).tostype('csr')
    rsp_rhs = mx.nd.array(dense('rsp_rhs', (8, 3), rows=[1, 4, 5])).tostype('row_sparse')
    record('dot_csr_dns', mx.nd.dot(csr, rhs))
    record('dot_csrT_dns', mx.nd.dot(csr, rhs_t, transpose_a=True))
    record('dot_csrT_dns_default', mx.nd.dot(csr, rhs_t, transpose_a=True,
                                             forward_stype='default'))
    record('dot_dns_csr', mx.nd.dot(lhs_d, rhs_csr))
    record('dot_dns_csrT', mx.nd.dot(mx.nd.array(dense('lhs_d8', (4, 8))), rhs_csr,
                                     transpose_b=True))
    record('dot_csr_rsp', mx.nd.dot(csr, rsp_rhs))
    record('dot_csr_dns_as_csr', mx.nd.dot(csr, rhs, forward_stype='csr'))

    # dot backward: the weight gradient of a csr batch is row_sparse
    x = mx.sym.var('x', stype='csr')
    w = mx.sym.var('w')
    exe = mx.sym.dot(x, w).simple_bind(mx.cpu(), x=(6, 8), w=(8, 3))
    exe.arg_dict['x'][:] = csr
    exe.arg_dict['w'][:] = rhs
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(dense('ograd', (6, 3))))
    record('dot_grad_w', exe.grad_dict['w'])

    rsp = mx.nd.array(dense('rsp', (7, 3), rows=[0, 2, 3, 6])).tostype('row_sparse')
    idx = mx.nd.array([0, 1, 3, 5], dtype='int64')
    record('retain', mx.nd.sparse.retain(rsp, idx))
    for axis in (0, 1):
        for keepdims in (False, True):
            record('square_sum_%d_%d' % (axis, keepdims),
                   mx.nd._internal._square_sum(rsp, axis=axis, keepdims=keepdims))
    rsp2 = mx.nd.array(dense('rsp2', (7, 3), rows=[1, 2, 6])).tostype('row_sparse')
    csr2 = mx.nd.array(dense('csr2', (6, 8), 0.4)).tostype('csr')
    dns7 = mx.nd.array(dense('dns7', (7, 3)))
    dns6 = mx.nd.array(dense('dns6', (6, 8)))
    for name in ('elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div'):
        fn = getattr(mx.nd, name)
        record('%s_rsp_rsp' % name, fn(rsp, rsp2))
        record('%s_csr_csr' % name, fn(csr, csr2))
        record('%s_dns_rsp' % name, fn(dns7, rsp))
        record('%s_rsp_dns' % name, fn(rsp, dns7))
        record('%s_csr_dns' % name, fn(csr, dns6))
    record('add_n_rsp', mx.nd.add_n(rsp, rsp2, rsp))
    record('add_n_mixed', mx.nd.add_n(rsp, dns7, rsp2))
    for op in ('abs', 'square', 'sqrt', 'sin', 'cos', 'relu', 'sigmoid', 'negative',
               'expm1', 'log1p', 'floor', 'zeros_like'):
        record('%s_rsp' % op, getattr(mx.nd, op)(rsp))
        record('%s_csr' % op, getattr(mx.nd, op)(csr))
    for name, fn in [('mul_scalar', lambda a: a * 3), ('div_scalar', lambda a: a / 2),
                     ('plus_scalar', lambda a: a + 1), ('gt_scalar', lambda a: a > 0.2),
                     ('ge_scalar', lambda a: a >= -0.5), ('eq_scalar', lambda a: a == 0)]:
        record('%s_rsp' % name, fn(rsp))
        record('%s_csr' % name, fn(csr))
    record('clip_csr', mx.nd.clip(csr, -0.5, 0.5))
    record('slice_csr', mx.nd.slice(csr2, begin=(1, 2), end=(5, 7)))
    record('slice_csr_rows', csr2[2:5])
    record('take_csr', mx.nd.take(csr2, mx.nd.array([4, 0, 4, 9]), mode='clip'))
    record('cast_csr_dns', mx.nd.cast_storage(csr, stype='default'))
    record('cast_dns_rsp', mx.nd.cast_storage(dns7, stype='row_sparse'))
    record('getnnz_none', mx.nd.contrib.getnnz(csr2))
    record('getnnz_1', mx.nd.contrib.getnnz(csr2, axis=1))
    record('scatter_div_rsp', mx.nd._internal._scatter_elemwise_div(rsp, dns7 + 2))
    record('scatter_div_csr', mx.nd._internal._scatter_elemwise_div(csr, dns6 + 2))
    record('scatter_plus_rsp', mx.nd._internal._scatter_plus_scalar(rsp, scalar=2.5))
    record('scatter_minus_csr', mx.nd._internal._scatter_minus_scalar(csr, scalar=1.5))

    # embeddings: row_sparse weight gradient of the rows a batch uses
    data = mx.sym.var('data')
    emb_weight = dense('emb_weight', (10, 3))
    emb_ograd = mx.nd.array(dense('emb_ograd', (5, 3)))
    for op_name in ('Embedding', 'SparseEmbedding'):
        weight = mx.sym.var('weight')
        if op_name == 'Embedding':
            sym = mx.sym.Embedding(data, weight, input_dim=10, output_dim=3, sparse_grad=True)
        else:
            sym = mx.sym.contrib.SparseEmbedding(data, weight, input_dim=10, output_dim=3)
        exe = sym.simple_bind(mx.cpu(), data=(5,), grad_req={'data': 'null', 'weight': 'write'})
        exe.arg_dict['data'][:] = np.array([3, 7, 3, 0, 9])
        exe.arg_dict['weight'][:] = emb_weight
        exe.forward(is_train=True)
        record('%s_out' % op_name, exe.outputs[0])
        exe.backward(emb_ograd)
        record('%s_grad' % op_name, exe.grad_dict['weight'])
    emb_rsp = mx.nd.array(dense('emb_rsp', (10, 3), rows=[0, 3, 8])).tostype('row_sparse')
    record('Embedding_rsp_weight', mx.nd.Embedding(mx.nd.array([3, 7, 0]), emb_rsp,
                                                   input_dim=10, output_dim=3))

    os.makedirs(OUT, exist_ok=True)
    np.savez(os.path.join(OUT, 'ops_reference.npz'),
             **{'in/' + k: v for k, v in inputs.items()}, **outs)
    with open(os.path.join(OUT, 'ops_stypes.json'), 'w') as f:
        json.dump(stypes, f, indent=1, sort_keys=True)


if __name__ == '__main__':
    main()
