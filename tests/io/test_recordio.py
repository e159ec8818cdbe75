"""mx.recordio against files and values written by MXNet 1.9.1 (tests/data/recordio/,
made by tests/data/gen/gen_recordio_reference.py)."""
import io
import os
import pickle
import struct

import numpy as np
import pytest
from PIL import Image

import symmod as mx
from symmod.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'recordio')
MAGIC = struct.pack('<I', 0xced7230a)


@pytest.fixture(scope='module')
def ref():
    with np.load(os.path.join(DATA, 'reference.npz')) as z:
        return {k: z[k] for k in z.files}


def raw_records(ref):
    return [ref['raw/%d' % i].tobytes() for i in range(int(ref['raw/count']))]


def png(pixels):
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, 'PNG')
    return buf.getvalue()


def test_reads_mxnets_raw_records_including_magic_and_padding(ref):
    rec = mx.recordio.MXRecordIO(os.path.join(DATA, 'raw.rec'), 'r')
    for expected in raw_records(ref):
        assert rec.read() == expected
    assert rec.read() is None
    rec.reset()
    assert rec.read() == raw_records(ref)[0]
    rec.close()


@pytest.mark.parametrize('name', ['raw', 'images'])
def test_written_files_are_byte_identical_to_mxnets(name, tmp_path):
    reader = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, name + '.idx'),
                                           os.path.join(DATA, name + '.rec'), 'r')
    payloads = [reader.read_idx(key) for key in reader.keys]
    reader.close()
    writer = mx.recordio.MXIndexedRecordIO(str(tmp_path / 'x.idx'), str(tmp_path / 'x.rec'), 'w')
    for key, payload in enumerate(payloads):
        writer.write_idx(key, payload)
    writer.close()
    for ext in ('.rec', '.idx'):
        with open(os.path.join(DATA, name + ext), 'rb') as f:
            expected = f.read()
        assert (tmp_path / ('x' + ext)).read_bytes() == expected


def test_record_layout_magic_length_flags_and_padding(tmp_path):
    path = str(tmp_path / 'a.rec')
    rec = mx.recordio.MXRecordIO(path, 'w')
    rec.write(b'abcde')
    rec.write(b'xyzw' + MAGIC + b'q')     # magic at an aligned offset: split in two parts
    rec.write(b'ab' + MAGIC)              # unaligned: stored as is
    rec.close()
    raw = open(path, 'rb').read()
    lrec = lambda flag, n: struct.pack('<I', (flag << 29) | n)
    expected = (MAGIC + lrec(0, 5) + b'abcde\0\0\0'
                + MAGIC + lrec(1, 4) + b'xyzw' + MAGIC + lrec(3, 1) + b'q\0\0\0'
                + MAGIC + lrec(0, 6) + b'ab' + MAGIC + b'\0\0')
    assert raw == expected
    reader = mx.recordio.MXRecordIO(path, 'r')
    assert [reader.read() for _ in range(4)] == [b'abcde', b'xyzw' + MAGIC + b'q',
                                                 b'ab' + MAGIC, None]


def test_index_file_keys_seek_and_tell(tmp_path):
    idx, path = str(tmp_path / 'a.idx'), str(tmp_path / 'a.rec')
    writer = mx.recordio.MXIndexedRecordIO(idx, path, 'w', key_type=str)
    assert writer.tell() == 0
    for key in ['b', 'a', 'c']:
        writer.write_idx(key, ('record_' + key).encode())
    assert writer.tell() == 3 * 16
    writer.close()
    assert open(idx).read() == 'b\t0\na\t16\nc\t32\n'
    reader = mx.recordio.MXIndexedRecordIO(idx, path, 'r', key_type=str)
    assert reader.keys == ['b', 'a', 'c']
    assert reader.idx == {'b': 0, 'a': 16, 'c': 32}
    assert reader.read_idx('c') == b'record_c'
    assert reader.read_idx('b') == b'record_b'
    assert reader.read() == b'record_a'     # sequential read continues after a seek
    with pytest.raises(KeyError):
        reader.read_idx('zz')


