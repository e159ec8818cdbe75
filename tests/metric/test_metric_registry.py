"""create(), the registry, CompositeEvalMetric, CustomMetric / np() and the
local-versus-global bookkeeping every metric shares."""
import math
from collections import OrderedDict

import numpy as np
import pytest

import symmod as mx

PREDS = [mx.nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
LABELS = [mx.nd.array([0, 1, 1])]


@pytest.mark.parametrize('name, cls', [
    ('acc', 'Accuracy'), ('accuracy', 'Accuracy'), ('ACC', 'Accuracy'),
    ('top_k_acc', 'TopKAccuracy'), ('top_k_accuracy', 'TopKAccuracy'), ('f1', 'F1'),
    ('mcc', 'MCC'), ('pcc', 'PCC'), ('perplexity', 'Perplexity'), ('mae', 'MAE'),
    ('mse', 'MSE'), ('rmse', 'RMSE'), ('ce', 'CrossEntropy'),
    ('crossentropy', 'CrossEntropy'), ('nll_loss', 'NegativeLogLikelihood'),
    ('pearsonr', 'PearsonCorrelation'), ('loss', 'Loss'), ('composite', 'CompositeEvalMetric')])
def test_names_and_aliases(name, cls):
    kwargs = {'top_k': 2} if 'top_k' in name else {}
    args = (None,) if name == 'perplexity' else ()
    assert type(mx.metric.create(name, *args, **kwargs)).__name__ == cls


def test_create_from_instance_list_callable_json_and_config():
    acc = mx.metric.Accuracy()
    assert mx.metric.create(acc) is acc
    composite = mx.metric.create([acc, 'rmse', lambda l, p: 1.0])
    assert isinstance(composite, mx.metric.CompositeEvalMetric)
    assert [type(m).__name__ for m in composite.metrics] == ['Accuracy', 'RMSE', 'CustomMetric']
    assert mx.metric.create('["top_k_accuracy", {"top_k": 4}]').top_k == 4
    assert mx.metric.create('{"metric": "ce", "eps": 0.5}').eps == 0.5
    restored = mx.metric.create(mx.metric.TopKAccuracy(top_k=3, name='t').get_config())
    assert (type(restored).__name__, restored.top_k, restored.name) == \
        ('TopKAccuracy', 3, 't_3_3')   # MXNet appends _k again on re-creation
    restored = mx.metric.create(mx.metric.CompositeEvalMetric(['acc', 'mae']).get_config())
    assert isinstance(restored, mx.metric.CompositeEvalMetric)


def test_unknown_metric_and_extra_arguments():
    with pytest.raises(AssertionError, match='nope is not registered'):
        mx.metric.create('nope')
    with pytest.raises(AssertionError, match='already an instance'):
        mx.metric.create(mx.metric.Accuracy(), axis=0)


def test_register_custom_metric_and_override_warning():
    @mx.metric.register
    @mx.metric.alias('half_acc')
    class HalfAccuracy(mx.metric.Accuracy):
        def get(self):
            name, value = super(HalfAccuracy, self).get()
            return name, value / 2

    metric = mx.metric.create('half_acc')
    metric.update(LABELS, PREDS)
    assert metric.get()[1] == pytest.approx(1 / 3)
    with pytest.warns(UserWarning, match='overriding existing metric'):
        mx.metric.register(HalfAccuracy)


def test_composite_lists_children_and_filters_names():
    comp = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), mx.metric.F1()])
    comp.update(LABELS, PREDS)
    names, values = comp.get()
    assert names == ['accuracy', 'f1'] and values == [pytest.approx(2 / 3), pytest.approx(0.8)]
    assert comp.get_name_value() == [('accuracy', values[0]), ('f1', values[1])]
    assert comp.get_metric(1).name == 'f1'
    assert isinstance(comp.get_metric(5), ValueError)
    comp.reset_local()
    assert all(math.isnan(v) for v in comp.get()[1])
    assert comp.get_global()[1] == [pytest.approx(2 / 3), pytest.approx(0.8)]
    comp.reset()
    assert all(math.isnan(v) for v in comp.get_global()[1])

    comp = mx.metric.CompositeEvalMetric(['acc'], output_names=['out'], label_names=['lab'])
    comp.update_dict(OrderedDict([('lab', LABELS[0]), ('other', mx.nd.array([9, 9, 9]))]),
                     OrderedDict([('out', PREDS[0]), ('x', mx.nd.zeros((3, 2)))]))
    assert comp.get()[1] == [pytest.approx(2 / 3)]


