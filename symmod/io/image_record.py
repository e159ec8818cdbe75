"""``ImageRecordIter``: batches of images from RecordIO files, as MXNet's C++ iterator.

Records are read in file order (or shuffled with MXNet's order), decoded with
Pillow on a small thread pool, augmented by the default augmenter's
deterministic steps (resize of the shorter edge, padding, centre or random
crop, mirror) and normalised per channel, and handed out as NCHW float32 in
RGB order. Resizing follows OpenCV's bilinear fixed-point arithmetic, so
results equal MXNet's for PNG images (JPEG decoders may differ by a level).
"""
import logging
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..base import MXNetError, parse_bool, parse_float, parse_int, parse_tuple
from ..image.opencv import gray_pixels, open_image, resize
from ..recordio import read_record, record_offsets, unpack
from .native import MXDataIter

_LOGGER = logging.getLogger(__name__)

__all__ = ['ImageRecordIter']

_RAND_MAGIC = 111

# parameter name -> (default, parser); the subset of MXNet's that symmod implements
_SUPPORTED = {
    'path_imgrec': ('', str), 'path_imglist': ('', str), 'path_imgidx': ('', str),
    'aug_seq': ('aug_default', str), 'label_width': (1, parse_int),
    'data_shape': (None, parse_tuple), 'preprocess_threads': (4, parse_int),
    'verbose': (True, parse_bool), 'num_parts': (1, parse_int), 'part_index': (0, parse_int),
    'device_id': (0, parse_int), 'shuffle_chunk_size': (0, parse_int),
    'shuffle_chunk_seed': (0, parse_int), 'seed_aug': (None, parse_int),
    'shuffle': (False, parse_bool), 'seed': (0, parse_int),
    'batch_size': (None, parse_int), 'round_batch': (True, parse_bool),
    'prefetch_buffer': (4, parse_int), 'ctx': ('gpu', str), 'dtype': (None, str),
    'resize': (-1, parse_int), 'rand_crop': (False, parse_bool),
    'random_resized_crop': (False, parse_bool), 'min_aspect_ratio': (None, parse_float),
    'max_aspect_ratio': (0.0, parse_float), 'max_crop_size': (-1, parse_int),
    'min_crop_size': (-1, parse_int), 'max_random_area': (1.0, parse_float),
    'min_random_area': (1.0, parse_float), 'fill_value': (255, parse_int),
    'inter_method': (1, parse_int), 'pad': (0, parse_int),
    'mirror': (False, parse_bool), 'rand_mirror': (False, parse_bool),
    'mean_r': (0.0, parse_float), 'mean_g': (0.0, parse_float), 'mean_b': (0.0, parse_float),
    'mean_a': (0.0, parse_float), 'std_r': (1.0, parse_float), 'std_g': (1.0, parse_float),
    'std_b': (1.0, parse_float), 'std_a': (1.0, parse_float), 'scale': (1.0, parse_float),
    'max_random_contrast': (0.0, parse_float), 'max_random_illumination': (0.0, parse_float),
}
# MXNet parameters symmod does not implement: allowed only at their default value
_UNSUPPORTED = {
    'mean_img': '', 'max_rotate_angle': 0, 'rotate': -1, 'rotate_list': '',
    'max_shear_ratio': 0.0, 'max_random_scale': 1.0, 'min_random_scale': 1.0,
    'max_img_size': 1e10, 'min_img_size': 0.0, 'brightness': 0.0, 'contrast': 0.0,
    'saturation': 0.0, 'pca_noise': 0.0, 'random_h': 0, 'random_s': 0, 'random_l': 0,
}


