"""nd.save / nd.load round trips, the byte layout, every record version, and input checks."""
import struct

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import params

DTYPES = ['float32', 'float64', 'float16', 'uint8', 'int8', 'int32', 'int64', 'bool']
FLAGS = {'float32': 0, 'float64': 1, 'float16': 2, 'uint8': 3, 'int32': 4, 'int8': 5,
         'int64': 6, 'bool': 7}
SHAPES = [(0,), (1,), (3, 4), (2, 0, 3), (2, 3, 4, 5), (257, 129)]


def sample(dtype, shape, rng):
    if dtype == 'bool':
        return rng.random_sample(shape) > 0.5
    if np.issubdtype(np.dtype(dtype), np.integer):
        info = np.iinfo(dtype)
        values = rng.randint(info.min, info.max, size=shape, dtype=dtype)
        values.flat[:2] = [info.min, info.max][:values.size]
        return values
    return (rng.standard_normal(shape) * 100).astype(dtype)


def expected_record(array, magic=0xF993FAC9):
    """One record written from FORMATS.md's description, independently of the encoder."""
    return (struct.pack('<Iii', magic, 0, array.ndim)
            + b''.join(struct.pack('<q', d) for d in array.shape)
            + struct.pack('<iii', 1, 0, FLAGS[array.dtype.name])
            + array.astype(array.dtype.newbyteorder('<')).tobytes(order='C'))


def expected_file(arrays, names=()):
    out = struct.pack('<QQQ', 0x112, 0, len(arrays)) + b''.join(expected_record(a) for a in arrays)
    out += struct.pack('<Q', len(names))
    for name in names:
        raw = name.encode('utf-8')
        out += struct.pack('<Q', len(raw)) + raw
    return out


@pytest.mark.parametrize('dtype', DTYPES)
@pytest.mark.parametrize('shape', SHAPES)
def test_round_trip_every_dtype_and_shape(tmp_path, dtype, shape):
    rng = np.random.RandomState(1)
    host = sample(dtype, shape, rng)
    path = tmp_path / 'one.nd'
    mx.nd.save(str(path), [mx.nd.array(host, dtype=dtype)])
    assert path.read_bytes() == expected_file([host])
    (loaded,) = mx.nd.load(str(path))
    assert loaded.shape == shape and np.dtype(loaded.dtype) == np.dtype(dtype)
    np.testing.assert_array_equal(loaded.asnumpy(), host)


def test_dict_keeps_insertion_order_and_unicode_names(tmp_path):
    rng = np.random.RandomState(2)
    names = ['zeta', 'arg:fc1_weight', 'aux:bn_moving_var', 'ünïcødé ∑', 'a', '']
    data = {name: mx.nd.array(rng.standard_normal((i + 1, 2))) for i, name in enumerate(names)}
    path = tmp_path / 'dict.params'
    mx.nd.save(str(path), data)
    assert path.read_bytes() == expected_file([v.asnumpy() for v in data.values()], names)
    loaded = mx.nd.load(str(path))
    assert list(loaded) == names
    for name in names:
        np.testing.assert_array_equal(loaded[name].asnumpy(), data[name].asnumpy())


def test_mixed_dtypes_in_one_list(tmp_path):
    rng = np.random.RandomState(3)
    hosts = [sample(dtype, (3, 5), rng) for dtype in DTYPES]
    path = tmp_path / 'mixed.nd'
    mx.nd.save(str(path), [mx.nd.array(h, dtype=h.dtype) for h in hosts])
    loaded = mx.nd.load(str(path))
    assert [np.dtype(a.dtype) for a in loaded] == [h.dtype for h in hosts]
    for array, host in zip(loaded, hosts):
        np.testing.assert_array_equal(array.asnumpy(), host)


def test_single_array_saves_as_a_list_of_one(tmp_path):
    path = tmp_path / 'single.nd'
    mx.nd.save(str(path), mx.nd.ones((2, 2)))
    loaded = mx.nd.load(str(path))
    assert isinstance(loaded, list) and len(loaded) == 1
    np.testing.assert_array_equal(loaded[0].asnumpy(), np.ones((2, 2), np.float32))


