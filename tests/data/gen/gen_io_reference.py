"""Record what MXNet 1.9.1's data iterators produce, for tests/io/.

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_io_reference.py

Writes tests/data/io_reference.json. Every case is deterministic (NDArrayIter
shuffles with numpy's global generator, seeded here with np.random.seed).
"""
import gzip
import hashlib
import json
import os
import shutil
import struct
import tempfile

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'io_reference.json')
MNIST = os.path.join(HERE, '..', '..', '..', 'examples', 'mnist', 'data')


def batches(it, epochs):
    """Every batch of ``epochs`` passes (reset between passes) as plain lists."""
    out = []
    for _ in range(epochs):
        epoch = []
        for batch in it:
            epoch.append({
                'data': [d.asnumpy().tolist() for d in batch.data],
                'label': [l.asnumpy().tolist() for l in (batch.label or [])],
                'pad': batch.pad,
                'index': None if batch.index is None else np.asarray(batch.index).tolist(),
            })
        out.append(epoch)
        it.reset()
    return out


def descs(descs_list):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in descs_list]


def ndarray_iter_cases():
    cases = {}
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    label = np.arange(10, dtype=np.float32)
    for handle in ['pad', 'discard', 'roll_over']:
        for bs in [3, 4, 5, 10, 25]:
            if handle != 'pad' and bs > 10:
                continue
            it = mx.io.NDArrayIter(data, label, batch_size=bs, last_batch_handle=handle)
            cases['%s_bs%d' % (handle, bs)] = {
                'handle': handle, 'batch_size': bs, 'shuffle': False, 'seed': None,
                'provide_data': descs(it.provide_data),
                'provide_label': descs(it.provide_label),
                'epochs': batches(it, 3)}
    for handle in ['pad', 'discard', 'roll_over']:
        np.random.seed(42)
        it = mx.io.NDArrayIter(data, label, batch_size=4, shuffle=True,
                               last_batch_handle=handle)
        cases['%s_bs4_shuffle' % handle] = {
            'handle': handle, 'batch_size': 4, 'shuffle': True, 'seed': 42,
            'provide_data': descs(it.provide_data),
            'provide_label': descs(it.provide_label),
            'epochs': batches(it, 3)}
    return cases


def ndarray_iter_layout_case():
    data = np.arange(2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3)   # T, N, C
    it = mx.io.NDArrayIter(data, None, batch_size=2, layout='TNC', last_batch_handle='pad')
    return {'provide_data': descs(it.provide_data), 'provide_label': descs(it.provide_label),
            'epochs': batches(it, 1)}


def ndarray_iter_names():
    a = np.zeros((6, 2), dtype=np.float32)
    out = {}
    it = mx.io.NDArrayIter({'zeta': a, 'alpha': a + 1, 'mid': a + 2},
                           {'l2': a[:, 0], 'l1': a[:, 0] + 1}, batch_size=3)
    out['dict'] = {'provide_data': descs(it.provide_data),
                   'provide_label': descs(it.provide_label),
                   'first': batches(it, 1)[0][0]}
    it = mx.io.NDArrayIter([a, a + 1], [a[:, 0]], batch_size=3, data_name='x', label_name='y')
    out['list'] = {'provide_data': descs(it.provide_data),
                   'provide_label': descs(it.provide_label)}
    it = mx.io.NDArrayIter(np.arange(6, dtype=np.int64).reshape(6, 1), batch_size=3)
    out['int64_numpy'] = {'provide_data': descs(it.provide_data),
                          'provide_label': descs(it.provide_label)}
    it = mx.io.NDArrayIter(mx.nd.array(np.arange(6).reshape(6, 1), dtype='int32'),
                           batch_size=3)
    out['int32_ndarray'] = {'provide_data': descs(it.provide_data)}
    return out


def resize_case():
    data = np.arange(10, dtype=np.float32).reshape(10, 1)
    it = mx.io.ResizeIter(mx.io.NDArrayIter(data, batch_size=4), 5)
    return batches(it, 2)


def write_idx(path, array, magic):
    with open(path, 'wb') as f:
        f.write(struct.pack('>i', magic))
        for dim in array.shape:
            f.write(struct.pack('>i', dim))
        f.write(array.astype(np.uint8).tobytes())


