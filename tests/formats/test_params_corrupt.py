"""Damaged array files raise an MXNetError that names the file and says what is wrong;
nothing loads halfway and no other exception escapes."""
import struct

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

MLP_PARAMS = 'mlp/mlp-0003.params'


def write(tmp_path, raw, name='damaged.params'):
    path = tmp_path / name
    path.write_bytes(raw)
    return str(path)


def load_error(tmp_path, raw):
    path = write(tmp_path, raw)
    with pytest.raises(MXNetError) as info:
        mx.nd.load(path)
    assert 'damaged.params' in str(info.value)
    with pytest.raises(MXNetError):
        mx.nd.load_frombuffer(raw)
    return str(info.value)


@pytest.mark.parametrize('name', ['mlp/arrays.nd', 'mlp/arrays_list.nd', 'mlp/arrays_npshape.nd',
                                  'legacy/legacy_ndarray.v0'])
def test_every_truncation_point_is_an_error(ref, tmp_path, name):
    raw = (ref / name).read_bytes()
    for cut in range(len(raw)):
        with pytest.raises(MXNetError, match='<buffer>'):
            mx.nd.load_frombuffer(raw[:cut])
    for cut in (0, 7, 24, len(raw) // 2, len(raw) - 1):
        load_error(tmp_path, raw[:cut])


def test_truncated_data_message_gives_the_numbers(ref, tmp_path):
    raw = (ref / MLP_PARAMS).read_bytes()
    # header 24 bytes; record: magic, stype, ndim (12) + 2 dims (16) + ctx, type flag (12)
    data_offset = 24 + 12 + 16 + 12
    message = load_error(tmp_path, raw[:1000])
    assert message.endswith('damaged.params: array record 0 of 6 is truncated: needs %d bytes '
                            'of data at offset %d, file has 1000' % (128 * 784 * 4, data_offset))


@pytest.mark.parametrize('cut', [10, 100, 437000, 437900, 437917])
def test_truncated_mlp_params(ref, tmp_path, cut):
    assert 'truncated' in load_error(tmp_path, (ref / MLP_PARAMS).read_bytes()[:cut])


def patched(raw, offset, fmt, value):
    out = bytearray(raw)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


FIRST = 24   # the first record of arrays.nd (float32 2x3)


@pytest.mark.parametrize('offset,fmt,value,pattern', [
    (0, '<Q', 0x113, 'not an MXNet NDArray file'),
    (0, '<Q', 0, 'not an MXNet NDArray file'),
    (16, '<Q', 2 ** 40, 'announces'),
    (FIRST, '<I', 0xF993FAC9 ^ 0x00010000, 'bad magic'),
    (FIRST, '<I', 0xDEADBEEF, 'bad magic'),
    (FIRST + 4, '<i', 7, 'unknown storage type 7'),
    (FIRST + 8, '<i', 1000, 'impossible ndim 1000'),
    (FIRST + 8, '<i', -5, 'impossible ndim -5'),
    (FIRST + 8, '<i', -1, 'impossible shape'),
    (FIRST + 12, '<q', -3, 'impossible shape'),
    (FIRST + 12, '<q', 2 ** 40, 'truncated: needs'),
    (FIRST + 12, '<q', 2 ** 62, 'truncated: needs'),
    (FIRST + 28, '<i', 9, 'impossible device'),
    (FIRST + 32, '<i', -1, 'impossible device'),
    (FIRST + 36, '<i', 99, 'unknown type flag 99'),
    (FIRST + 36, '<i', 12, 'bfloat16'),
])
def test_corrupt_header_fields(ref, tmp_path, offset, fmt, value, pattern):
    raw = patched((ref / 'mlp/arrays.nd').read_bytes(), offset, fmt, value)
    assert pattern in load_error(tmp_path, raw)


def names_offset(raw):
    """Offset of the name count in arrays_list.nd (5 unnamed arrays)."""
    return len(raw) - 8


def test_name_count_must_be_zero_or_n(ref, tmp_path):
    raw = (ref / 'mlp/arrays_list.nd').read_bytes()
    bad = patched(raw, names_offset(raw), '<Q', 3)
    assert '3 names for 5 arrays' in load_error(tmp_path, bad)


def test_trailing_garbage_is_an_error(ref, tmp_path):
    raw = (ref / 'mlp/arrays.nd').read_bytes()
    message = load_error(tmp_path, raw + b'\0\1\2')
    assert '3 unexpected bytes' in message and 'offset %d' % len(raw) in message


def test_names_must_be_utf8(tmp_path):
    good = struct.pack('<QQQ', 0x112, 0, 1) + struct.pack('<Iiiq', 0xF993FAC9, 0, 1, 1) \
        + struct.pack('<iii', 1, 0, 0) + np.float32([1]).tobytes() + struct.pack('<Q', 1)
    assert list(mx.nd.load_frombuffer(good + struct.pack('<Q', 2) + b'ok')) == ['ok']
    message = load_error(tmp_path, good + struct.pack('<Q', 2) + b'\xff\xfe')
    assert 'not valid UTF-8' in message
    message = load_error(tmp_path, good + struct.pack('<Q', 2 ** 60) + b'ok')
    assert 'name 0 of 1 is truncated' in message


def test_random_damage_never_escapes_as_another_exception(ref):
    raw = (ref / 'mlp/arrays.nd').read_bytes()
    rng = np.random.RandomState(7)
    for _ in range(400):
        damaged = bytearray(raw)
        for offset in rng.randint(0, len(raw), size=rng.randint(1, 4)):
            damaged[offset] = rng.randint(0, 256)
        try:
            mx.nd.load_frombuffer(bytes(damaged))
        except MXNetError:
            pass


def test_not_an_array_file(tmp_path):
    assert 'not an MXNet NDArray file' in load_error(tmp_path, b'{"nodes": []}' + b' ' * 20)
