"""CSRNDArray and RowSparseNDArray: construction, conversion, copies, slicing, checks."""
import pickle

import numpy as np
import pytest
import scipy.sparse as spsp

import symmod as mx
from symmod.base import NotSupportedForSparseNDArray

DENSE = np.array([[0, 1, 0, 0], [2, 0, 3, 0], [0, 0, 0, 0]], dtype=np.float32)


def test_csr_from_parts_dense_scipy_coo_and_shape():
    a = mx.nd.sparse.csr_matrix(([1., 2., 3.], [1, 0, 2], [0, 1, 3, 3]), shape=(3, 4))
    assert isinstance(a, mx.nd.sparse.CSRNDArray) and a.stype == 'csr'
    np.testing.assert_array_equal(a.asnumpy(), DENSE)
    np.testing.assert_array_equal(a.indptr.asnumpy(), [0, 1, 3, 3])
    assert a.indices.dtype == np.int64 and a.indptr.dtype == np.int64
    assert a._num_aux == 2 and a._aux_types == [np.int64, np.int64]
    np.testing.assert_array_equal(mx.nd.sparse.csr_matrix(DENSE).asnumpy(), DENSE)
    b = mx.nd.sparse.csr_matrix(spsp.csr_matrix(DENSE.astype(np.float64)))
    assert b.dtype == np.float64
    coo = mx.nd.sparse.csr_matrix(([5., 6.], ([2, 0], [3, 1])), shape=(3, 4))
    np.testing.assert_array_equal(coo.asnumpy()[[0, 2], [1, 3]], [6, 5])
    empty = mx.nd.sparse.csr_matrix((3, 4), dtype='int32', ctx=mx.cpu(1))
    assert empty.dtype == np.int32 and empty.context == mx.cpu(1)
    assert not empty.asnumpy().any()
    inferred = mx.nd.sparse.csr_matrix(([1.], [5], [0, 0, 1]))
    assert inferred.shape == (2, 6)
    with pytest.raises(ValueError, match='Shape mismatch'):
        mx.nd.sparse.csr_matrix((2, 2), shape=(3, 2))
    with pytest.raises(ValueError):
        mx.nd.sparse.csr_matrix(mx.nd.zeros((2, 2)).tostype('row_sparse'))


def test_scipy_non_canonical_input_is_made_canonical():
    raw = spsp.csr_matrix((np.array([1., 2, 3, 4]), np.array([2, 0, 2, 1]),
                           np.array([0, 3, 4])), shape=(2, 3))
    a = mx.nd.sparse.array(raw)
    np.testing.assert_array_equal(a.indices.asnumpy(), [0, 2, 1])
    np.testing.assert_array_equal(a.data.asnumpy(), [2, 4, 4])
    a.check_format()
    assert mx.nd.array(raw).stype == 'csr'


def test_row_sparse_from_parts_dense_and_shape():
    a = mx.nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], [0, 2]), shape=(4, 2))
    assert isinstance(a, mx.nd.sparse.RowSparseNDArray)
    np.testing.assert_array_equal(a.asnumpy(), [[1, 2], [0, 0], [3, 4], [0, 0]])
    assert a.indices.dtype == np.int64 and a._num_aux == 1
    assert mx.nd.sparse.row_sparse_array(([[1.]], [4])).shape == (5, 1)
    assert mx.nd.sparse.row_sparse_array((np.int64(3), np.int32(2))).shape == (3, 2)
    three = mx.nd.sparse.row_sparse_array((2, 3, 4), dtype='float64')
    assert three.shape == (2, 3, 4) and three.dtype == np.float64
    dense = np.zeros((3, 2, 2))
    dense[1] = 1
    rsp = mx.nd.array(dense).tostype('row_sparse')
    np.testing.assert_array_equal(rsp.indices.asnumpy(), [1])
    with pytest.raises(ValueError):
        mx.nd.sparse.row_sparse_array((2, 2), shape=(3, 2))
    with pytest.raises(ValueError):
        mx.nd.sparse.zeros('invalid_stype', (2, 2))


def test_zeros_empty_and_conversions():
    for stype in ('csr', 'row_sparse'):
        z = mx.nd.zeros((3, 4), stype=stype)
        assert z.stype == stype and not z.asnumpy().any()
        assert mx.nd.empty((3, 4), stype=stype).stype == stype
        s = mx.nd.array(DENSE).tostype(stype)
        np.testing.assert_array_equal(s.asnumpy(), DENSE)
        back = s.tostype('default')
        assert back.stype == 'default' and type(back) is mx.nd.NDArray
        np.testing.assert_array_equal(mx.nd.cast_storage(s, stype='default').asnumpy(), DENSE)
    with pytest.raises(ValueError):
        mx.nd.array(DENSE).tostype('csr').tostype('row_sparse')
    with pytest.raises(ValueError):
        mx.nd.array([1, 2, 3]).tostype('csr')
    with pytest.raises(mx.MXNetError, match='float16'):
        mx.nd.array(DENSE, dtype='float16').tostype('csr')
    assert mx.nd.array(DENSE, dtype='float16').tostype('row_sparse').dtype == np.float16
    np.testing.assert_array_equal(mx.nd.array(DENSE).tostype('csr').asscipy().toarray(), DENSE)


