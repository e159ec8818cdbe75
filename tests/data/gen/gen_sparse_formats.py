"""Write sparse nd.save files with real MXNet 1.9.1 for tests/formats/test_sparse_files.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_sparse_formats.py

Outputs, under tests/data/sparse/:
  sparse_list.nd     nd.save of a list: csr float32, row_sparse float32 (2-D and 3-D),
                     csr float64 with int32 aux types, empty csr and row_sparse, a dense array
  sparse_dict.nd     the same arrays saved as a dict 'a0'..'a6'
  sparse_files.npz   per array i: 'dense/i', 'stype/i', 'data/i' and the aux arrays
                     ('indptr/i', 'indices/i'), with their dtypes
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')


def arrays():
    rng = np.random.RandomState(7)
    dense = rng.uniform(-1, 1, (5, 6)).astype(np.float32)
    dense[dense < 0.3] = 0
    csr = mx.nd.array(dense).tostype('csr')
    rows = rng.uniform(-1, 1, (6, 3)).astype(np.float32)
    rows[[0, 2, 3]] = 0
    rsp = mx.nd.array(rows).tostype('row_sparse')
    rsp3 = mx.nd.sparse.row_sparse_array((rng.uniform(size=(2, 2, 3)), [1, 4]), shape=(5, 2, 3))
    csr64 = mx.nd.sparse._csr_matrix_from_definition(
        mx.nd.array([1.5, -2., 3.], dtype='float64'), mx.nd.array([0, 3, 1], dtype='int32'),
        mx.nd.array([0, 2, 2, 3], dtype='int32'), shape=(3, 4))
    empty_csr = mx.nd.sparse.zeros('csr', (3, 4))
    empty_rsp = mx.nd.sparse.zeros('row_sparse', (4, 2))
    return [csr, rsp, rsp3, csr64, empty_csr, empty_rsp, mx.nd.arange(6).reshape((2, 3))]


def main():
    os.makedirs(OUT, exist_ok=True)
    values = arrays()
    mx.nd.save(os.path.join(OUT, 'sparse_list.nd'), values)
    mx.nd.save(os.path.join(OUT, 'sparse_dict.nd'), {'a%d' % i: v for i, v in enumerate(values)})
    expected = {}
    for i, v in enumerate(values):
        expected['dense/%d' % i] = v.asnumpy()
        expected['stype/%d' % i] = np.array(v.stype)
        if v.stype != 'default':
            expected['data/%d' % i] = v.data.asnumpy()
            expected['indices/%d' % i] = v.indices.asnumpy()
        if v.stype == 'csr':
            expected['indptr/%d' % i] = v.indptr.asnumpy()
    np.savez(os.path.join(OUT, 'sparse_files.npz'), **expected)


if __name__ == '__main__':
    main()
