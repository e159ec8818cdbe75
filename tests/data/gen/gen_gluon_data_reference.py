"""Write tests/data/gluon_data_reference.json with real MXNet 1.9.1 (not run in CI).

    /work/mxvenv/bin/python tests/data/gen/gen_gluon_data_reference.py

Records sampler index sequences, DataLoader batches for each ``last_batch`` mode,
batchify dtypes, the messages of DataLoader's argument errors, and the values of the
ToTensor / Normalize / Resize / CenterCrop transforms on fixed inputs.
"""
import json
import os

import numpy as np
import mxnet as mx
from mxnet import gluon
from mxnet.gluon.data.vision import transforms as T

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'gluon_data_reference.json')


def batch_sampler_cases():
    cases = []
    for length in (10, 7, 9, 2):
        for batch_size in (3, 4):
            for mode in ('keep', 'discard', 'rollover'):
                sampler = gluon.data.BatchSampler(gluon.data.SequentialSampler(length),
                                                  batch_size, mode)
                passes, lens = [], []
                for _ in range(3):
                    lens.append(len(sampler))
                    passes.append([[int(i) for i in b] for b in sampler])
                cases.append({'length': length, 'batch_size': batch_size, 'last_batch': mode,
                              'passes': passes, 'lens': lens})
    return cases


def interval_cases():
    from mxnet.gluon.contrib.data import IntervalSampler
    out = []
    for length, interval, rollover in ((13, 3, True), (13, 3, False), (10, 10, True),
                                       (10, 1, True), (7, 2, True)):
        s = IntervalSampler(length, interval, rollover)
        out.append({'length': length, 'interval': interval, 'rollover': rollover,
                    'indices': list(s), 'len': len(s)})
    return out


def dataset_cases():
    data = gluon.data.SimpleDataset(list(range(10)))
    out = {'shard': {}, 'take': {}, 'sequential_start': list(gluon.data.SequentialSampler(4, 3))}
    for num in (1, 3, 4):
        for index in range(num):
            out['shard']['%d/%d' % (index, num)] = list(data.shard(num, index))
    for count in (0, 3, 10, 20, None):
        out['take'][str(count)] = list(data.take(count))
    out['filter_even'] = list(data.filter(lambda x: x % 2 == 0))
    out['transform'] = list(gluon.data.ArrayDataset(list(range(4)), list(range(10, 14)))
                            .transform_first(lambda x: x * 3))
    return out


def loader_cases():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int32) * 10
    data = gluon.data.ArrayDataset(mx.nd.array(x), y)
    out = []
    for mode in ('keep', 'discard', 'rollover'):
        loader = gluon.data.DataLoader(data, batch_size=4, last_batch=mode)
        epochs = []
        for _ in range(3):
            epochs.append([{'x': bx.asnumpy().tolist(), 'y': by.asnumpy().tolist(),
                            'x_dtype': str(bx.dtype.__name__), 'y_dtype': str(by.dtype.__name__)}
                           for bx, by in loader])
        out.append({'last_batch': mode, 'len': len(loader), 'epochs': epochs})
    return out


def batchify_cases():
    fn = gluon.data.dataloader.default_batchify_fn
    out = {}
    ints = fn([1, 2, 3])
    out['ints'] = {'value': ints.asnumpy().tolist(), 'dtype': ints.dtype.__name__}
    floats = fn([1.5, 2.0])
    out['floats'] = {'value': floats.asnumpy().tolist(), 'dtype': floats.dtype.__name__}
    nested = fn([(mx.nd.array([1, 2]), (3, np.float32(0.5))),
                 (mx.nd.array([4, 5]), (6, np.float32(1.5)))])
    out['nested'] = {'types': [type(nested).__name__, type(nested[1]).__name__],
                     'x': nested[0].asnumpy().tolist(),
                     'inner': [a.asnumpy().tolist() for a in nested[1]],
                     'inner_dtypes': [a.dtype.__name__ for a in nested[1]]}
    arrays = fn([np.ones((2, 3), np.uint8), np.zeros((2, 3), np.uint8)])
    out['numpy'] = {'shape': list(arrays.shape), 'dtype': arrays.dtype.__name__}
    return out