def test_numpy_arrays_and_unusual_layouts_are_accepted(tmp_path):
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    data = {'numpy': base, 'transposed': base.T, 'strided': base[::2, ::3],
            'fortran': np.asfortranarray(base), 'big_endian': base.astype('>f4'),
            'ndarray': mx.nd.array(base)}
    path = tmp_path / 'layouts.nd'
    mx.nd.save(str(path), data)
    loaded = mx.nd.load(str(path))
    for name, value in data.items():
        expected = value.asnumpy() if isinstance(value, mx.nd.NDArray) else value
        np.testing.assert_array_equal(loaded[name].asnumpy(), expected)
    assert np.dtype(loaded['big_endian'].dtype) == np.float32


def test_empty_list_and_empty_dict_both_load_as_empty_list(tmp_path):
    # MXNet writes no names for an empty dict, so it comes back as a list (as in MXNet).
    for data in ([], {}):
        path = tmp_path / 'empty.nd'
        mx.nd.save(str(path), data)
        assert path.read_bytes() == struct.pack('<QQQQ', 0x112, 0, 0, 0)
        assert mx.nd.load(str(path)) == []


def test_zero_d_arrays_make_a_v3_file(tmp_path):
    # MXNet writes 0-d arrays only under np_shape(True), where every record is V3.
    scalar = np.array(2.5, dtype=np.float32)
    vector = np.arange(3, dtype=np.int64)
    path = tmp_path / 'scalar.nd'
    mx.nd.save(str(path), {'s': scalar, 'v': vector})
    raw = path.read_bytes()
    expected = (struct.pack('<QQQ', 0x112, 0, 2) + expected_record(scalar, 0xF993FACA)
                + expected_record(vector, 0xF993FACA) + struct.pack('<Q', 2)
                + struct.pack('<Q', 1) + b's' + struct.pack('<Q', 1) + b'v')
    assert raw == expected
    loaded = mx.nd.load(str(path))
    assert loaded['s'].shape == () and loaded['s'].asnumpy() == 2.5
    np.testing.assert_array_equal(loaded['v'].asnumpy(), vector)


@pytest.mark.parametrize('dtype', DTYPES)
def test_encode_decode_record(dtype):
    host = sample(dtype, (4, 3), np.random.RandomState(4))
    record = params.encode_record(host)
    assert record == expected_record(host)
    decoded = params.decode_record(record)
    assert decoded.dtype == np.dtype(dtype) and decoded.flags.writeable
    np.testing.assert_array_equal(decoded, host)
    np.testing.assert_array_equal(params.decode_record(bytearray(record)), host)


def test_decode_record_refuses_trailing_bytes():
    record = params.encode_record(np.ones(3, np.float32))
    with pytest.raises(MXNetError, match='unexpected bytes'):
        params.decode_record(record + b'\0')


def file_of(records):
    return (struct.pack('<QQQ', 0x112, 0, len(records)) + b''.join(records)
            + struct.pack('<Q', 0))


def tail(flag, data):
    return struct.pack('<iii', 1, 0, flag) + data


def test_v1_record():
    data = np.arange(6, dtype=np.float64).reshape(2, 3)
    record = struct.pack('<Iiqq', 0xF993FAC8, 2, 2, 3) + tail(1, data.tobytes())
    (loaded,) = mx.nd.load_frombuffer(file_of([record]))
    np.testing.assert_array_equal(loaded.asnumpy(), data)
    assert np.dtype(loaded.dtype) == np.float64


def test_pre_v1_record_with_u32_dims():
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    record = struct.pack('<III', 2, 3, 4) + tail(4, data.tobytes())
    (loaded,) = mx.nd.load_frombuffer(file_of([record]))
    np.testing.assert_array_equal(loaded.asnumpy(), data)


def test_gpu_context_in_the_file_loads_on_cpu():
    data = np.ones(4, np.float32)
    record = (struct.pack('<Iiiq', 0xF993FAC9, 0, 1, 4) + struct.pack('<iii', 2, 1, 0)
              + data.tobytes())
    (loaded,) = mx.nd.load_frombuffer(file_of([record]))
    assert loaded.context == mx.cpu(0)
    np.testing.assert_array_equal(loaded.asnumpy(), data)