def test_pickling_reopens_like_mxnet(tmp_path):
    path = str(tmp_path / 'a.rec')
    writer = mx.recordio.MXRecordIO(path, 'w')
    writer.write(b'one')
    writer.write(b'two')
    writer.close()
    reader = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, 'raw.idx'),
                                           os.path.join(DATA, 'raw.rec'), 'r')
    copy = pickle.loads(pickle.dumps(reader))
    assert not reader.is_open          # as MXNet, pickling closes the original
    assert copy.is_open and copy.read_idx(4) == b'xy' + MAGIC + b'zw'
    plain = pickle.loads(pickle.dumps(mx.recordio.MXRecordIO(path, 'r')))
    assert plain.read() == b'one'


def test_invalid_flag_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match='Invalid flag'):
        mx.recordio.MXRecordIO(str(tmp_path / 'a.rec'), 'a')
    with pytest.raises(MXNetError, match='nope.rec'):
        mx.recordio.MXRecordIO(str(tmp_path / 'nope.rec'), 'r')


@pytest.mark.parametrize('cut, pattern', [
    (3, r'truncated record header at offset 0'),
    (12, r'declares 5 bytes but the file ends'),
    (20, r'truncated record header at offset 16'),
])
def test_truncated_files_raise_with_offset(tmp_path, cut, pattern):
    path = str(tmp_path / 'a.rec')
    writer = mx.recordio.MXRecordIO(path, 'w')
    writer.write(b'abcde')
    writer.write(b'fghij')
    writer.close()
    with open(path, 'r+b') as f:
        f.truncate(cut)
    reader = mx.recordio.MXRecordIO(path, 'r')
    with pytest.raises(MXNetError, match=pattern) as err:
        while reader.read() is not None:
            pass
    assert 'a.rec' in str(err.value)


def test_corrupt_magic_and_cut_multipart_record(tmp_path):
    path = str(tmp_path / 'a.rec')
    data = bytearray(open(os.path.join(DATA, 'raw.rec'), 'rb').read())
    first = mx.recordio.MXRecordIO(os.path.join(DATA, 'raw.rec'), 'r')
    first.read()
    second = first.handle.tell()
    data[second] ^= 0xff                             # break record 1's magic number
    open(path, 'wb').write(bytes(data))
    reader = mx.recordio.MXRecordIO(path, 'r')
    reader.read()
    with pytest.raises(MXNetError, match='magic number 0xced7230a at offset %d' % second):
        reader.read()
    # a multi-part record whose last part is missing
    writer = mx.recordio.MXRecordIO(path, 'w')
    writer.write(b'abcd' + MAGIC + b'efgh')
    writer.close()
    with open(path, 'r+b') as f:
        f.truncate(16)
    with pytest.raises(MXNetError, match='inside the record that starts at offset 0'):
        mx.recordio.MXRecordIO(path, 'r').read()


def test_unpack_mxnets_headers(ref):
    reader = mx.recordio.MXRecordIO(os.path.join(DATA, 'multilabel.rec'), 'r')
    header, payload = mx.recordio.unpack(reader.read())
    assert header.flag == int(ref['multilabel/header0_flag']) == 3
    np.testing.assert_array_equal(header.label, ref['multilabel/labels'][0])
    assert header.id == 0 and payload[:8] == b'\x89PNG\r\n\x1a\n'
    reader = mx.recordio.MXRecordIO(os.path.join(DATA, 'images.rec'), 'r')
    for i in range(3):
        header, _ = mx.recordio.unpack(reader.read())
        assert header == (0, ref['images/labels'][i], 100 + i, 0)


