"""mx.io.LibSVMIter against batches recorded from MXNet 1.9.1 (tests/data/gen/
gen_libsvm_reference.py), plus its argument and file errors."""
import json
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), '..', 'data', 'sparse')
FILES = os.path.join(DATA, 'libsvm')
with open(os.path.join(DATA, 'libsvm_reference.json')) as _f:
    REFERENCE = json.load(_f)


def _iter(kwargs):
    args = dict(kwargs)
    for key in ('data_libsvm', 'label_libsvm'):
        if key in args:
            args[key] = os.path.join(FILES, args[key])
    return mx.io.LibSVMIter(**args)


def _check_batch(batch, want):
    data, label = batch.data[0], batch.label[0]
    assert data.stype == 'csr' and label.stype == want['label_stype']
    assert data.indptr.dtype == np.int64 and data.indices.dtype == np.int64
    np.testing.assert_array_equal(data.indptr.asnumpy(), want['indptr'])
    np.testing.assert_array_equal(data.indices.asnumpy(), want['indices'])
    # dmlc's number parser is not correctly rounded: MXNet's values may be 1 ulp off
    np.testing.assert_allclose(data.data.asnumpy(), np.float32(want['values']), rtol=2e-7)
    np.testing.assert_allclose(label.asnumpy(), np.float32(want['label']), rtol=2e-7)
    assert batch.pad == want['pad']
    np.testing.assert_array_equal(batch.index, want['index'])


@pytest.mark.parametrize('case', sorted(REFERENCE))
def test_batches_match_mxnet(case):
    ref = REFERENCE[case]
    it = _iter(ref['kwargs'])
    assert it.provide_data[0].shape == tuple(ref['provide_data'])
    assert it.provide_label[0].shape == tuple(ref['provide_label'])
    for want_pass in ref['passes']:
        got = list(it)
        assert len(got) == len(want_pass)
        for batch, want in zip(got, want_pass):
            _check_batch(batch, want)
        it.reset()


def test_parts_cover_every_row_once():
    rows = []
    for index in range(3):
        it = _iter(dict(data_libsvm='wide.t', data_shape=(10,), batch_size=1, num_parts=3,
                        part_index=index))
        rows.extend(b.data[0].asnumpy()[0].tolist() + b.label[0].asnumpy().tolist()
                    for b in it)
    whole = _iter(dict(data_libsvm='wide.t', data_shape=(10,), batch_size=1))
    assert rows == [b.data[0].asnumpy()[0].tolist() + b.label[0].asnumpy().tolist()
                    for b in whole]


def test_trains_a_module_with_csr_data():
    it = _iter(dict(data_libsvm='wide.t', data_shape=(10,), batch_size=4))
    data = mx.sym.var('data', stype='csr')
    weight = mx.sym.var('weight', shape=(10, 1), stype='row_sparse')
    out = mx.sym.LinearRegressionOutput(mx.sym.sparse.dot(data, weight),
                                        mx.sym.var('softmax_label'))
    mod = mx.mod.Module(out, data_names=['data'], label_names=['softmax_label'])
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    mod.init_params(mx.init.Zero())
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1})
    metric = mx.metric.MSE()
    for batch in it:
        mod.forward_backward(batch)
        mod.update()
        mod.update_metric(metric, batch.label)
    assert np.isfinite(metric.get()[1])
    assert np.abs(mod.get_params()[0]['weight'].asnumpy()).sum() > 0


@pytest.mark.parametrize('kwargs, message', [
    (dict(data_shape=(2, 2)), 'dimension of data_shape is expected to be 1'),
    (dict(label_shape=(3,)), 'label_shape is expected to be'),
    (dict(label_libsvm='label.t'), 'label_shape is not expected to be'),
    (dict(num_parts=0), 'number of parts should be positive'),
    (dict(num_parts=2, part_index=2), r'part_index must be in \[0, num_parts\)'),
    (dict(round_batch=False), 'round_batch'),
    (dict(batch_size=9), 'number of input must be bigger than batch size'),
    (dict(dtype='float64'), 'dtype must be float32'),
    (dict(data_libsvm='missing.t'), 'No such file or directory'),
    (dict(data_shape=(2,)), 'column index 2, outside the shape'),
])
def test_argument_errors(kwargs, message):
    args = dict(data_libsvm='data.t', data_shape=(3,), batch_size=3)
    args.update(kwargs)
    with pytest.raises(MXNetError, match=message):
        _iter(args)


def test_file_errors(tmp_path):
    bad = tmp_path / 'bad.t'
    bad.write_text('1 0:0.5\n2 1;3\n')
    with pytest.raises(MXNetError, match='cannot parse line 2'):
        mx.io.LibSVMIter(data_libsvm=str(bad), data_shape=(3,), batch_size=1)
    short = tmp_path / 'short.t'
    short.write_text('1\n2 0:1\n')
    with pytest.raises(MXNetError, match='only 2'):
        mx.io.LibSVMIter(data_libsvm=os.path.join(FILES, 'data.t'), data_shape=(3,),
                         batch_size=2, label_libsvm=str(short), label_shape=(3,))
    empty = tmp_path / 'empty.t'
    empty.write_text('\n')
    with pytest.raises(MXNetError, match='holds no rows'):
        mx.io.LibSVMIter(data_libsvm=str(empty), data_shape=(3,), batch_size=1)
