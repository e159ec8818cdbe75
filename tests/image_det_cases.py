"""The images, boxes and iterator runs tests/test_image_detection.py and its MXNet
generator (tests/data/gen/gen_image_det_reference.py) share."""
import os
import struct
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGES = os.path.join(HERE, 'data', 'image_det')
SIZES = [(20, 30), (24, 16), (18, 18), (30, 22), (16, 26)]      # (height, width)
# raw labels: [header width 2, object width 5, (class, xmin, ymin, xmax, ymax)...]
LABELS = [[2, 5, 0, 0.1, 0.2, 0.6, 0.7, 1, 0.5, 0.1, 0.9, 0.5],
          [2, 5, 2, 0.0, 0.0, 0.5, 0.5],
          [2, 5, 1, 0.2, 0.2, 0.8, 0.9, 0, 0.05, 0.6, 0.35, 0.95, 2, 0.6, 0.1, 0.95, 0.4],
          [2, 5, 0, 0.3, 0.1, 0.7, 0.6],
          [2, 5, 1, 0.1, 0.1, 0.4, 0.3, 1, 0.5, 0.5, 0.9, 0.9]]


def png_bytes(pixels):
    """A minimal RGB PNG (8-bit, no filter) of ``pixels`` (h, w, 3) uint8."""
    height, width, _ = pixels.shape
    raw = b''.join(b'\x00' + pixels[r].tobytes() for r in range(height))

    def chunk(kind, data):
        return (struct.pack('>I', len(data)) + kind + data
                + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff))
    header = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(raw))
            + chunk(b'IEND', b''))


def image_pixels(index):
    height, width = SIZES[index]
    rng = np.random.RandomState(100 + index)
    return rng.randint(0, 256, (height, width, 3)).astype(np.uint8)


def imglist():
    return [[np.array(LABELS[i], np.float32), 'img%d.png' % i] for i in range(len(SIZES))]


# run -> (iterator keyword arguments, epochs, python random seed)
RUNS = {
    'plain': (dict(batch_size=2, data_shape=(3, 12, 12)), 1, 1),
    'augmented': (dict(batch_size=2, data_shape=(3, 16, 16), rand_crop=1, rand_pad=1,
                       rand_mirror=True, area_range=(0.3, 2.0), min_object_covered=0.3,
                       mean=True, std=True), 2, 7),
    'roll_over': (dict(batch_size=3, data_shape=(3, 10, 10), rand_mirror=True,
                       last_batch_handle='roll_over'), 2, 3),
}


def run(mx, name):
    """The batches (data, label, pad) of a run of ImageDetIter, as numpy arrays."""
    import random
    kwargs, epochs, seed = RUNS[name]
    random.seed(seed)
    it = mx.image.ImageDetIter(path_root=IMAGES, imglist=imglist(), **kwargs)
    out = {'provide_label': list(it.provide_label[0][1])}
    for epoch in range(epochs):
        for b, batch in enumerate(it):
            out['%d/%d/data' % (epoch, b)] = batch.data[0].asnumpy()
            out['%d/%d/label' % (epoch, b)] = batch.label[0].asnumpy()
            out['%d/%d/pad' % (epoch, b)] = batch.pad
        it.reset()
    return out