@pytest.mark.parametrize('label', [3.5, [1.0, 2.0, 3.0], np.arange(5, dtype=np.float64)])
def test_pack_unpack_round_trip(label):
    packed = mx.recordio.pack(mx.recordio.IRHeader(9, label, 12, 1), b'payload')
    header, payload = mx.recordio.unpack(packed)
    assert payload == b'payload'
    assert (header.id, header.id2) == (12, 1)
    if np.isscalar(label):
        assert header.flag == 0 and header.label == label
        assert len(packed) == 24 + 7
    else:
        assert header.flag == len(label)
        np.testing.assert_array_equal(header.label, np.asarray(label, np.float32))
        assert len(packed) == 24 + 4 * len(label) + 7


def test_unpack_short_record_errors():
    with pytest.raises(MXNetError, match='24-byte header'):
        mx.recordio.unpack(b'short')
    bad = struct.pack('<IfQQ', 4, 0.0, 0, 0) + b'\0' * 8
    with pytest.raises(MXNetError, match='announces 4 labels'):
        mx.recordio.unpack(bad)


def test_unpack_img_gives_bgr_like_opencv(ref):
    reader = mx.recordio.MXRecordIO(os.path.join(DATA, 'images.rec'), 'r')
    header, img = mx.recordio.unpack_img(reader.read())
    rgb = ref['images/pixels_rgb'][0]
    np.testing.assert_array_equal(img, rgb[:, :, ::-1])
    _, img = mx.recordio.unpack_img(reader.read(), iscolor=0)
    assert img.shape == (8, 10) and img.dtype == np.uint8
    reader = mx.recordio.MXRecordIO(os.path.join(DATA, 'gray.rec'), 'r')
    _, img = mx.recordio.unpack_img(reader.read())
    np.testing.assert_array_equal(img, ref['gray/pixels'][0])
    _, img = mx.recordio.unpack_img(mx.recordio.pack(header, png(ref['gray/pixels'][1])), 1)
    assert img.shape == (8, 10, 3)
    assert mx.recordio.unpack_img(mx.recordio.pack(header, b'not an image'))[1] is None


def test_unpack_img_jpeg_close_to_mxnets_decoder(ref):
    reader = mx.recordio.MXRecordIO(os.path.join(DATA, 'jpeg.rec'), 'r')
    for i in range(3):
        _, img = mx.recordio.unpack_img(reader.read(), iscolor=1)
        diff = np.abs(img[:, :, ::-1].astype(int) - ref['jpeg/decoded_rgb'][i])
        assert diff.max() <= 2


@pytest.mark.parametrize('fmt, quality', [('.png', 3), ('.PNG', 95)])
def test_pack_img_png_is_lossless_and_takes_bgr(ref, fmt, quality):
    # the default quality (95) is clamped to PNG's highest compression level, as cv2 does
    bgr = ref['images/pixels_rgb'][3][:, :, ::-1]
    packed = mx.recordio.pack_img(mx.recordio.IRHeader(0, 2.0, 5, 0), bgr, quality=quality,
                                  img_fmt=fmt)
    header, img = mx.recordio.unpack_img(packed)
    assert header == (0, 2.0, 5, 0)
    np.testing.assert_array_equal(img, bgr)
    stored = np.asarray(Image.open(io.BytesIO(mx.recordio.unpack(packed)[1])))
    np.testing.assert_array_equal(stored, ref['images/pixels_rgb'][3])   # RGB in the file


def test_pack_img_jpeg_quality(ref):
    bgr = np.ascontiguousarray(np.repeat(np.repeat(ref['images/pixels_rgb'][0], 4, 0), 4, 1)
                               [:, :, ::-1])
    sizes = []
    for quality in (20, 95):
        packed = mx.recordio.pack_img(mx.recordio.IRHeader(0, 1.0, 0, 0), bgr, quality)
        payload = mx.recordio.unpack(packed)[1]
        assert payload[:2] == b'\xff\xd8'
        sizes.append(len(payload))
        _, img = mx.recordio.unpack_img(packed)
        assert np.abs(img.astype(int) - bgr).mean() < 20
    assert sizes[0] < sizes[1]
