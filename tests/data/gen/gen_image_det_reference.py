"""Record MXNet 1.9.1's ImageDetIter batches (tests/test_image_detection.py).

Run with the real MXNet (not part of the test suite):

    MXNET_MKLDNN_ENABLED=0 /work/mxnet-venv/bin/python tests/data/gen/gen_image_det_reference.py

Writes the PNG images of tests/image_det_cases.py into tests/data/image_det/ and
tests/data/image_det/reference.npz: per run ``<run>/<epoch>/<batch>/data|label|pad`` and
``<run>/provide_label``.
"""
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..'))
from image_det_cases import IMAGES, RUNS, SIZES, image_pixels, png_bytes, run  # noqa: E402


def main():
    os.makedirs(IMAGES, exist_ok=True)
    for i in range(len(SIZES)):
        with open(os.path.join(IMAGES, 'img%d.png' % i), 'wb') as f:
            f.write(png_bytes(image_pixels(i)))
    record = {}
    for name in RUNS:
        for key, value in run(mx, name).items():
            record['%s/%s' % (name, key)] = np.asarray(value)
    path = os.path.join(IMAGES, 'reference.npz')
    np.savez_compressed(path, **record)
    print('wrote %s (%d arrays, %d bytes)' % (path, len(record), os.path.getsize(path)))


if __name__ == '__main__':
    main()