def test_copyto_astype_context_and_assignment():
    csr = mx.nd.array(DENSE).tostype('csr')
    on_cpu1 = csr.copyto(mx.cpu(1))
    assert on_cpu1.stype == 'csr' and on_cpu1.context == mx.cpu(1)
    assert csr.as_in_context(mx.cpu(0)) is csr
    dense = mx.nd.zeros((3, 4))
    csr.copyto(dense)
    np.testing.assert_array_equal(dense.asnumpy(), DENSE)
    target = mx.nd.zeros((3, 4), stype='csr', dtype='float64')
    mx.nd.ones((3, 4)).copyto(target)
    assert target.stype == 'csr' and target.asnumpy().sum() == 12 and target.dtype == np.float64
    with pytest.raises(TypeError):
        csr.copyto(mx.nd.zeros((3, 4), stype='row_sparse'))
    assert csr.astype('float32', copy=False) is csr
    as64 = csr.astype('float64')
    assert as64.stype == 'csr' and as64.dtype == np.float64 and as64 is not csr
    rsp = mx.nd.zeros((3, 4), stype='row_sparse')
    rsp[:] = 2
    assert (rsp.asnumpy() == 2).all()
    rsp[:] = DENSE
    np.testing.assert_array_equal(rsp.indices.asnumpy(), [0, 1])
    with pytest.raises(ValueError):
        csr[:] = 3
    with pytest.raises(TypeError):
        rsp[1] = 2


def test_csr_row_slicing_and_unsupported_operations():
    csr = mx.nd.array(DENSE).tostype('csr')
    np.testing.assert_array_equal(csr[1:3].asnumpy(), DENSE[1:3])
    np.testing.assert_array_equal(csr[-1].asnumpy(), DENSE[-1:])
    np.testing.assert_array_equal(csr[1].asnumpy(), DENSE[1:2])
    assert csr[:] is csr
    with pytest.raises(ValueError):
        csr[0:2:2]
    with pytest.raises(ValueError):
        csr[0, 1]
    rsp = mx.nd.array(DENSE).tostype('row_sparse')
    assert rsp[:] is rsp
    for fn in (lambda x: x._slice(0, 1), lambda x: x._at(0), lambda x: x.reshape((4, 3))):
        with pytest.raises(NotSupportedForSparseNDArray):
            fn(rsp)
    with pytest.raises(NotImplementedError):
        rsp.size


def test_check_format_rules():
    ok = mx.nd.sparse.csr_matrix(([7., 8., 9.], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))
    ok.check_format()
    bad = [([0, 2, 1], [0, 5, 2, 3], 'IndPtr'), ([2, 1, 1], [0, 2, 2, 3], 'Indices'),
           ([1, 2, 1], [0, 2, 2, 4], 'IndPtr'), ([0, 2, 1], [0, -2, 2, 3], 'IndPtr'),
           ([0, 4, 1], [0, 2, 2, 3], 'Indices')]
    for indices, indptr, what in bad:
        a = mx.nd.sparse.csr_matrix(([7., 8., 9.], indices, indptr), shape=(3, 4))
        with pytest.raises(mx.MXNetError, match=what):
            a.check_format()
        a.check_format(full_check=False)
    for indices in ([1, 4], [1, 0], [1, -2], [1, 1]):
        a = mx.nd.sparse.row_sparse_array(([[1., 2.], [3., 4.]], indices), shape=(3, 2))
        with pytest.raises(mx.MXNetError, match='row_sparse'):
            a.check_format()


def test_pickle_and_repr():
    for stype, cls in (('csr', mx.nd.sparse.CSRNDArray),
                       ('row_sparse', mx.nd.sparse.RowSparseNDArray)):
        a = mx.nd.array(DENSE).tostype(stype)
        b = pickle.loads(pickle.dumps(a))
        assert isinstance(b, cls)
        np.testing.assert_array_equal(b.asnumpy(), DENSE)
        assert repr(a) == '\n<%s 3x4 @cpu(0)>' % cls.__name__


def test_arithmetic_uses_mxnet_operators_and_storage_types():
    a = mx.nd.array(DENSE).tostype('csr')
    b = mx.nd.array(DENSE * 2).tostype('csr')
    assert (a + b).stype == 'csr' and (a * b).stype == 'csr' and (a - b).stype == 'csr'
    np.testing.assert_array_equal((a + b).asnumpy(), DENSE * 3)
    assert (a * 2).stype == 'csr' and (a + 1).stype == 'default'
    assert (-a).stype == 'csr' and (a > 0).stype == 'csr' and (a >= 0).stype == 'default'
    a += b
    assert a.stype == 'csr'
    np.testing.assert_array_equal(a.asnumpy(), DENSE * 3)
    r = mx.nd.array(DENSE).tostype('row_sparse')
    np.testing.assert_array_equal((r + mx.nd.ones((1, 4))).asnumpy(), DENSE + 1)
    np.testing.assert_array_equal(mx.nd.sparse.add(r, r).indices.asnumpy(), [0, 1])