def _parse_params(kwargs):
    """MXNet-named parameters with defaults; errors for unsupported non-default ones."""
    params = {}
    for name, (default, parser) in _SUPPORTED.items():
        value = kwargs.pop(name, default)
        params[name] = None if value is None else parser(value)
    refused = []
    for name, default in _UNSUPPORTED.items():
        if name in kwargs:
            value = kwargs.pop(name)
            if str(value) not in ('', str(default)) and not (
                    isinstance(default, float) and parse_float(value) == default):
                refused.append('%s=%r' % (name, value))
    if refused:
        raise MXNetError('ImageRecordIter: symmod does not implement the augmentation '
                         'parameter(s) %s; leave them at their defaults'
                         % ', '.join(refused))
    if kwargs:
        # MXNet's parameter parser ignores unknown names; say so instead of staying silent
        _LOGGER.warning('ImageRecordIter: ignoring unknown parameter(s) %s',
                        ', '.join(sorted(kwargs)))
    for name in ('data_shape', 'batch_size'):
        if params[name] is None:
            raise MXNetError('ImageRecordIter: Required parameter %s is not presented' % name)
    if not params['path_imgrec']:
        raise MXNetError('ImageRecordIter2: must specify image_rec')
    shape = params['data_shape']
    if len(shape) != 3 or min(shape) <= 0 or shape[0] not in (1, 3, 4):
        raise MXNetError('ImageRecordIter: data_shape must be (channels, height, width) with '
                         '1, 3 or 4 channels, found %s' % (shape,))
    if params['aug_seq'] != 'aug_default':
        raise MXNetError('ImageRecordIter: only aug_seq="aug_default" is supported, found %r'
                         % params['aug_seq'])
    if params['inter_method'] not in (0, 1, 2):
        raise MXNetError('ImageRecordIter: symmod implements inter_method 0 (nearest), 1 '
                         '(bilinear) and 2 (bicubic), found %d' % params['inter_method'])
    if params['batch_size'] < 1 or params['label_width'] < 1:
        raise MXNetError('ImageRecordIter: batch_size and label_width must be at least 1')
    if params['num_parts'] < 1 or not 0 <= params['part_index'] < params['num_parts']:
        raise MXNetError('ImageRecordIter: part_index must be in [0, num_parts), found '
                         'part_index=%d with num_parts=%d'
                         % (params['part_index'], params['num_parts']))
    dtype = params['dtype']
    if dtype in (None, 'None'):
        params['dtype'] = 'float32'
    elif dtype not in ('float32', 'uint8', 'int8'):
        raise MXNetError('ImageRecordIter: unknown dtype %r for ImageRecordIter (use '
                         'float32, uint8 or int8)' % dtype)
    if params['random_resized_crop'] and (params['min_crop_size'] != -1 or
                                          params['max_crop_size'] != -1 or
                                          params['rand_crop']):
        raise MXNetError('ImageRecordIter: setting random_resized_crop to true conflicts with '
                         'min_crop_size, max_crop_size and rand_crop')
    return params


# ---- image operations (OpenCV's arithmetic, on (h, w, c) uint8 arrays) --------------------
def _pad(img, pad, fill):
    """``cv2.copyMakeBorder`` with a constant: ``fill`` on colour channels, 0 on alpha."""
    h, w = img.shape[:2]
    out = np.zeros((h + 2 * pad, w + 2 * pad) + img.shape[2:], dtype=np.uint8)
    out[..., :3] = fill
    out[pad:pad + h, pad:pad + w] = img
    return out


