"""The mistakes new users make get messages that name the fix: the closest registered
name, the call that is missing, the dtype found; out-of-range labels and NaN / Inf during
fit are reported once."""
import logging
import traceback
import warnings

import numpy as np
import pytest

import symmod as mx
from symmod._suggest import closest


# ---- misspelled names -------------------------------------------------------------------
@pytest.mark.parametrize('make, error, expected', [
    (lambda: mx.optimizer.create('adamm'), ValueError,
     "Cannot find optimizer adamm. Did you mean 'adam'? Registered optimizers: "),
    (lambda: mx.metric.create('acuracy'), AssertionError, "Did you mean 'accuracy'?"),
    (lambda: mx.init.create('xaviar'), AssertionError, "Did you mean 'xavier'?"),
    (lambda: mx.kv.create('lcoal'), mx.MXNetError,
     "Unknown KVStore type 'lcoal'. Did you mean 'local'?"),
    (lambda: mx.lr_scheduler.FactorScheduler(2, warmup_steps=1, warmup_mode='linaer'),
     ValueError, "not 'linaer'. Did you mean 'linear'?"),
    (lambda: mx.sym.Custom(mx.sym.var('x'), op_type='no_such_custom_op'), mx.MXNetError,
     'Cannot find custom operator no_such_custom_op'),
])
def test_misspelled_registered_names_get_the_closest_match(make, error, expected):
    with pytest.raises(error) as info:
        make()
    assert expected in str(info.value)


def test_registered_names_are_listed():
    with pytest.raises(ValueError) as info:
        mx.optimizer.create('adamm')
    for name in ('adam', 'sgd', 'rmsprop', 'nag'):
        assert name in str(info.value).split('Registered optimizers: ')[1].split(', ')


def test_misspelled_operator_names_get_the_closest_match():
    from symmod.ops import registry
    with pytest.raises(mx.MXNetError, match="Did you mean 'FullyConnected'"):
        registry.get('FullyConected')
    for namespace, prefix in ((mx.sym, 'symmod.symbol'), (mx.nd, 'symmod.ndarray')):
        with pytest.raises(AttributeError) as info:
            namespace.FullyConected
        assert str(info.value) == ("module '%s' has no attribute 'FullyConected'. "
                                   "Did you mean 'FullyConnected'?" % prefix)
        # shown as a plain AttributeError, without a second suggestion from Python
        shown = traceback.format_exception_only(info.type, info.value)[-1]
        assert shown.startswith('AttributeError: ') and shown.count('Did you mean') == 1
        with pytest.raises(AttributeError, match="'softmaxoutput'. Did you mean 'SoftmaxOutput'"):
            namespace.softmaxoutput
        assert not hasattr(namespace, 'no_such_thing_at_all')


@pytest.mark.parametrize('namespace, typo, expected', [
    (mx.lr_scheduler, 'FactorSchedular', 'FactorScheduler'),
    (mx.optimizer, 'Adamm', 'Adam'), (mx.init, 'Xavir', 'Xavier'),
    (mx.metric, 'Acuracy', 'Accuracy')])
def test_misspelled_class_names_get_the_closest_match(namespace, typo, expected):
    with pytest.raises(AttributeError, match="has no attribute '%s'. Did you mean '%s'?"
                       % (typo, expected)):
        getattr(namespace, typo)


def test_nothing_close_gives_no_suggestion():
    assert closest('zzzzzz', ['adam', 'sgd']) is None
    with pytest.raises(ValueError) as info:
        mx.optimizer.create('zzzzzz')
    assert 'Did you mean' not in str(info.value)


# ---- module state -------------------------------------------------------------------------
def _mlp(classes=3):
    fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=classes, name='fc')
    return mx.sym.SoftmaxOutput(fc, name='softmax')


def test_module_methods_before_bind_say_what_to_call():
    it = mx.io.NDArrayIter(np.zeros((6, 4)), np.zeros(6), batch_size=3)
    mod = mx.mod.Module(_mlp())
    with pytest.raises(AssertionError, match=r'Module\.predict\(\): the module is not bound: '
                                             r'call bind\(\) \(or fit\) first'):
        mod.predict(it)
    with pytest.raises(AssertionError, match=r'Module\.forward\(\): .*call bind\(\)'):
        mod.forward(next(iter(it)))
    with pytest.raises(AssertionError, match=r'Module\.update_metric\(\): .*call bind\(\)'):
        mod.update_metric(mx.metric.Accuracy(), [])
    mod.bind(it.provide_data, it.provide_label)
    with pytest.raises(AssertionError, match=r'Module\.predict\(\): .*call init_params\(\)'):
        mod.predict(it)
    mod.init_params()
    with pytest.raises(AssertionError, match=r'Module\.update\(\): .*call init_optimizer\(\)'):
        mod.update()
    with pytest.raises(AssertionError, match='inputs_need_grad=True'):
        mod.get_input_grads()
    bucketing = mx.mod.BucketingModule(lambda key: (_mlp(), ('data',), ('softmax_label',)),
                                       default_bucket_key=3)
    with pytest.raises(AssertionError, match=r'BucketingModule\.get_outputs\(\): .*bind\(\)'):
        bucketing.get_outputs()


