"""Record what the real MXNet 1.9.1's ``mx.image`` computes, for tests/test_image.py and
tests/io/test_image_iter.py.

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_image_reference.py

MXNet's OpenCV is built into libmxnet, so imdecode / imresize / copyMakeBorder work
without the cv2 Python package. Random augmenters draw from Python's ``random`` and
``numpy.random``: each case seeds both, and the tests seed them the same way.

Writes tests/data/image_reference.npz; keys are ``<case>/<what>``.
"""
import logging
import os
import random
import shutil
import sys
import tempfile

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_recordio_reference import png_bytes  # noqa: E402  (a tiny PNG writer)

DATA = os.path.join(HERE, '..')
RECDIR = os.path.join(DATA, 'recordio')


def make_images():
    """A colour and a gray test image: gradients plus noise."""
    rng = np.random.RandomState(11)
    yy, xx = np.mgrid[0:13, 0:17]
    base = np.stack([yy * 17 + 3, xx * 13 + 10, (yy + xx) * 7 + 30], axis=-1)
    colour = np.clip(base + rng.randint(0, 40, size=(13, 17, 3)), 0, 255).astype(np.uint8)
    gray = np.clip(yy * 15 + xx * 4 + rng.randint(0, 25, size=(13, 17)), 0, 255)
    return colour, gray.astype(np.uint8)


def seed(value):
    random.seed(value)
    np.random.seed(value)


def functions(ref, colour, gray):
    ref['img/colour'] = colour
    ref['img/gray'] = gray
    src = mx.nd.array(colour, dtype='uint8')
    fsrc = mx.nd.array(colour.astype(np.float32) * 0.75 + 0.3)
    ref['img/float'] = fsrc.asnumpy()

    # decoding: PNG exact (colour, gray, both flags, both channel orders)
    png_c, png_g = png_bytes(colour[:, :, ::-1].copy()), png_bytes(gray)
    ref['decode/png_colour'] = np.frombuffer(png_c, np.uint8)
    ref['decode/png_gray'] = np.frombuffer(png_g, np.uint8)
    for name, buf in (('colour', png_c), ('gray', png_g)):
        for flag in (0, 1):
            for to_rgb in (0, 1):
                out = mx.image.imdecode(buf, flag=flag, to_rgb=to_rgb).asnumpy()
                ref['decode/%s/f%d_rgb%d' % (name, flag, to_rgb)] = out

    # JPEG (made by Pillow for gen_recordio_reference.py): libjpeg's own output
    reader = mx.recordio.MXRecordIO(os.path.join(RECDIR, 'jpeg.rec'), 'r')
    _, jpeg = mx.recordio.unpack(reader.read())
    reader.close()
    ref['decode/jpeg'] = np.frombuffer(jpeg, np.uint8)
    for flag in (0, 1):
        ref['decode/jpeg/f%d_rgb1' % flag] = mx.image.imdecode(jpeg, flag=flag).asnumpy()

    # resizing: nearest, bilinear and bicubic, up, down, exact halving, odd factors
    sizes = [(17, 13), (8, 6), (30, 20), (9, 7), (5, 11), (34, 26), (1, 1), (40, 3)]
    for interp in (0, 1, 2):
        for w, h in sizes:
            ref['resize/u8/%d/%dx%d' % (interp, w, h)] = \
                mx.image.imresize(src, w, h, interp=interp).asnumpy()
            ref['resize/f32/%d/%dx%d' % (interp, w, h)] = \
                mx.image.imresize(fsrc, w, h, interp=interp).asnumpy()
    for size in (6, 20, 13):
        for interp in (0, 1, 2):
            ref['resize_short/%d/%d' % (interp, size)] = \
                mx.image.resize_short(src, size, interp=interp).asnumpy()
    tall = mx.nd.array(colour.transpose(1, 0, 2), dtype='uint8')
    ref['resize_short/tall'] = mx.image.resize_short(tall, 9, interp=1).asnumpy()

    # borders, every type; constant with value / values
    for btype in range(5):
        ref['border/%d' % btype] = mx.image.copyMakeBorder(src, 1, 2, 3, 4, type=btype).asnumpy()
    ref['border/value'] = mx.image.copyMakeBorder(src, 2, 0, 1, 3, value=77).asnumpy()
    ref['border/values'] = mx.image.copyMakeBorder(src, 2, 1, 0, 3,
                                                   values=(1, 300, 2.6)).asnumpy()
    ref['border/float'] = mx.image.copyMakeBorder(fsrc, 1, 1, 2, 2, type=0,
                                                  values=(1.5, -2.25, 3.0)).asnumpy()

    # crops
    ref['fixed_crop/plain'] = mx.image.fixed_crop(src, 2, 3, 7, 5).asnumpy()
    ref['fixed_crop/resized'] = mx.image.fixed_crop(src, 2, 3, 7, 5, size=(10, 9),
                                                    interp=1).asnumpy()
    center = {}
    for w, h in [(8, 6), (17, 13), (20, 10), (40, 40), (5, 12)]:
        out, rect = mx.image.center_crop(src, (w, h), interp=1)
        ref['center_crop/%dx%d' % (w, h)] = out.asnumpy()
        center['%dx%d' % (w, h)] = rect
    ref['center_crop/rects'] = np.array([center[k] for k in sorted(center)])
    ref['center_crop/keys'] = np.array(sorted(center))
    pairs = [((640, 480), (720, 120)), ((10, 8), (6, 6)), ((10, 8), (20, 20)),
             ((5, 9), (7, 3)), ((100, 50), (30, 60))]
    ref['scale_down/in'] = np.array([list(a) + list(b) for a, b in pairs])
    ref['scale_down/out'] = np.array([mx.image.scale_down(a, b) for a, b in pairs])

    # normalisation
    mean, std = mx.nd.array([120.5, 100.0, 90.25]), mx.nd.array([50.0, 60.0, 70.0])
    ref['normalize/both'] = mx.image.color_normalize(src.astype('float32'), mean, std).asnumpy()
    ref['normalize/mean'] = mx.image.color_normalize(src.astype('float32'), mean).asnumpy()

    # random crops with seeded Python random
    rects = []
    for s in range(6):
        seed(s)
        out, rect = mx.image.random_crop(src, (9, 7), interp=1)
        ref['random_crop/%d' % s] = out.asnumpy()
        rects.append(rect)
        seed(s)
        out, rect = mx.image.random_size_crop(src, (8, 8), 0.3, (0.75, 1.333), interp=1)
        ref['random_size_crop/%d' % s] = out.asnumpy()
        rects.append(rect)
    ref['random_crop/rects'] = np.array(rects)
    seed(5)
    ref['random_crop/upsample'] = mx.image.random_crop(src, (20, 15), interp=0)[0].asnumpy()