class _Augmenter:
    """MXNet's default augmenter for the parameters symmod supports."""

    def __init__(self, params):
        self.p = params
        self.height, self.width = params['data_shape'][1:]
        if params['min_aspect_ratio'] is not None:
            self.ratio_range = (params['min_aspect_ratio'], params['max_aspect_ratio'])
        else:
            self.ratio_range = (1 - params['max_aspect_ratio'], 1 + params['max_aspect_ratio'])

    def __call__(self, img, rng):
        p = self.p
        inter = p['inter_method']
        if p['resize'] != -1:
            rows, cols = img.shape[:2]
            if rows > cols:
                size = (p['resize'], p['resize'] * rows // cols)
            else:
                size = (p['resize'] * cols // rows, p['resize'])
            img = resize(img, size[0], size[1], inter)
        if p['pad'] > 0:
            img = _pad(img, p['pad'], p['fill_value'])
        cropped = None
        if p['random_resized_crop']:
            cropped = self._random_resized_crop(img, rng)
        elif p['max_crop_size'] != -1 or p['min_crop_size'] != -1:
            cropped = self._sized_crop(img, rng)
        if cropped is not None:
            return cropped
        return self._centre_crop(img, rng)

    def _random_resized_crop(self, img, rng):
        p = self.p
        lo, hi = self.ratio_range
        if p['max_random_area'] == 1 and p['min_random_area'] == 1 and lo == 1 and hi == 1:
            return None
        if not (lo > 0 and p['min_random_area'] <= p['max_random_area'] and lo <= hi):
            raise MXNetError('ImageRecordIter: random_resized_crop needs 0 < min_aspect_ratio '
                             '<= max_aspect_ratio and min_random_area <= max_random_area')
        rows, cols = img.shape[:2]
        for _ in range(10):
            area = rows * cols * rng.uniform(p['min_random_area'], p['max_random_area'])
            ratio = rng.uniform(lo, hi)
            crop_h = int(round(np.sqrt(area / ratio)))
            crop_w = int(round(np.sqrt(area * ratio)))
            if rng.uniform() > 0.5:
                crop_h, crop_w = crop_w, crop_h
            if crop_h <= rows and crop_w <= cols:
                y = rng.randint(0, rows - crop_h + 1)
                x = rng.randint(0, cols - crop_w + 1)
                return resize(img[y:y + crop_h, x:x + crop_w], self.width, self.height,
                              p['inter_method'])
        return None

    def _sized_crop(self, img, rng):
        p = self.p
        rows, cols = img.shape[:2]
        if not (cols >= p['max_crop_size'] and rows >= p['max_crop_size']
                and p['max_crop_size'] >= p['min_crop_size']):
            raise MXNetError('ImageRecordIter: input image size %dx%d smaller than '
                             'max_crop_size %d (or max_crop_size < min_crop_size)'
                             % (rows, cols, p['max_crop_size']))
        size = int(rng.randint(p['min_crop_size'], p['max_crop_size'] + 1))
        y, x = self._origin(rows - size, cols - size, rng)
        return resize(img[y:y + size, x:x + size], self.width, self.height, p['inter_method'])

    def _origin(self, spare_y, spare_x, rng):
        if self.p['rand_crop']:
            return int(rng.randint(0, spare_y + 1)), int(rng.randint(0, spare_x + 1))
        return spare_y // 2, spare_x // 2

    def _centre_crop(self, img, rng):
        h, w, inter = self.height, self.width, self.p['inter_method']
        rows, cols = img.shape[:2]
        if rows < h:
            # float32 arithmetic, as MXNet's static_cast<float> chain
            cols = int(np.float32(h) / np.float32(rows) * np.float32(cols))
            img = resize(img, cols, h, inter)
            rows = h
        if cols < w:
            rows = int(np.float32(w) / np.float32(cols) * np.float32(rows))
            img = resize(img, w, rows, inter)
            cols = w
        if rows < h or cols < w:
            raise MXNetError('ImageRecordIter: input image size %dx%d smaller than input '
                             'shape %dx%d' % (rows, cols, h, w))
        y, x = self._origin(rows - h, cols - w, rng)
        return img[y:y + h, x:x + w]


def _decode(buf, channels, image_id):
    """Decode image bytes to ``(h, w, channels)`` uint8 in RGB(A) order."""
    try:
        img = open_image(buf, gray=channels == 1)
    except MXNetError:          # too large: already says why
        raise
    except Exception as err:    # Pillow raises many types for bad data
        raise MXNetError('ImageRecordIter: cannot decode the image of record %d: %s'
                         % (image_id, err)) from None
    if channels == 3:
        return np.asarray(img.convert('RGB'))
    if channels == 1:
        return gray_pixels(img)
    if img.mode not in ('RGBA', 'LA', 'PA') and not (
            img.mode == 'P' and 'transparency' in img.info):
        raise MXNetError('Invalid image with index %d. Expected 4 channels, got %d'
                         % (image_id, len(img.getbands())))
    return np.asarray(img.convert('RGBA'))


def read_image_list(path, label_width):
    """The labels of an ``.lst`` file: ``{image id: float32 array of label_width}``."""
    labels = {}
    try:
        with open(path, 'r', encoding='utf-8') as f:
            for number, line in enumerate(f):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) < 1 + label_width:
                    raise MXNetError('Bad ImageList format: line %d of "%s" has fewer than %d '
                                     'labels' % (number + 1, path, label_width))
                try:
                    labels[int(float(fields[0]))] = np.array(
                        fields[1:1 + label_width], dtype=np.float64).astype(np.float32)
                except (ValueError, OverflowError) as err:
                    raise MXNetError('Bad ImageList format: line %d of "%s": %s'
                                     % (number + 1, path, err)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise MXNetError('cannot read the image list "%s": %s' % (path, err)) from None
    return labels


def _part_offsets(params):
    """Offsets of the records that part ``part_index`` of ``num_parts`` reads, in file order."""
    path = params['path_imgrec']
    if os.path.isdir(path):
        raise MXNetError('ImageRecordIter: path_imgrec "%s" is a directory; symmod reads '
                         'a single .rec file' % path)
    if not os.path.exists(path):
        raise MXNetError('ImageRecordIter: cannot open "%s": No such file or directory' % path)
    total = os.path.getsize(path)
    parts, rank = params['num_parts'], params['part_index']
    if params['path_imgidx']:
        with open(params['path_imgidx'], 'r') as f:
            offsets = sorted(int(line.split()[1]) for line in f if line.strip())
        step = (len(offsets) + parts - 1) // parts
        return offsets[rank * step:(rank + 1) * step]
    offsets = record_offsets(path)
    step = (total + parts - 1) // parts
    step = (step + 3) // 4 * 4
    begin, end = min(step * rank, total), min(step * (rank + 1), total)
    return [o for o in offsets if begin <= o < end]


class _Shuffler:
    """``std::shuffle`` with ``std::mt19937`` as MXNet's build does it, one stream per iterator."""

    def __init__(self, seed):
        self._bits = np.random.RandomState((_RAND_MAGIC + seed) % (1 << 32))._bit_generator

    def permutation(self, n):
        order = list(range(n))
        for i in range(1, n):
            scaling = 0xFFFFFFFF // (i + 1)
            past = (i + 1) * scaling
            draw = int(self._bits.random_raw())
            while draw >= past:
                draw = int(self._bits.random_raw())
            j = draw // scaling
            order[i], order[j] = order[j], order[i]
        return np.asarray(order, dtype=np.int64)


class ImageRecordIter(MXDataIter):
    """Iterate over images packed in a RecordIO file (made by im2rec), as MXNet does.

    Every image is decoded, augmented (resize of the shorter edge to
    ``resize``, padding by ``pad``, a centre crop of ``data_shape`` -- random
    with ``rand_crop`` --, mirroring) and normalised per channel as
    ``(pixel - mean) * scale / std``; batches are ``(batch_size,) + data_shape``
    in RGB order. Without ``shuffle`` records come in file order. The last
    batch of a pass is completed from the start of the data when
    ``round_batch`` (``pad`` says how many were borrowed, and the next epoch
    continues after them, as in MXNet); otherwise the missing rows are zeros
    and ``pad`` counts them (MXNet reports 0 there and leaves stale memory).

    Parameters (keyword-only, MXNet's names and defaults)
    ----------
    path_imgrec : str
        The ``.rec`` file.
    path_imgidx : str, optional
        Its ``.idx`` file (partitions by record count instead of bytes).
    path_imglist : str, optional
        An ``.lst`` file whose labels replace those stored in the records.
    data_shape : tuple of int
        ``(channels, height, width)``; 1 channel decodes as gray, 4 needs RGBA images.
    batch_size : int
        Batch size.
    label_width : int, optional
        Labels per image (default 1).
    shuffle : bool, optional
        Shuffle the records each pass (MXNet's order for a given ``seed``).
    seed : int, optional
        Seed of the shuffle and of the random augmentations.
    resize : int, optional
        Resize the shorter edge to this size first (-1: no resize).
    rand_crop, rand_mirror, mirror : bool, optional
        Random crop position; random / always horizontal flip.
    pad, fill_value : int, optional
        Pad every side by ``pad`` pixels of ``fill_value`` before cropping.
    max_crop_size, min_crop_size : int, optional
        Crop a square of random size in this range and resize it to ``data_shape``.
    random_resized_crop, max_random_area, min_random_area, max_aspect_ratio,
    min_aspect_ratio : optional
        Random crop of random area and aspect ratio, resized to ``data_shape``.
    inter_method : int, optional
        0 nearest, 1 bilinear (default). Others raise an error.
    mean_r, mean_g, mean_b, mean_a, std_r, std_g, std_b, std_a, scale : float, optional
        Normalisation per channel.
    max_random_contrast, max_random_illumination : float, optional
        Random contrast factor / offset per image.
    round_batch : bool, optional
        Complete the last batch from the start (default True).
    num_parts, part_index : int, optional
        Read only one part of the data (distributed training).
    dtype : {'float32', 'uint8', 'int8'}, optional
        Element type of the data (uint8: raw pixels; int8: pixel - round(mean)).
    data_name, label_name : str, optional
        Names in ``provide_data`` / ``provide_label``.
    preprocess_threads : int, optional
        Threads decoding images (default 4).
    prefetch_buffer, ctx, device_id, verbose, shuffle_chunk_size, shuffle_chunk_seed,
    seed_aug : optional
        Accepted for compatibility.

    Augmentations symmod does not implement (rotation, shear, random scale,
    colour jitter, HSL, PCA noise, ``mean_img``) raise an MXNetError when set.

    Examples
    --------
    >>> it = mx.io.ImageRecordIter(path_imgrec='train.rec', data_shape=(3, 224, 224),
    ...                            batch_size=32, resize=256, rand_crop=True,
    ...                            rand_mirror=True, mean_r=123.68, mean_g=116.28,
    ...                            mean_b=103.53)
    >>> it.provide_data
    [DataDesc[data,(32, 3, 224, 224),<class 'numpy.float32'>,NCHW]]
    """

    def __init__(self, *args, data_name='data', label_name='softmax_label', **kwargs):
        if args:
            raise TypeError('ImageRecordIter can only accept keyword arguments')
        p = self._params = _parse_params(dict(kwargs))
        self._batch_size = p['batch_size']
        self._augment = _Augmenter(p)
        self._labels = (read_image_list(p['path_imglist'], p['label_width'])
                        if p['path_imglist'] else None)
        self._offsets = _part_offsets(p)
        if not self._offsets:
            raise MXNetError('ImageRecordIter: part %d of %d of "%s" holds no records'
                             % (p['part_index'], p['num_parts'], p['path_imgrec']))
        self._file = open(p['path_imgrec'], 'rb')
        self._shuffler = _Shuffler(p['seed']) if p['shuffle'] else None
        self._rng = np.random.RandomState(p['seed'] % (1 << 32))
        threads = max(1, min(p['preprocess_threads'], os.cpu_count() or 1))
        self._pool = ThreadPoolExecutor(threads) if threads > 1 else None
        channels = p['data_shape'][0]
        means = np.array([p['mean_r'], p['mean_g'], p['mean_b'], p['mean_a']], np.float32)
        stds = np.array([p['std_r'], p['std_g'], p['std_b'], p['std_a']], np.float32)
        self._mean = means[:channels].reshape(1, channels, 1, 1)
        self._std = stds[:channels].reshape(1, channels, 1, 1)
        self._overflow = False
        self._new_pass()
        if p['verbose']:
            _LOGGER.info('ImageRecordIOParser2: %s, use %d threads for decoding..',
                         p['path_imgrec'], threads)
        super(ImageRecordIter, self).__init__(data_name=data_name, label_name=label_name)

    def __del__(self):
        if getattr(self, '_pool', None) is not None:
            self._pool.shutdown(wait=False)
        if getattr(self, '_file', None) is not None:
            self._file.close()

    # ---- the record stream ----------------------------------------------------------
    def _new_pass(self):
        """Start a pass over the records (a fresh shuffle when shuffling)."""
        count = len(self._offsets)
        self._order = (self._shuffler.permutation(count) if self._shuffler is not None
                       else np.arange(count))
        self._pos = 0

    def _take(self, count):
        picks = self._order[self._pos:self._pos + count]
        self._pos += len(picks)
        return [self._offsets[i] for i in picks]

    def _before_first(self):
        if not self._params['round_batch'] or not self._overflow:
            self._new_pass()
        else:
            self._overflow = False      # the next epoch goes on after the borrowed records

    def _next_batch(self):
        if self._overflow:
            return None
        batch = self._batch_size
        offsets = self._take(batch)
        if not offsets:
            return None
        pad = batch - len(offsets)
        if pad and self._params['round_batch']:
            self._overflow = True
            self._new_pass()
            if pad > len(self._offsets):
                raise MXNetError('ImageRecordIter: number of input images must be bigger '
                                 'than the batch size (%d images, batch_size %d)'
                                 % (len(self._offsets), batch))
            offsets += self._take(pad)
        records = []
        for offset in offsets:
            self._file.seek(offset)
            records.append(read_record(self._file, self._params['path_imgrec']))
        seeds = self._rng.randint(0, 1 << 31, size=len(records))
        jobs = list(zip(records, seeds))
        if self._pool is not None:
            done = list(self._pool.map(self._process, jobs))
        else:
            done = [self._process(job) for job in jobs]
        return self._assemble(done, batch, pad)

    # ---- one image ------------------------------------------------------------------
    def _process(self, job):
        record, seed = job
        p = self._params
        rng = np.random.RandomState(seed)
        header, payload = unpack(record)
        label = self._label(header)
        img = _decode(payload, p['data_shape'][0], header.id)
        img = self._augment(img, rng)
        mirror = p['mirror'] or (p['rand_mirror'] and rng.uniform() < 0.5)
        contrast = np.float32((rng.uniform() * 2 - 1) * p['max_random_contrast'] + 1)
        illumination = np.float32((rng.uniform() * 2 - 1) * p['max_random_illumination'])
        return img, label, mirror, contrast, illumination, header.id

    def _label(self, header):
        width = self._params['label_width']
        if self._labels is not None:
            if header.id not in self._labels:
                raise MXNetError('ImageRecordIter: fail to find imagelabel for id %d in "%s"'
                                 % (header.id, self._params['path_imglist']))
            return self._labels[header.id]
        if header.flag > 0:
            if header.flag != width:
                raise MXNetError('rec file provide %d-dimensional label but label_width is '
                                 'set to %d' % (header.flag, width))
            return header.label
        if width != 1:
            raise MXNetError('label_width must be 1 unless an imglist is provided or the rec '
                             'file is packed with multi dimensional label')
        return np.array([header.label], dtype=np.float32)

    def _assemble(self, done, batch, pad):
        p = self._params
        channels, height, width = p['data_shape']
        pixels = np.zeros((batch, channels, height, width), dtype=np.uint8)
        labels = np.zeros((batch, p['label_width']), dtype=np.float32)
        ids = np.zeros(batch, dtype=np.uint64)
        scale = np.ones((batch, 1, 1, 1), np.float32)
        shift = np.zeros((batch, 1, 1, 1), np.float32)
        for i, (img, label, mirror, contrast, illumination, image_id) in enumerate(done):
            chw = img.transpose(2, 0, 1)
            pixels[i] = chw[:, :, ::-1] if mirror else chw
            labels[i] = label
            ids[i] = image_id
            scale[i] = contrast * np.float32(p['scale'])
            shift[i] = illumination * np.float32(p['scale'])
        if p['dtype'] == 'uint8':
            data = pixels
        elif p['dtype'] == 'int8':
            mean = np.sign(self._mean) * np.floor(np.abs(self._mean) + 0.5)   # std::round
            data = np.clip(pixels.astype(np.int16) - mean.astype(np.int16), -128, 127)
            data = data.astype(np.int8)
        else:
            data = pixels.astype(np.float32)
            data -= self._mean
            data *= scale / self._std
            data += shift / self._std
        if pad and not p['round_batch']:
            data[batch - pad:] = 0
        return data, labels, pad, ids
