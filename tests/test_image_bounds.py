"""Image bombs (issue 11 item 5): decoded and resize-target pixel counts are checked
before anything is allocated, with a message naming the size and the limit; resizing and
grey conversion keep their temporaries small."""
import io
import struct
import time
import tracemalloc
import zlib

import numpy as np
import pytest
from PIL import Image

import symmod as mx
from symmod.base import MXNetError
from symmod.image import opencv


def png_header_only(width, height, mode=0):
    """A PNG whose header declares width x height (grey) and whose data is one empty row."""
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + \
            struct.pack('>I', zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack('>IIBBBBB', width, height, 8, mode, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + \
        chunk(b'IDAT', zlib.compress(b'\x00' * (width + 1))) + chunk(b'IEND', b'')


def png(array):
    buf = io.BytesIO()
    Image.fromarray(array).save(buf, format='PNG')
    return buf.getvalue()


def measured(func, *args):
    tracemalloc.start()
    start = time.perf_counter()
    try:
        func(*args)
        error = None
    except MXNetError as err:
        error = err
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return error, seconds, peak


@pytest.mark.parametrize('flag', [0, 1])
def test_a_huge_declared_image_is_refused_before_decoding(flag):
    data = png_header_only(13000, 13000)
    error, seconds, peak = measured(mx.image.imdecode, data, flag)
    assert error is not None
    assert 'image too large (13000 x 13000, limit 89478485 pixels' in str(error)
    assert peak < 16 << 20 and seconds < 5


def test_recordio_and_imagerecorditer_refuse_the_same_bomb(tmp_path):
    record = mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 0, 0), png_header_only(20000, 20000))
    with pytest.raises(MXNetError, match='20000 x 20000'):
        mx.recordio.unpack_img(record)
    path = tmp_path / 'bomb.rec'
    writer = mx.recordio.MXRecordIO(str(path), 'w')
    writer.write(record)
    writer.close()
    with pytest.raises(MXNetError, match='image too large'):
        it = mx.io.ImageRecordIter(path_imgrec=str(path), data_shape=(3, 8, 8), batch_size=1,
                                   preprocess_threads=1)
        it.next()


def test_a_thin_image_whose_resize_target_is_huge_is_refused_quickly(tmp_path):
    # issue 11: a 1x2000 PNG resized so that its short side is 224: 224 x 448000
    data = png(np.zeros((2000, 1, 3), np.uint8))
    record = mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 0, 0), data)
    assert len(record) < 200
    path = tmp_path / 'thin.rec'
    writer = mx.recordio.MXRecordIO(str(path), 'w')
    writer.write(record)
    writer.close()
    def read():
        it = mx.io.ImageRecordIter(path_imgrec=str(path), data_shape=(3, 224, 224),
                                   batch_size=1, resize=224, preprocess_threads=1)
        it.next()

    error, seconds, peak = measured(read)
    assert error is not None and 'resize target too large (224 x 448000' in str(error)
    assert seconds < 5 and peak < 16 << 20


def test_the_limit_is_configurable():
    data = png(np.zeros((30, 40), np.uint8))
    previous = mx.image.set_max_image_pixels(1000)
    try:
        with pytest.raises(MXNetError, match=r'image too large \(40 x 30, limit 1000 pixels'):
            mx.image.imdecode(data)
        with pytest.raises(MXNetError, match='resize target too large'):
            mx.image.imresize(mx.nd.zeros((10, 10, 3), dtype='uint8'), 50, 50)
    finally:
        mx.image.set_max_image_pixels(previous)
    assert mx.image.imdecode(data).shape == (30, 40, 3)
    with pytest.raises(MXNetError, match='positive int'):
        opencv.set_max_image_pixels(0)


@pytest.mark.parametrize('interp', [1, 2])
@pytest.mark.parametrize('dtype', [np.uint8, np.float32])
def test_resize_temporaries_stay_small(dtype, interp):
    rng = np.random.RandomState(0)
    img = (rng.rand(600, 800, 3) * 255).astype(dtype)
    tracemalloc.start()
    out = opencv.resize(img, 1000, 700, interp)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert out.shape == (700, 1000, 3) and out.dtype == dtype
    # the output plus bands of a few MiB (was 38 MB here for a 2.1 MB uint8 output
    # bilinear, 74 MB bicubic)
    assert peak < out.nbytes + (4 << 20), (peak, out.nbytes)


@pytest.mark.parametrize('interp', [1, 2])
@pytest.mark.parametrize('dtype', [np.uint8, np.float32])
def test_banded_resize_equals_the_whole_image_formula(dtype, interp):
    """The bands change nothing: compare with the one-shot formula (OpenCV's arithmetic)."""
    rng = np.random.RandomState(1)
    for shape, size in [((37, 53, 3), (90, 20)), ((300, 5, 1), (7, 900)), ((64, 64, 3), (32, 32))]:
        img = (rng.rand(*shape) * 255).astype(dtype)
        small = opencv._BAND
        try:
            opencv._BAND = 64          # many bands
            banded = opencv.resize(img, *size, interp)
        finally:
            opencv._BAND = small
        np.testing.assert_array_equal(banded, opencv.resize(img, *size, interp))


def test_grey_conversion_has_no_full_size_int32_temporary():
    rng = np.random.RandomState(2)
    data = png((rng.rand(1000, 1500, 3) * 255).astype(np.uint8))
    tracemalloc.start()
    grey = mx.image.imdecode(data, flag=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert grey.shape == (1000, 1500, 1)
    # the RGB pixels Pillow hands over (twice, briefly) plus small bands: 13.5 MB; with
    # an int32 copy of the whole image (12 bytes per pixel) and its products: 34.5 MB
    assert peak < 4 * 1000 * 1500 * 3, peak