def augmenters(ref, colour):
    src = mx.nd.array(colour, dtype='uint8')
    augs = {
        'resize': mx.image.ResizeAug(9, interp=1),
        'force_resize': mx.image.ForceResizeAug((11, 5), interp=1),
        'random_crop': mx.image.RandomCropAug((9, 7), interp=1),
        'random_sized_crop': mx.image.RandomSizedCropAug((8, 6), (0.2, 0.9), (0.5, 2.0), 1),
        'center_crop': mx.image.CenterCropAug((9, 7), interp=1),
        'flip': mx.image.HorizontalFlipAug(0.5),
        'cast': mx.image.CastAug(),
    }
    float_augs = {
        'brightness': mx.image.BrightnessJitterAug(0.4),
        'contrast': mx.image.ContrastJitterAug(0.4),
        'saturation': mx.image.SaturationJitterAug(0.4),
        'hue': mx.image.HueJitterAug(0.3),
        'color_jitter': mx.image.ColorJitterAug(0.3, 0.3, 0.3),
        'lighting': mx.image.LightingAug(0.1, np.array([55.46, 4.794, 1.148]),
                                         np.array([[-0.5675, 0.7192, 0.4009],
                                                   [-0.5808, -0.0045, -0.8140],
                                                   [-0.5836, -0.6948, 0.4203]])),
        'normalize': mx.image.ColorNormalizeAug([120.0, 110.0, 100.0], [50.0, 55.0, 60.0]),
        'gray': mx.image.RandomGrayAug(0.5),
    }
    for name, aug in list(augs.items()) + list(float_augs.items()):
        ref['aug/%s/dumps' % name] = np.array(str(aug.dumps()))
        for s in range(4):
            seed(s)
            x = src if name in augs else src.astype('float32')
            ref['aug/%s/%d' % (name, s)] = aug(x).asnumpy()
    seq = mx.image.SequentialAug([mx.image.CenterCropAug((9, 7), 1), mx.image.CastAug()])
    ref['aug/sequential/dumps'] = np.array(str(seq.dumps()))
    ref['aug/sequential/0'] = seq(src).asnumpy()

    # what CreateAugmenter builds for some parameter sets
    settings = [dict(), dict(resize=10, rand_crop=True, rand_mirror=True),
                dict(rand_crop=True, rand_resize=True, brightness=0.1, hue=0.1),
                dict(mean=True, std=True, pca_noise=0.1, rand_gray=0.2, inter_method=1),
                dict(mean=np.array([1.0, 2.0, 3.0]), contrast=0.2, saturation=0.3)]
    for i, kw in enumerate(settings):
        augs = mx.image.CreateAugmenter((3, 6, 8), **kw)
        ref['create/%d' % i] = np.array([str(a.dumps()) for a in augs])


