"""Write RecordIO files with the real MXNet 1.9.1 and record what its ImageRecordIter reads.

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_recordio_reference.py

The MXNet venv has no OpenCV/Pillow for Python, so images are encoded here as
PNG with a tiny zlib writer (exact pixels after decoding); one JPEG is made by
symmod's venv Pillow (``/work/main/.venv/bin/python``) and packed as bytes.

Writes, under tests/data/recordio/:
  images.rec / images.idx    12 PNG images (8 rows x 10 cols, colour), scalar labels
  gray.rec                   4 grayscale PNG images, scalar labels
  multilabel.rec             5 PNG images with 3 float labels each (header flag 3)
  jpeg.rec                   3 JPEG images (quality 90), scalar labels
  raw.rec / raw.idx          raw byte records, some holding the magic number
  images.lst                 a label list (2 labels per image) for images.rec
  reference.npz              pixels, records and the batches of ImageRecordIter
"""
import json
import os
import struct
import subprocess
import zlib

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'recordio')
SYMMOD_PYTHON = '/work/main/.venv/bin/python'
MAGIC = struct.pack('<I', 0xced7230a)


def png_bytes(pixels):
    """Encode a uint8 (h, w) or (h, w, 3) array as a PNG (no filtering)."""
    h, w = pixels.shape[:2]
    colour = 2 if pixels.ndim == 3 else 0

    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body
                + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))

    rows = b''.join(b'\x00' + pixels[r].tobytes() for r in range(h))
    return (b'\x89PNG\r\n\x1a\n'
            + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, colour, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b''))


def jpeg_bytes(pixels_list):
    """JPEG-encode RGB arrays with Pillow in symmod's venv (quality 90)."""
    script = ('import io, sys, numpy as np; from PIL import Image\n'
              'a = np.load(sys.argv[1]); out = []\n'
              'for img in a:\n'
              '    buf = io.BytesIO(); Image.fromarray(img).save(buf, "JPEG", quality=90)\n'
              '    out.append(np.frombuffer(buf.getvalue(), np.uint8))\n'
              'np.savez(sys.argv[2], *out)\n')
    src, dst = os.path.join(OUT, '_jpg_in.npy'), os.path.join(OUT, '_jpg_out.npz')
    np.save(src, np.stack(pixels_list))
    subprocess.check_call([SYMMOD_PYTHON, '-c', script, src, dst])
    with np.load(dst) as z:
        out = [z['arr_%d' % i].tobytes() for i in range(len(pixels_list))]
    os.remove(src)
    os.remove(dst)
    return out


def write_rec(name, payloads, idx=True):
    path = os.path.join(OUT, name + '.rec')
    if idx:
        rec = mx.recordio.MXIndexedRecordIO(os.path.join(OUT, name + '.idx'), path, 'w')
        for i, p in enumerate(payloads):
            rec.write_idx(i, p)
    else:
        rec = mx.recordio.MXRecordIO(path, 'w')
        for p in payloads:
            rec.write(p)
    rec.close()


