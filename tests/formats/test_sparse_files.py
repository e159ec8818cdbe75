"""Sparse records in nd.save files: MXNet 1.9.1's files load, and symmod writes the same
bytes (tests/data/sparse/*.nd, made by tests/data/gen/gen_sparse_formats.py)."""
import pathlib
import struct

import numpy as np
import pytest

import symmod as mx
from symmod.formats import params

DATA = pathlib.Path(__file__).resolve().parents[1] / 'data' / 'sparse'
EXPECTED = np.load(DATA / 'sparse_files.npz')


def _check_values(arrays):
    for i, array in enumerate(arrays):
        assert array.stype == str(EXPECTED['stype/%d' % i])
        np.testing.assert_array_equal(array.asnumpy(), EXPECTED['dense/%d' % i])
        if array.stype != 'default':
            np.testing.assert_array_equal(array.data.asnumpy(), EXPECTED['data/%d' % i])
            np.testing.assert_array_equal(array.indices.asnumpy(), EXPECTED['indices/%d' % i])
        if array.stype == 'csr':
            np.testing.assert_array_equal(array.indptr.asnumpy(), EXPECTED['indptr/%d' % i])


def test_mxnet_sparse_files_load_and_save_byte_identical(tmp_path):
    listed = mx.nd.load(str(DATA / 'sparse_list.nd'))
    _check_values(listed)
    named = mx.nd.load(str(DATA / 'sparse_dict.nd'))
    _check_values([named['a%d' % i] for i in range(len(named))])
    mx.nd.save(str(tmp_path / 'list.nd'), listed)
    mx.nd.save(str(tmp_path / 'dict.nd'), named)
    assert (tmp_path / 'list.nd').read_bytes() == (DATA / 'sparse_list.nd').read_bytes()
    assert (tmp_path / 'dict.nd').read_bytes() == (DATA / 'sparse_dict.nd').read_bytes()


def test_sparse_arrays_rebuilt_from_parts_write_mxnet_bytes(tmp_path):
    listed = mx.nd.load(str(DATA / 'sparse_list.nd'))
    rebuilt = []
    for array in listed:
        if array.stype == 'csr':
            rebuilt.append(mx.nd.sparse.csr_matrix(array.asnumpy()))
        elif array.stype == 'row_sparse':
            rebuilt.append(mx.nd.sparse.row_sparse_array(
                (array.data.asnumpy(), array.indices.asnumpy()), shape=array.shape))
        else:
            rebuilt.append(mx.nd.array(array.asnumpy()))
    mx.nd.save(str(tmp_path / 'again.nd'), rebuilt)
    assert (tmp_path / 'again.nd').read_bytes() == (DATA / 'sparse_list.nd').read_bytes()


def test_pickle_handle_is_one_sparse_record():
    csr = mx.nd.load(str(DATA / 'sparse_list.nd'))[0]
    record = params.encode_record(csr)
    assert struct.unpack_from('<Ii', record) == (0xF993FAC9, 2)
    np.testing.assert_array_equal(params.wrap_record(params.decode_record(record),
                                                     mx.cpu()).asnumpy(), csr.asnumpy())


def _record_bytes(index):
    blob = (DATA / 'sparse_list.nd').read_bytes()
    arrays, _ = params.decode_arrays(blob)
    return params.encode_record(params.wrap_record(arrays[index], mx.cpu()))


def test_damaged_sparse_records_raise_clear_errors():
    record = _record_bytes(0)
    with pytest.raises(mx.MXNetError, match='truncated'):
        params.decode_record(record[:-3])
    # the indptr aux shape no longer matches the row count
    offset = 4 + 4 + (4 + 8) + (4 + 16) + 12 + 4
    bad = bytearray(record)
    struct.pack_into('<q', bad, offset + 4, 99)
    with pytest.raises(mx.MXNetError, match='inconsistent csr record'):
        params.decode_record(bytes(bad))


def test_np_shape_refuses_sparse_saving(tmp_path):
    csr = mx.nd.ones((2, 2)).tostype('csr')
    with mx.util.np_shape(True):
        with pytest.raises(mx.MXNetError, match='default storage'):
            mx.nd.save(str(tmp_path / 'x.nd'), [csr])
    assert not (tmp_path / 'x.nd').exists()
