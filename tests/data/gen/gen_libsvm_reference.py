"""Record real MXNet 1.9.1's LibSVMIter batches for tests/io/test_libsvm_iter.py.

Run with the MXNet virtual environment (not part of CI):

    /work/mxnet-venv/bin/python tests/data/gen/gen_libsvm_reference.py

Writes the small LibSVM files under tests/data/sparse/libsvm/ (data.t and label.t: the
example of MXNet's documentation; wide.t: 23 random rows of 10 features with label
weights, qid fields and a blank line; dir/: wide.t cut into two files) and
tests/data/sparse/libsvm_reference.json: for each case, its keyword arguments, the
provide_data / provide_label shapes and, for three passes over the data, every batch
(the data's csr arrays, the label as a dense list, the label's storage type, pad and
index). MXNet's iterator crashes now and then (a segmentation fault): run it again.
"""
import json
import os
import random

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'sparse')
FILES = os.path.join(OUT, 'libsvm')

DATA = '1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n'
LABEL = '1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n'


def wide_lines():
    rng = random.Random(1)
    lines = []
    for i in range(23):
        cols = sorted(rng.sample(range(10), rng.randint(0, 4)))
        head = '%d' % (i % 3) if i % 5 else '%d:0.5 qid:%d' % (i % 3, i)
        lines.append(head + ''.join(' %d:%g' % (c, round(rng.uniform(-2, 2), 3))
                                    for c in cols))
    lines.insert(7, '')
    return lines


def write_files():
    os.makedirs(os.path.join(FILES, 'dir'), exist_ok=True)
    for name, text in (('data.t', DATA), ('label.t', LABEL)):
        with open(os.path.join(FILES, name), 'w') as f:
            f.write(text)
    lines = wide_lines()
    with open(os.path.join(FILES, 'wide.t'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    for name, part in (('a.t', lines[:9]), ('b.t', lines[9:])):
        with open(os.path.join(FILES, 'dir', name), 'w') as f:
            f.write('\n'.join(part) + '\n')


def cases():
    yield 'doc', dict(data_libsvm='data.t', data_shape=(3,), batch_size=3)
    yield 'doc_label_file', dict(data_libsvm='data.t', data_shape=(3,), batch_size=3,
                                 label_libsvm='label.t', label_shape=(3,))
    yield 'wide', dict(data_libsvm='wide.t', data_shape=(10,), batch_size=4)
    # (MXNet 1.9.1 crashes on some parts smaller than about one batch, e.g. 5 parts with
    # batch_size 3 or 4: those are left out)
    for parts, batch in ((2, 4), (3, 4), (4, 3), (5, 2)):
        for index in range(parts):
            yield 'wide_%d_of_%d' % (index, parts), dict(
                data_libsvm='wide.t', data_shape=(10,), batch_size=batch, num_parts=parts,
                part_index=index)
    yield 'dir', dict(data_libsvm='dir', data_shape=(10,), batch_size=6)
    for index in range(3):
        yield 'dir_%d_of_3' % index, dict(data_libsvm='dir', data_shape=(10,), batch_size=2,
                                          num_parts=3, part_index=index)


def shortest(values):
    """float32 values as the shortest decimals that read back to them (a small file)."""
    return json.loads(json.dumps(values.tolist(), default=str).replace('"', ''),
                      parse_float=lambda text: float(repr(np.float32(text))))


def record(kwargs):
    args = dict(kwargs)
    for key in ('data_libsvm', 'label_libsvm'):
        if key in args:
            args[key] = os.path.join(FILES, args[key])
    it = mx.io.LibSVMIter(**args)
    passes = []
    for _ in range(3):
        batches = []
        for batch in it:
            data, label = batch.data[0], batch.label[0]
            batches.append({'indptr': data.indptr.asnumpy().tolist(),
                            'indices': data.indices.asnumpy().tolist(),
                            'values': shortest(data.data.asnumpy()),
                            'label': shortest(label.asnumpy()),
                            'label_stype': batch.label[0].stype,
                            'pad': int(batch.pad), 'index': batch.index.tolist()})
        passes.append(batches)
        it.reset()
    return {'kwargs': kwargs, 'provide_data': list(it.provide_data[0].shape),
            'provide_label': list(it.provide_label[0].shape), 'passes': passes}


def main():
    write_files()
    result = {name: record(kwargs) for name, kwargs in cases()}
    with open(os.path.join(OUT, 'libsvm_reference.json'), 'w') as f:
        f.write('{\n' + ',\n'.join('%s: %s' % (json.dumps(name), json.dumps(result[name]))
                                    for name in sorted(result)) + '\n}\n')


if __name__ == '__main__':
    main()
