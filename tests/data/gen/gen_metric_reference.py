"""Record MXNet 1.9.1's metric values for tests/metric/.

Run with the real MXNet (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_metric_reference.py

Writes tests/data/metric_reference.json: for every case the three batches of
labels and predictions fed in, and what get() / get_global() returned after
updates 1-2, and after reset_local() and update 3.
"""
import json
import os

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'metric_reference.json')


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def batches(kind, rs):
    """Three (labels, preds) batches of numpy arrays for a kind of metric."""
    out = []
    for b in range(3):
        n = 7 + 3 * b
        if kind == 'multiclass':
            labels = [rs.randint(0, 5, size=n).astype(np.float32)]
            preds = [softmax(rs.randn(n, 5)).astype(np.float32)]
        elif kind == 'multiclass_2out':
            labels = [rs.randint(0, 4, size=n).astype(np.float32) for _ in range(2)]
            preds = [softmax(rs.randn(n, 4)).astype(np.float32) for _ in range(2)]
        elif kind == 'class_index':
            labels = [rs.randint(0, 3, size=(n, 1)).astype(np.float32)]
            preds = [rs.randint(0, 3, size=(n, 1)).astype(np.float32)]
        elif kind == 'binary':
            labels = [rs.randint(0, 2, size=n).astype(np.float32)]
            preds = [softmax(rs.randn(n, 2)).astype(np.float32)]
        elif kind == 'regression_1d':
            labels = [rs.randn(n).astype(np.float32)]
            preds = [(labels[0] + 0.5 * rs.randn(n)).astype(np.float32)]
        elif kind == 'regression_2d':
            labels = [rs.randn(n, 3).astype(np.float32)]
            preds = [(labels[0] + 0.5 * rs.randn(n, 3)).astype(np.float32)]
        elif kind == 'sequence':
            # labels (batch, time) with some padding -1; preds (batch * time, vocab)
            labels = [rs.randint(-1, 6, size=(n, 4)).astype(np.float32)]
            preds = [softmax(rs.randn(n * 4, 6)).astype(np.float32)]
        elif kind == 'loss':
            labels = [rs.randn(n).astype(np.float32)]
            preds = [np.abs(rs.randn(n, 2)).astype(np.float32)]
        else:
            raise ValueError(kind)
        out.append((labels, preds))
    return out


CASES = [
    ('acc', 'multiclass', ['acc'], {}),
    ('acc_2outputs', 'multiclass_2out', ['acc'], {}),
    ('acc_class_index', 'class_index', ['accuracy'], {}),
    ('top_k_3', 'multiclass', ['top_k_accuracy'], {'top_k': 3}),
    ('f1_macro', 'binary', ['f1'], {}),
    ('f1_micro', 'binary', ['f1'], {'average': 'micro'}),
    ('mcc_macro', 'binary', ['mcc'], {}),
    ('mcc_micro', 'binary', ['mcc'], {'average': 'micro'}),
    ('pcc', 'multiclass', ['pcc'], {}),
    ('pcc_binary', 'binary', ['pcc'], {}),
    ('perplexity_none', 'multiclass', ['perplexity'], {'ignore_label': None}),
    ('perplexity_ignore', 'sequence', ['perplexity'], {'ignore_label': -1}),
    ('mae_1d', 'regression_1d', ['mae'], {}),
    ('mae_2d', 'regression_2d', ['mae'], {}),
    ('mse_1d', 'regression_1d', ['mse'], {}),
    ('mse_2d', 'regression_2d', ['mse'], {}),
    ('rmse_1d', 'regression_1d', ['rmse'], {}),
    ('rmse_2d', 'regression_2d', ['rmse'], {}),
    ('ce', 'multiclass', ['ce'], {}),
    ('nll', 'multiclass', ['nll_loss'], {}),
    ('pearsonr_macro', 'regression_2d', ['pearsonr'], {}),
    ('pearsonr_micro', 'regression_2d', ['pearsonr'], {'average': 'micro'}),
    ('loss', 'loss', ['loss'], {}),
    ('composite', 'multiclass', [['acc', 'ce', 'mae']], {}),
]


def to_py(value):
    if isinstance(value, (list, tuple)):
        return [to_py(v) for v in value]
    if isinstance(value, (np.generic, float, int)):
        v = float(value)
        return 'nan' if v != v else v
    return value


def main():
    rs = np.random.RandomState(2024)
    ref = {'mxnet_version': mx.__version__, 'cases': {}}
    for case, kind, args, kwargs in CASES:
        data = batches(kind, rs)
        if case == 'composite':
            metric = mx.metric.create(args[0])
        else:
            metric = mx.metric.create(*args, **kwargs)
        record = {'create_args': args, 'create_kwargs': kwargs, 'batches': [
            {'labels': [l.tolist() for l in labels], 'preds': [p.tolist() for p in preds]}
            for labels, preds in data]}
        to_nd = lambda arrays: [mx.nd.array(a) for a in arrays]
        for labels, preds in data[:2]:
            metric.update(to_nd(labels), to_nd(preds))
        record['after2'] = {'get': to_py(metric.get()), 'get_global': to_py(metric.get_global())}
        metric.reset_local()
        record['after_reset_local'] = {'get': to_py(metric.get()),
                                       'get_global': to_py(metric.get_global())}
        metric.update(to_nd(data[2][0]), to_nd(data[2][1]))
        record['after3'] = {'get': to_py(metric.get()), 'get_global': to_py(metric.get_global()),
                            'name_value': to_py(metric.get_name_value()),
                            'global_name_value': to_py(metric.get_global_name_value())}
        record['config'] = metric.get_config()
        metric.reset()
        record['after_reset'] = {'get': to_py(metric.get()),
                                 'get_global': to_py(metric.get_global())}
        ref['cases'][case] = record
    with open(OUT, 'w') as f:
        json.dump(ref, f, sort_keys=True, separators=(',', ':'))
        f.write('\n')


if __name__ == '__main__':
    main()