def mnist_cases(tmp):
    out = {'shuffle_order': {}}
    # tiny files whose two pixels encode the image index: the shuffled order can be read back
    for n in [10, 11, 1000, 1001, 60000]:
        idx = np.arange(n)
        img = np.stack([idx // 256, idx % 256], 1).reshape(n, 1, 2)
        write_idx(os.path.join(tmp, 'img%d' % n), img, 2051)
        write_idx(os.path.join(tmp, 'lab%d' % n), idx % 10, 2049)
        for seed in [0, 7]:
            it = mx.io.MNISTIter(image=os.path.join(tmp, 'img%d' % n),
                                 label=os.path.join(tmp, 'lab%d' % n),
                                 batch_size=n, shuffle=True, seed=seed, flat=True, silent=True)
            pixels = np.round(it.next().data[0].asnumpy() * 256).astype(np.int64)
            order = pixels[:, 0] * 256 + pixels[:, 1]
            if n > 2000:   # keep the file small: a digest of the long orders
                order = {'head': order[:50].tolist(),
                         'sha256_int64': hashlib.sha256(order.astype('<i8').tobytes()).hexdigest()}
            else:
                order = order.tolist()
            out['shuffle_order']['%d_%d' % (n, seed)] = order
    # the shipped 5k digits
    for name in ['train', 't10k']:
        for fname in ['%s-images-idx3-ubyte' % name, '%s-labels-idx1-ubyte' % name]:
            with gzip.open(os.path.join(MNIST, fname + '.gz')) as src, \
                    open(os.path.join(tmp, fname), 'wb') as dst:
                shutil.copyfileobj(src, dst)
    shipped = {}
    for key, kwargs in [('plain', dict(shuffle=False)),
                        ('shuffle_seed0', dict(shuffle=True, seed=0)),
                        ('shuffle_seed3_flat', dict(shuffle=True, seed=3, flat=True)),
                        ('part1of3', dict(shuffle=False, num_parts=3, part_index=1)),
                        ('part2of3_shuffle', dict(shuffle=True, num_parts=3, part_index=2))]:
        it = mx.io.MNISTIter(image=os.path.join(tmp, 'train-images-idx3-ubyte'),
                             label=os.path.join(tmp, 'train-labels-idx1-ubyte'),
                             batch_size=100, silent=True, **kwargs)
        labels, sums, count = [], [], 0
        for batch in it:
            labels.extend(batch.label[0].asnumpy().astype(int).tolist())
            sums.append(float(batch.data[0].asnumpy().astype(np.float64).sum()))
            count += 1
        shipped[key] = {'kwargs': kwargs, 'num_batches': count, 'labels': labels,
                        'data_sums': sums, 'provide_data': descs(it.provide_data),
                        'provide_label': descs(it.provide_label)}
    out['shipped_train'] = shipped
    return out


def csv_cases(tmp):
    out = {}
    data_csv = os.path.join(tmp, 'data.csv')
    with open(data_csv, 'w') as f:
        f.write('1,2,3\n2,3,4\n3,4,5\n4,5,6\n')
    label_csv = os.path.join(tmp, 'label.csv')
    with open(label_csv, 'w') as f:
        f.write('1\n2\n3\n4\n')
    label2_csv = os.path.join(tmp, 'label2.csv')
    with open(label2_csv, 'w') as f:
        f.write('1,0\n2,0\n3,0\n4,0\n')
    for key, kwargs in [
            ('bs2', dict(data_shape=(3,), batch_size=2)),
            ('bs3_round', dict(data_shape=(3,), batch_size=3)),
            ('bs3_noround_label', dict(data_shape=(3,), batch_size=3, round_batch=False,
                                       label_csv=label_csv)),
            ('bs5_round', dict(data_shape=(3,), batch_size=5)),
            ('int32_shape31_label2', dict(data_shape=(3, 1), batch_size=2, dtype='int32',
                                          label_csv=label2_csv, label_shape=(2,)))]:
        it = mx.io.CSVIter(data_csv=data_csv, **kwargs)
        kw = {k: (os.path.basename(v) if k == 'label_csv' else v) for k, v in kwargs.items()}
        out[key] = {'kwargs': kw, 'provide_data': descs(it.provide_data),
                    'provide_label': descs(it.provide_label), 'epochs': batches(it, 3)}
    return out


def main():
    ref = {'mxnet_version': mx.__version__}
    ref['ndarray_iter'] = ndarray_iter_cases()
    ref['ndarray_iter_layout'] = ndarray_iter_layout_case()
    ref['ndarray_iter_names'] = ndarray_iter_names()
    ref['resize_iter'] = resize_case()
    tmp = tempfile.mkdtemp()
    try:
        ref['mnist'] = mnist_cases(tmp)
        ref['csv'] = csv_cases(tmp)
    finally:
        shutil.rmtree(tmp)
    with open(OUT, 'w') as f:
        json.dump(ref, f, sort_keys=True, separators=(',', ':'))
        f.write('\n')


if __name__ == '__main__':
    main()