def error_cases():
    data = gluon.data.SimpleDataset(list(range(5)))
    calls = {
        'no_batch_size': lambda: gluon.data.DataLoader(data),
        'shuffle_and_sampler': lambda: gluon.data.DataLoader(
            data, 2, shuffle=True, sampler=gluon.data.SequentialSampler(5)),
        'batch_sampler_and_size': lambda: gluon.data.DataLoader(
            data, 2, batch_sampler=gluon.data.BatchSampler(
                gluon.data.SequentialSampler(5), 2)),
        'bad_last_batch': lambda: list(gluon.data.BatchSampler(
            gluon.data.SequentialSampler(5), 2, 'drop')),
        'bad_sampler_type': lambda: data.sample([0, 1]),
    }
    out = {}
    for name, call in calls.items():
        try:
            call()
        except Exception as err:  # noqa: BLE001
            out[name] = {'type': type(err).__name__, 'message': str(err)}
    return out


def transform_cases():
    rng = np.random.RandomState(7)
    img = rng.randint(0, 256, (4, 5, 3)).astype(np.uint8)
    batch = rng.randint(0, 256, (2, 4, 5, 3)).astype(np.uint8)
    big = rng.randint(0, 256, (20, 30, 3)).astype(np.uint8)
    chw = rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)
    gray = rng.uniform(0, 1, (2, 1, 3, 3)).astype(np.float32)
    out = {'img': img.tolist(), 'batch': batch.tolist(), 'big': big.tolist(),
           'chw': chw.tolist(), 'gray': gray.tolist()}
    out['to_tensor'] = T.ToTensor()(mx.nd.array(img, dtype='uint8')).asnumpy().tolist()
    out['to_tensor_batch'] = T.ToTensor()(mx.nd.array(batch, dtype='uint8')).asnumpy().tolist()
    out['normalize'] = T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))(
        mx.nd.array(chw)).asnumpy().tolist()
    out['normalize_scalar'] = T.Normalize(0.5, 0.25)(mx.nd.array(gray)).asnumpy().tolist()
    out['normalize_std3'] = T.Normalize(0.1, (1.0, 2.0, 3.0))(mx.nd.array(chw)).asnumpy().tolist()
    composed = T.Compose([T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7))])
    out['compose'] = composed(mx.nd.array(img, dtype='uint8')).asnumpy().tolist()
    resized = {}
    for size, keep, interp in (((17, 13), False, 1), ((45, 31), False, 1), (8, False, 1),
                               (12, True, 1), ((17, 13), False, 0), ((45, 31), False, 0),
                               ((15, 10), False, 1)):
        key = '%s|%s|%d' % (size, keep, interp)
        res = T.Resize(size, keep, interp)(mx.nd.array(big, dtype='uint8'))
        resized[key] = res.asnumpy().tolist()
    out['resize'] = resized
    out['resize_float'] = T.Resize((17, 13))(mx.nd.array(big.astype(np.float32))
                                            ).asnumpy().tolist()
    out['center_crop'] = {
        '10x8': T.CenterCrop((10, 8))(mx.nd.array(big, dtype='uint8')).asnumpy().tolist(),
        '40x25': T.CenterCrop((40, 25))(mx.nd.array(big, dtype='uint8')).asnumpy().tolist()}
    errors = {}
    for name, call in {
            'to_tensor_2d': lambda: T.ToTensor()(mx.nd.zeros((4, 5), dtype='uint8')),
            'normalize_4ch': lambda: T.Normalize()(mx.nd.zeros((4, 2, 2))),
            'normalize_bad_mean': lambda: T.Normalize((1, 2))(mx.nd.zeros((3, 2, 2)))}.items():
        try:
            call().wait_to_read()
        except Exception as err:  # noqa: BLE001
            # MXNet's message carries a C++ traceback; keep the line that explains
            errors[name] = [line for line in str(err).split('\n')
                            if 'must' in line or 'Invalid' in line][0].strip()
    out['errors'] = errors
    return out


def main():
    ref = {'batch_sampler': batch_sampler_cases(), 'interval_sampler': interval_cases(),
           'dataset': dataset_cases(), 'loader': loader_cases(),
           'batchify': batchify_cases(), 'errors': error_cases(),
           'transforms': transform_cases()}
    with open(OUT, 'w') as f:
        json.dump(ref, f, separators=(',', ':'))
    print('wrote', os.path.abspath(OUT), os.path.getsize(OUT), 'bytes')


if __name__ == '__main__':
    main()