def test_update_dict_picks_named_outputs_and_labels():
    acc = mx.metric.Accuracy(output_names=['b_output'], label_names=['b_label'])
    acc.update_dict({'a_label': mx.nd.array([0, 0, 0]), 'b_label': LABELS[0]},
                    {'a_output': mx.nd.zeros((3, 2)), 'b_output': PREDS[0]})
    assert acc.get()[1] == pytest.approx(2 / 3)
    everything = mx.metric.Accuracy()
    everything.update_dict({'l': LABELS[0]}, {'p': PREDS[0]})
    assert everything.get()[1] == pytest.approx(2 / 3)


def test_local_and_global_statistics():
    acc = mx.metric.Accuracy()
    acc.update(LABELS, PREDS)                             # 2 of 3
    acc.reset_local()
    acc.update([mx.nd.array([0])], [mx.nd.array([[1., 0.]])])   # 1 of 1
    assert acc.get() == ('accuracy', 1.0)
    assert acc.get_global() == ('accuracy', 0.75)
    assert acc.get_global_name_value() == [('accuracy', 0.75)]
    assert str(acc) == "EvalMetric: {'accuracy': 1.0}"
    acc.reset()
    assert math.isnan(acc.get()[1]) and math.isnan(acc.get_global()[1])


def test_metrics_without_global_stats_report_local_values():
    class Plain(mx.metric.EvalMetric):
        def update(self, labels, preds):
            self.sum_metric += 3.0
            self.num_inst += 1

    metric = Plain('plain')
    metric.update(None, None)
    assert metric.get_global() == ('plain', 3.0)
    assert metric.get_global_name_value() == [('plain', 3.0)]
    with pytest.raises(NotImplementedError):
        mx.metric.EvalMetric('base').update([], [])


def test_custom_metric_names_returns_and_extra_outputs():
    def mean_abs(label, pred):
        return np.abs(label - pred.ravel()).mean()

    metric = mx.metric.create(mean_abs)
    assert metric.name == 'mean_abs'
    metric.update([mx.nd.array([1., 2.])], [mx.nd.array([[1.], [4.]])])
    assert metric.get() == ('mean_abs', 1.0)
    assert mx.metric.CustomMetric(lambda l, p: 0).name == 'custom(<lambda>)'

    summed = mx.metric.CustomMetric(lambda l, p: (float(l.sum()), l.size), name='s')
    summed.update([mx.nd.array([1., 2., 3.])], [mx.nd.zeros((3,))])
    assert summed.get() == ('s', 2.0)

    extra = mx.metric.CustomMetric(lambda l, p: p.shape[0], allow_extra_outputs=True)
    extra.update([mx.nd.zeros((4,))], [mx.nd.zeros((4, 2)), mx.nd.zeros((1, 1))])
    assert extra.num_inst == 1 and extra.get()[1] == 4
    with pytest.raises(ValueError):
        mx.metric.CustomMetric(lambda l, p: 0).update([mx.nd.zeros(2)], [mx.nd.zeros(2)] * 2)
    with pytest.raises(NotImplementedError, match='CustomMetric cannot be serialized'):
        metric.get_config()


def test_custom_metric_gets_private_copies():
    def scribble(label, pred):
        label[:] = -1
        return 0.

    label = mx.nd.array([1., 2.])
    mx.metric.CustomMetric(scribble).update([label], [mx.nd.zeros((2,))])
    np.testing.assert_array_equal(label.asnumpy(), [1., 2.])


def test_np_shortcut():
    def my_metric(label, pred):
        return float(np.mean(label == pred))

    metric = mx.metric.np(my_metric)
    assert isinstance(metric, mx.metric.CustomMetric) and metric.name == 'my_metric'
    metric.update([mx.nd.array([1, 2])], [mx.nd.array([1, 3])])
    assert metric.get()[1] == 0.5
    assert mx.metric.np(my_metric, name='renamed').name == 'renamed'


def test_check_label_shapes_helper():
    labels, preds = mx.metric.check_label_shapes(mx.nd.zeros((2,)), mx.nd.zeros((2,)), wrap=True)
    assert isinstance(labels, list) and isinstance(preds, list)
    with pytest.raises(ValueError, match=r'\(2,\) does not match shape of predictions \(3,\)'):
        mx.metric.check_label_shapes(mx.nd.zeros((2,)), mx.nd.zeros((3,)), shape=True)