# ---- NDArrayIter inputs -------------------------------------------------------------------
def test_string_labels_name_the_dtype_found_and_expected():
    with pytest.raises(TypeError) as info:
        mx.io.NDArrayIter(np.zeros((4, 3)), np.array(['cat', 'dog', 'cat', 'dog']),
                          batch_size=2)
    message = str(info.value)
    assert 'softmax_label' in message and 'strings (dtype <U3)' in message
    assert 'numeric dtype' in message and 'np.unique' in message
    with pytest.raises(TypeError, match=r'found an array of strings \(dtype <U3\)'):
        mx.io.NDArrayIter(np.zeros((4, 3)), ['cat', 'dog', 'cat', 'dog'], batch_size=2)
    with pytest.raises(TypeError, match=r'Python objects \(dtype object\)'):
        mx.io.NDArrayIter(np.array([None, 1, 2, 3], dtype=object), batch_size=2)


def test_a_list_of_numbers_is_one_array():
    it = mx.io.NDArrayIter([[1, 2], [3, 4], [5, 6], [7, 8]], [0, 1, 0, 1], batch_size=2)
    assert [(d.name, d.shape) for d in it.provide_data] == [('data', (2, 2))]
    assert [(d.name, d.shape) for d in it.provide_label] == [('softmax_label', (2,))]
    batch = next(iter(it))
    np.testing.assert_array_equal(batch.data[0].asnumpy(), [[1, 2], [3, 4]])
    # a list of arrays is still several inputs, as in MXNet
    it = mx.io.NDArrayIter([np.zeros((4, 2)), np.ones((4, 3))], batch_size=2)
    assert [d.name for d in it.provide_data] == ['_0_data', '_1_data']


# ---- labels out of range ------------------------------------------------------------------
def _fit(labels, classes=3, **kwargs):
    rng = np.random.RandomState(0)
    data = rng.rand(len(labels), 4).astype(np.float32)
    mod = mx.mod.Module(_mlp(classes))
    mod.fit(mx.io.NDArrayIter(data, np.asarray(labels, dtype=np.float32), batch_size=5),
            num_epoch=2, **kwargs)
    return mod


def _messages(record):
    return [str(w.message) for w in record if issubclass(w.category, UserWarning)]


def test_out_of_range_labels_warn_once_naming_label_and_class_count():
    labels = [0, 1, 2, 12, 1, 0, -3, 2, 1, 0]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter('always')
        _fit(labels)
    messages = _messages(record)
    softmax = [m for m in messages if m.startswith('SoftmaxOutput')]
    accuracy = [m for m in messages if m.startswith('Accuracy')]
    assert len(softmax) == 1, messages       # once, though every epoch sees the labels
    assert 'label 12 outside the 3 classes (valid labels are 0..2)' in softmax[0]
    # the metric checks the first batch of each epoch (here: the batch holding 12)
    assert accuracy and all('label 12 outside the 3 classes' in m for m in accuracy)


def test_negative_label_is_named():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter('always')
        _fit([0, 1, -3, 2, 1, 0, 1, 2, 1, 0])
    assert any(m.startswith('SoftmaxOutput: label -3 outside the 3 classes')
               for m in _messages(record))


def test_valid_and_ignored_labels_do_not_warn():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter('always')
        _fit([0, 1, 2, 2, 1, 0, 1, 2, 1, 0])
        fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc')
        net = mx.sym.SoftmaxOutput(fc, name='softmax', use_ignore=True, ignore_label=-1)
        mod = mx.mod.Module(net)
        mod.fit(mx.io.NDArrayIter(np.ones((10, 4), np.float32),
                                  np.array([0, 1, -1, 2, 1] * 2, np.float32), batch_size=5),
                num_epoch=1, eval_metric=mx.metric.Loss())
    assert not [m for m in _messages(record) if 'outside the' in m]


def test_gluon_softmax_cross_entropy_warns_on_out_of_range_labels():
    loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter('always')
        loss(mx.nd.zeros((2, 3)), mx.nd.array([1, 5]))
        loss(mx.nd.zeros((2, 3)), mx.nd.array([1, 5]))      # checked on the first call only
    messages = [m for m in _messages(record) if 'outside the' in m]
    assert messages == [m for m in messages if m.startswith(
        'SoftmaxCrossEntropyLoss: label 5 outside the 3 classes')] and len(messages) == 1


def test_accuracy_metric_warns_without_module():
    metric = mx.metric.Accuracy()
    with pytest.warns(UserWarning, match=r'Accuracy: label 10 outside the 10 classes'):
        metric.update([mx.nd.array([10, 1])], [mx.nd.array(np.eye(10)[:2])])
    assert metric.get()[1] == 0.5


# ---- NaN / Inf during fit -----------------------------------------------------------------
def test_nan_during_fit_is_logged_once_with_epoch_and_batch(caplog):
    rng = np.random.RandomState(0)
    data = rng.rand(20, 4).astype(np.float32)
    data[12, 1] = np.nan                     # third batch of 5
    mod = mx.mod.Module(_mlp())
    with caplog.at_level(logging.WARNING):
        mod.fit(mx.io.NDArrayIter(data, rng.randint(0, 3, 20), batch_size=5), num_epoch=3)
    found = [r for r in caplog.records if 'NaN or Inf' in r.getMessage()]
    assert len(found) == 1
    assert found[0].name == 'symmod.module'
    message = found[0].getMessage()
    assert message.startswith('Epoch[0] Batch[2]: NaN or Inf in the outputs (loss) and the '
                              'parameters fc_bias, fc_weight'), message


def test_finite_training_logs_no_nan_warning(caplog):
    with caplog.at_level(logging.WARNING):
        _fit([0, 1, 2, 2, 1, 0, 1, 2, 1, 0])
    assert not [r for r in caplog.records if 'NaN' in r.getMessage()]