def run_iter(ref, key, epochs=1, **kwargs):
    """Store every batch of ``epochs`` epochs (data, label, pad, index)."""
    it = mx.io.ImageRecordIter(**kwargs)
    ref[key + '/kwargs'] = np.frombuffer(json.dumps(kwargs).encode(), np.uint8)
    for e in range(epochs):
        for b, batch in enumerate(it):
            tag = '%s/e%d/b%d/' % (key, e, b)
            ref[tag + 'data'] = batch.data[0].asnumpy()
            ref[tag + 'label'] = batch.label[0].asnumpy()
            ref[tag + 'pad'] = np.array(batch.pad)
        it.reset()
    del it


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(7)
    ref = {}

    # colour images: smooth gradients plus noise, so that resizing is meaningful
    yy, xx = np.mgrid[0:8, 0:10]
    colour = []
    for i in range(12):
        base = np.stack([yy * 20 + i * 5, xx * 17 + 3 * i, (yy + xx) * 9 + 40], axis=-1)
        colour.append(np.clip(base + rng.randint(0, 30, size=(8, 10, 3)), 0, 255)
                      .astype(np.uint8))
    labels = [float(i % 4) for i in range(12)]
    records = [mx.recordio.pack(mx.recordio.IRHeader(0, labels[i], 100 + i, 0),
                                png_bytes(colour[i])) for i in range(12)]
    write_rec('images', records)
    ref['images/pixels_rgb'] = np.stack(colour)
    ref['images/labels'] = np.array(labels, np.float32)
    with open(os.path.join(OUT, 'images.lst'), 'w') as f:
        for i in range(12):
            f.write('%d\t%f\t%f\timg_%d.png\n' % (100 + i, i * 0.5, 10.0 - i, i))

    gray = [np.clip(yy * 25 + xx * 3 + rng.randint(0, 20, size=(8, 10)), 0, 255)
            .astype(np.uint8) for _ in range(4)]
    write_rec('gray', [mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0),
                                        png_bytes(gray[i])) for i in range(4)], idx=False)
    ref['gray/pixels'] = np.stack(gray)

    multi = [rng.rand(3).astype(np.float32) for _ in range(5)]
    write_rec('multilabel', [mx.recordio.pack(mx.recordio.IRHeader(0, multi[i], i, 0),
                                              png_bytes(colour[i])) for i in range(5)],
              idx=False)
    ref['multilabel/labels'] = np.stack(multi)

    jpegs = jpeg_bytes(colour[:3])
    write_rec('jpeg', [mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), jpegs[i])
                       for i in range(3)], idx=False)
    # MXNet's own decoder (OpenCV, libjpeg) on the same bytes, as RGB
    ref['jpeg/decoded_rgb'] = np.stack([mx.image.imdecode(j).asnumpy() for j in jpegs])

    # raw byte records: the magic number at aligned and unaligned places, empty records
    raw = [b'', b'a', b'abcde', MAGIC, b'xy' + MAGIC + b'zw', b'abcd' + MAGIC,
           MAGIC + b'1234' + MAGIC + MAGIC + b'tail!', bytes(range(256)) * 3, b'1234567']
    write_rec('raw', raw)
    ref['raw/count'] = np.array(len(raw))
    for i, p in enumerate(raw):
        ref['raw/%d' % i] = np.frombuffer(p, np.uint8)
    rec = mx.recordio.MXRecordIO(os.path.join(OUT, 'raw.rec'), 'r')
    for i in range(len(raw)):
        assert rec.read() == raw[i]
    assert rec.read() is None
    rec.close()

    # what unpack returns for the headers
    reader = mx.recordio.MXRecordIO(os.path.join(OUT, 'multilabel.rec'), 'r')
    header, _ = mx.recordio.unpack(reader.read())
    ref['multilabel/header0_flag'] = np.array(header.flag)
    reader.close()

    rec = os.path.join(OUT, 'images.rec')
    idx = os.path.join(OUT, 'images.idx')
    common = dict(path_imgrec=rec, preprocess_threads=1, verbose=False)
    run_iter(ref, 'full', epochs=3, data_shape=(3, 8, 10), batch_size=5, **common)
    run_iter(ref, 'norm', data_shape=(3, 6, 6), batch_size=4, mean_r=120.5, mean_g=100.0,
             mean_b=90.0, std_r=50.0, std_g=60.0, std_b=70.0, scale=0.5, **common)
    run_iter(ref, 'resize', data_shape=(3, 6, 7), batch_size=6, resize=6, **common)
    run_iter(ref, 'half', data_shape=(3, 4, 5), batch_size=6, resize=4, **common)
    run_iter(ref, 'nearest', data_shape=(3, 6, 7), batch_size=6, resize=6, inter_method=0,
             **common)
    run_iter(ref, 'upscale', data_shape=(3, 10, 10), batch_size=6, **common)
    run_iter(ref, 'noround', epochs=2, data_shape=(3, 8, 10), batch_size=5,
             round_batch=False, **common)
    run_iter(ref, 'mirror', data_shape=(3, 7, 9), batch_size=6, mirror=True, **common)
    run_iter(ref, 'pad', data_shape=(3, 10, 12), batch_size=6, pad=1, fill_value=7, **common)
    run_iter(ref, 'cropsize', data_shape=(3, 6, 6), batch_size=6, max_crop_size=6,
             min_crop_size=6, **common)
    run_iter(ref, 'uint8', data_shape=(3, 8, 10), batch_size=6, dtype='uint8', **common)
    run_iter(ref, 'int8', data_shape=(3, 8, 10), batch_size=6, dtype='int8', mean_r=100,
             mean_g=50.4, mean_b=20.6, **common)
    run_iter(ref, 'imglist', data_shape=(3, 8, 10), batch_size=6, label_width=2,
             path_imglist=os.path.join(OUT, 'images.lst'), **common)
    run_iter(ref, 'part', epochs=2, data_shape=(3, 8, 10), batch_size=4, num_parts=2,
             part_index=1, **common)
    run_iter(ref, 'idxpart', epochs=2, data_shape=(3, 8, 10), batch_size=4, num_parts=5,
             part_index=1, path_imgidx=idx, **common)
    run_iter(ref, 'shuffle_idx', epochs=3, data_shape=(3, 8, 10), batch_size=5,
             shuffle=True, seed=3, path_imgidx=idx, **common)
    run_iter(ref, 'shuffle_rec', epochs=3, data_shape=(3, 8, 10), batch_size=5,
             shuffle=True, seed=3, **common)
    run_iter(ref, 'gray', data_shape=(1, 8, 10), batch_size=4,
             path_imgrec=os.path.join(OUT, 'gray.rec'), preprocess_threads=1, verbose=False)
    run_iter(ref, 'gray_from_colour', data_shape=(1, 8, 10), batch_size=6, **common)
    run_iter(ref, 'multilabel', data_shape=(3, 8, 10), batch_size=5, label_width=3,
             path_imgrec=os.path.join(OUT, 'multilabel.rec'), preprocess_threads=1,
             verbose=False)
    run_iter(ref, 'jpeg', data_shape=(3, 8, 10), batch_size=3,
             path_imgrec=os.path.join(OUT, 'jpeg.rec'), preprocess_threads=1, verbose=False)
    np.savez_compressed(os.path.join(OUT, 'reference.npz'), **ref)
    print('wrote', OUT)


if __name__ == '__main__':
    main()