def run_iter(ref, key, epochs, **kwargs):
    """Every batch of ``epochs`` epochs of ``mx.image.ImageIter(**kwargs)``."""
    seed(0)
    it = mx.image.ImageIter(**kwargs)
    for e in range(epochs):
        b = 0
        while True:
            try:
                batch = it.next()
            except StopIteration:
                break
            tag = '%s/e%d/b%d/' % (key, e, b)
            data = batch.data[0].asnumpy()
            if np.array_equal(data, np.clip(np.rint(data), 0, 255)):
                data = data.astype(np.uint8)    # whole pixel values: store them small
            ref[tag + 'data'] = data
            ref[tag + 'label'] = batch.label[0].asnumpy()
            ref[tag + 'pad'] = np.array(batch.pad)
            b += 1
        ref['%s/e%d/count' % (key, e)] = np.array(b)
        it.reset()


def iterators(ref):
    rec = os.path.join(RECDIR, 'images.rec')
    idx = os.path.join(RECDIR, 'images.idx')
    for handle in ('pad', 'discard', 'roll_over'):
        run_iter(ref, 'iter/seq_' + handle, 3, batch_size=5, data_shape=(3, 8, 10),
                 path_imgrec=rec, last_batch_handle=handle)
        run_iter(ref, 'iter/idx_' + handle, 3, batch_size=5, data_shape=(3, 6, 6),
                 path_imgrec=rec, path_imgidx=idx, last_batch_handle=handle)
    run_iter(ref, 'iter/shuffle', 2, batch_size=4, data_shape=(3, 8, 10), path_imgrec=rec,
             path_imgidx=idx, shuffle=True)
    run_iter(ref, 'iter/part', 2, batch_size=2, data_shape=(3, 8, 10), path_imgrec=rec,
             path_imgidx=idx, num_parts=3, part_index=1)
    run_iter(ref, 'iter/multilabel', 1, batch_size=2, data_shape=(3, 8, 10), label_width=3,
             path_imgrec=os.path.join(RECDIR, 'multilabel.rec'))
    run_iter(ref, 'iter/augs', 1, batch_size=4, data_shape=(3, 6, 7), path_imgrec=rec,
             resize=7, rand_crop=True, rand_mirror=True, inter_method=1,
             mean=np.array([120.0, 110.0, 100.0]), std=np.array([50.0, 55.0, 60.0]))

    # image files on disk, listed in a .lst file or a Python list
    with np.load(os.path.join(RECDIR, 'reference.npz')) as z:
        pixels = z['images/pixels_rgb'][:7]
    root = tempfile.mkdtemp()
    try:
        names = []
        for i, img in enumerate(pixels):
            names.append('img_%d.png' % i)
            with open(os.path.join(root, names[-1]), 'wb') as f:
                f.write(png_bytes(img))
        lst = os.path.join(root, 'list.lst')
        with open(lst, 'w') as f:
            for i, name in enumerate(names):
                f.write('%d\t%f\t%f\t%s\n' % (i * 3, i * 0.5, 7.0 - i, name))
        ref['files/pixels'] = pixels
        run_iter(ref, 'iter/lst', 2, batch_size=3, data_shape=(3, 8, 10), label_width=2,
                 path_imglist=lst, path_root=root)
        run_iter(ref, 'iter/lst_shuffle', 2, batch_size=3, data_shape=(3, 8, 10),
                 label_width=2, path_imglist=lst, path_root=root, shuffle=True,
                 last_batch_handle='discard')
        run_iter(ref, 'iter/pylist', 1, batch_size=4, data_shape=(3, 8, 10),
                 imglist=[[float(i), name] for i, name in enumerate(names)], path_root=root,
                 dtype='int32')
    finally:
        shutil.rmtree(root)


def main():
    logging.disable(logging.INFO)
    colour, gray = make_images()
    ref = {}
    functions(ref, colour, gray)
    augmenters(ref, colour)
    iterators(ref)
    path = os.path.join(DATA, 'image_reference.npz')
    np.savez_compressed(path, **ref)
    print('wrote %d arrays to %s (%d bytes)' % (len(ref), os.path.normpath(path),
                                                os.path.getsize(path)))


if __name__ == '__main__':
    main()