@pytest.mark.parametrize('record', [
    struct.pack('<Iii', 0xF993FAC9, 0, 0),           # V2 ndim 0
    struct.pack('<Iii', 0xF993FACA, 0, -1),          # V3 unknown ndim
    struct.pack('<Iiiqq', 0xF993FACA, 0, 2, 3, -1),  # V3 unknown dim
    struct.pack('<Ii', 0xF993FAC8, 0),               # V1 ndim 0
    struct.pack('<I', 0),                            # pre-V1 ndim 0
], ids=['v2', 'v3-ndim', 'v3-dim', 'v1', 'pre-v1'])
def test_none_records_load_as_empty_arrays(record):
    after = struct.pack('<Iiiq', 0xF993FAC9, 0, 1, 2) + tail(0, np.float32([5, 6]).tobytes())
    none, nxt = mx.nd.load_frombuffer(file_of([record, after]))
    assert none.shape == (0,)
    np.testing.assert_array_equal(nxt.asnumpy(), [5, 6])


@pytest.mark.parametrize('flag,name', [(12, 'bfloat16'), (8, 'int16'), (11, 'uint64')])
def test_unsupported_type_flags_are_refused(flag, name):
    record = struct.pack('<Iiiq', 0xF993FAC9, 0, 1, 2) + tail(flag, b'\0' * 16)
    with pytest.raises(MXNetError, match=name):
        mx.nd.load_frombuffer(file_of([record]))


@pytest.mark.parametrize('dtype', ['int16', 'uint16', 'uint32', 'uint64', 'complex64', 'float128',
                                   'U3', 'object'])
def test_unsupported_dtypes_are_refused_before_writing(tmp_path, dtype):
    path = tmp_path / 'bad.nd'
    path.write_bytes(b'old contents')
    try:
        host = np.zeros(3, dtype=dtype)
    except TypeError:
        pytest.skip('numpy has no %s here' % dtype)
    with pytest.raises(MXNetError, match='dtype'):
        mx.nd.save(str(path), {'good': np.ones(2, np.float32), 'bad': host})
    with pytest.raises(MXNetError, match='dtype'):
        params.encode_record(host)
    assert path.read_bytes() == b'old contents'
    assert sorted(p.name for p in tmp_path.iterdir()) == ['bad.nd']


@pytest.mark.parametrize('data,error,pattern', [
    ({1: mx.nd.ones(2)}, TypeError, 'dict str->NDArray'),
    ({'a': 1.0}, TypeError, 'dict str->NDArray'),
    ([mx.nd.ones(2), 'x'], TypeError, 'list of NDArray'),
    ((mx.nd.ones(2),), ValueError, 'needs to either be'),
    ('text', ValueError, 'needs to either be'),
    (None, ValueError, 'needs to either be'),
])
def test_bad_save_inputs_raise_what_mxnet_raises(tmp_path, data, error, pattern):
    with pytest.raises(error, match=pattern):
        mx.nd.save(str(tmp_path / 'x.nd'), data)
    assert not list(tmp_path.iterdir())


def test_save_fname_must_be_a_path(tmp_path):
    with pytest.raises(TypeError, match='fname'):
        mx.nd.save(42, [mx.nd.ones(1)])


def test_save_into_a_missing_folder_names_the_file(tmp_path):
    path = tmp_path / 'no' / 'such' / 'dir' / 'x.nd'
    with pytest.raises(MXNetError, match='x.nd'):
        mx.nd.save(str(path), [mx.nd.ones(1)])


def test_save_is_exported_in_mx_nd():
    from symmod.ndarray import utils
    assert mx.nd.save is utils.save and mx.nd.load is utils.load
    assert mx.nd.load_frombuffer is utils.load_frombuffer


def test_large_save_has_no_per_element_python(tmp_path):
    import time
    host = np.random.RandomState(5).standard_normal(4 * 1024 * 1024).astype(np.float32)
    path = tmp_path / 'big.nd'
    start = time.perf_counter()
    mx.nd.save(str(path), [host])
    elapsed = time.perf_counter() - start
    assert path.stat().st_size == 16 * 1024 * 1024 + 24 + 24 + 8 + 8
    assert elapsed < 5.0
    np.testing.assert_array_equal(mx.nd.load(str(path))[0].asnumpy(), host)


def test_names_that_are_not_utf8_text_are_refused(tmp_path):
    with pytest.raises(MXNetError, match='UTF-8'):
        mx.nd.save(str(tmp_path / 'x.nd'), {'bad\udc80': mx.nd.ones(1)})
    assert not list(tmp_path.iterdir())
