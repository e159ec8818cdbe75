"""Symbol construction, naming, composition, attributes, listing and inference,
checked against MXNet 1.9.1's behaviour."""
import copy
import json
import warnings

import numpy as np
import pytest

import symmod as mx


@pytest.fixture(autouse=True)
def _fresh_names():
    with mx.name.NameManager():
        yield


def _mlp():
    data = mx.sym.var('data')
    fc1 = mx.sym.FullyConnected(data, num_hidden=8, name='fc1')
    act = mx.sym.Activation(fc1, act_type='relu', name='relu1')
    fc2 = mx.sym.FullyConnected(act, num_hidden=3, name='fc2')
    return mx.sym.SoftmaxOutput(fc2, name='softmax')


def test_implicit_variables_and_listing():
    net = _mlp()
    assert net.list_arguments() == ['data', 'fc1_weight', 'fc1_bias', 'fc2_weight',
                                    'fc2_bias', 'softmax_label']
    assert net.list_outputs() == ['softmax_output']
    assert net.list_auxiliary_states() == []
    assert net.list_inputs() == net.list_arguments()
    assert net.name == 'softmax'
    assert repr(net) == '<Symbol softmax>'
    # implicit variables copy the operator's attributes, as MXNet does
    assert net.get_internals()['fc1_weight'].list_attr() == {'num_hidden': '8'}


def test_automatic_names_count_per_function_name():
    data = mx.sym.var('data')
    a = mx.sym.FullyConnected(data, num_hidden=2)
    b = mx.sym.FullyConnected(data, num_hidden=2)
    c = mx.sym.Activation(a, act_type='tanh')
    assert (a.name, b.name, c.name) == ('fullyconnected0', 'fullyconnected1', 'activation0')
    assert a.list_arguments() == ['data', 'fullyconnected0_weight', 'fullyconnected0_bias']


def test_arithmetic_names_like_mxnet():
    d = mx.sym.var('d')
    names = [(d + 1).name, (d * d).name, (-d).name, (d - 1).name, (2 - d).name, (d ** 2).name,
             (d / d).name, (1 / d).name, (d + d).name, (d - d).name]
    assert names == ['_plusscalar0', '_mul0', '_mulscalar0', '_minusscalar0',
                     '_rminusscalar0', '_powerscalar0', '_div0', '_rdivscalar0', '_plus0',
                     '_minus0']
    assert (d + d).get_internals()[1].list_outputs() == ['_plus1_output']


def test_symbol_arithmetic_evaluates():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    expr = (a * 2 + b) / (b - 0.5) - a ** 2 + 3 ** a - (1 - b)
    x = np.array([0.5, 1.5, 2.0], dtype=np.float32)
    y = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    out = expr.eval(a=mx.nd.array(x), b=mx.nd.array(y))[0].asnumpy()
    np.testing.assert_allclose(out, (x * 2 + y) / (y - 0.5) - x ** 2 + 3 ** x - (1 - y),
                               rtol=1e-5)
    cmp = (a > b).eval(a=mx.nd.array(x), b=mx.nd.array(y))[0].asnumpy()
    np.testing.assert_array_equal(cmp, (x > y).astype(np.float32))


def test_prefix_and_attr_scope():
    data = mx.sym.var('data')
    with mx.name.Prefix('net_'):
        fc = mx.sym.FullyConnected(data, num_hidden=4, name='fc1')
        auto = mx.sym.Activation(fc, act_type='relu')
    assert fc.list_arguments() == ['data', 'net_fc1_weight', 'net_fc1_bias']
    assert auto.name == 'net_activation0'
    with mx.AttrScope(ctx_group='dev1', lr_mult='0.5'):
        scoped = mx.sym.FullyConnected(data, num_hidden=4, name='fc2')
        v = mx.sym.var('v')
    assert scoped.attr('ctx_group') == 'dev1' and scoped.attr('lr_mult') == '0.5'
    assert scoped.list_attr()['__lr_mult__'] == '0.5'
    assert v.attr_dict() == {'v': {'__ctx_group__': 'dev1', 'ctx_group': 'dev1',
                                   '__lr_mult__': '0.5', 'lr_mult': '0.5'}}
    with pytest.raises(ValueError, match='string'):
        mx.AttrScope(x=1)


def test_variable_hidden_attributes():
    w = mx.sym.var('w', shape=(2, 3), lr_mult=2.0, wd_mult=0, dtype='float16', init='zeros',
                   __custom__='yes')
    assert w.list_attr() == {'__shape__': '(2, 3)', '__lr_mult__': '2.0', 'lr_mult': '2.0',
                             '__wd_mult__': '0', 'wd_mult': '0', '__dtype__': '2',
                             '__init__': 'zeros', '__custom__': 'yes'}
    with pytest.raises(ValueError, match='double underscores'):
        mx.sym.var('w', custom='x')
    with pytest.raises(TypeError):
        mx.sym.var(3)
    assert mx.sym.Variable is mx.sym.var


def test_operators_without_parameters_ignore_unknown_keywords():
    # MXNet 1.9.1: operators registered without a parameter parser accept any keyword,
    # ignore it when computing and keep it as a node attribute ({'axis': '1'} in its JSON)
    a = mx.nd.array([[1, 5], [3, 2]])
    b = mx.nd.array([[2, 4], [1, 6]])
    assert mx.nd.broadcast_maximum(a, b, axis=1).asnumpy().tolist() == [[2, 5], [3, 6]]
    assert mx.nd.relu(a - 2, foo=1).asnumpy().tolist() == [[0, 3], [1, 0]]
    sym = mx.sym.broadcast_maximum(mx.sym.var('a'), mx.sym.var('b'), axis=1)
    assert sym.list_attr() == {'axis': '1'}
    node = json.loads(sym.tojson())['nodes'][2]
    assert node['attrs'] == {'axis': '1'}
    again = mx.sym.load_json(sym.tojson())
    out = again.eval(a=a, b=b)[0]
    assert out.asnumpy().tolist() == [[2, 5], [3, 6]]
    with pytest.raises(mx.MXNetError, match="Cannot find argument 'foo'"):
        mx.nd.sum(a, foo=1)


def test_deprecated_and_unknown_arguments_raise():
    data = mx.sym.var('data')
    with pytest.raises(mx.MXNetError, match='weight_lr_mult is deprecated'):
        mx.sym.FullyConnected(data, num_hidden=2, weight_lr_mult=2)
    with pytest.raises(mx.MXNetError, match="Cannot find argument 'foo'"):
        mx.sym.FullyConnected(data, num_hidden=2, foo=1)
    with pytest.raises(mx.MXNetError, match='foo not found'):
        mx.sym.FullyConnected(data, num_hidden=2, foo=mx.sym.var('y'))
    with pytest.raises(mx.MXNetError, match='num_hidden'):
        mx.sym.FullyConnected(data)
    with pytest.raises(mx.MXNetError):
        mx.sym.Activation(data, act_type='nope')


def test_keyword_inputs_and_no_bias():
    data = mx.sym.var('data')
    w = mx.sym.var('my_w')
    fc = mx.sym.FullyConnected(data=data, weight=w, no_bias=True, num_hidden=3, name='fc')
    assert fc.list_arguments() == ['data', 'my_w']


def test_getitem_group_internals_children():
    net = _mlp()
    internals = net.get_internals()
    assert internals.list_outputs() == [
        'data', 'fc1_weight', 'fc1_bias', 'fc1_output', 'relu1_output', 'fc2_weight',
        'fc2_bias', 'fc2_output', 'softmax_label', 'softmax_output']
    fc2 = internals['fc2_output']
    assert fc2.name == 'fc2'
    assert internals[3].list_outputs() == ['fc1_output']
    assert internals[-1].name == 'softmax'
    assert len(internals[2:4]) == 2
    with pytest.raises(ValueError, match='Cannot find output'):
        internals['nope']
    with pytest.raises(IndexError):
        internals[99]
    assert fc2.get_children().list_outputs() == ['relu1_output', 'fc2_weight', 'fc2_bias']
    assert mx.sym.var('x').get_children() is None
    group = mx.sym.Group([net, fc2])
    assert group.list_outputs() == ['softmax_output', 'fc2_output']
    assert group.name is None and len(group) == 2
    assert [s.name for s in group] == ['softmax', 'fc2']
    with pytest.raises(TypeError):
        mx.sym.Group([net, 3])


def test_multi_output_and_hidden_outputs():
    data = mx.sym.var('data')
    parts = mx.sym.SliceChannel(data, num_outputs=3, name='sc')
    assert parts.list_outputs() == ['sc_output0', 'sc_output1', 'sc_output2']
    bn = mx.sym.BatchNorm(data, name='bn')
    assert bn.list_outputs() == ['bn_output']
    assert bn.list_auxiliary_states() == ['bn_moving_mean', 'bn_moving_var']
    assert bn.list_arguments() == ['data', 'bn_gamma', 'bn_beta']
    assert mx.sym.BatchNorm(data, output_mean_var=True, name='bn2').list_outputs() == \
        ['bn2_output', 'bn2_mean', 'bn2_var']
    assert bn.attr_dict()['bn_moving_var']['__init__'] == '["one", {}]'


def test_composition_replaces_variables():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc1')
    x = mx.sym.Activation(mx.sym.var('x'), act_type='tanh', name='pre')
    composed = net(data=x)
    assert composed.list_arguments() == ['x', 'fc1_weight', 'fc1_bias']
    assert net.list_arguments() == ['data', 'fc1_weight', 'fc1_bias']    # untouched
    positional = net(x, name='fc_new')
    assert positional.name == 'fc_new'
    with pytest.raises(mx.MXNetError, match='not found'):
        net(nope=x)


def test_copy_is_independent():
    net = _mlp()
    clone = copy.deepcopy(net)
    clone._set_attr(__mark__='1')
    assert net.attr('__mark__') is None and clone.attr('__mark__') == '1'
    assert clone.tojson().replace(', \n        "__mark__": "1"', '') != '' 
    assert copy.copy(net).list_arguments() == net.list_arguments()


def test_set_attr_rules():
    net = _mlp()
    net._set_attr(lr_mult='0.1')
    assert net.attr('lr_mult') == '0.1' and net.list_attr()['__lr_mult__'] == '0.1'
    with pytest.raises(ValueError):
        net._set_attr(foo=1)
    with pytest.raises(mx.MXNetError, match='non-grouped'):
        mx.sym.Group([net, mx.sym.var('other')])._set_attr(a='b')


def test_infer_shape_both_directions_and_partial():
    net = _mlp()
    args, outs, auxs = net.infer_shape(data=(5, 4))
    assert args == [(5, 4), (8, 4), (8,), (3, 8), (3,), (5,)]
    assert outs == [(5, 3)] and auxs == []
    # positional form
    assert net.infer_shape((5, 4))[1] == [(5, 3)]
    # backwards: the weight fixes the hidden size only; data stays unknown
    fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc1')
    assert fc.infer_shape_partial(fc1_weight=(10, 5)) == ([(), (10, 5), ()], [()], [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert fc.infer_shape(fc1_weight=(10, 5)) == (None, None, None)
    assert 'Cannot decide shape' in str(caught[0].message)
    # the label shape is inferred from the data through SoftmaxOutput
    assert net.infer_shape(data=(7, 4))[0][-1] == (7,)


def test_infer_shape_error_names_node_and_shapes():
    fc = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc1')
    with pytest.raises(mx.MXNetError) as info:
        fc.infer_shape(data=(4, 6), fc1_weight=(10, 5))
    message = str(info.value)
    assert 'fc1' in message and '(10, 5)' in message and '(10, 6)' in message
    with pytest.raises(mx.MXNetError, match='nope not found'):
        fc.infer_shape(nope=(1,))


def test_variable_shape_attribute_is_used():
    data = mx.sym.var('data', shape=(2, 7))
    fc = mx.sym.FullyConnected(data, num_hidden=3)
    assert fc.infer_shape()[1] == [(2, 3)]


def test_infer_type():
    net = _mlp()
    args, outs, auxs = net.infer_type(data='float64')
    assert args == [np.float64] * 6 and outs == [np.float64]
    with warnings.catch_warnings(record=True):
        warnings.simplefilter('always')
        assert net.infer_type() == (None, None, None)
    w16 = mx.sym.var('w', dtype='float16')
    assert (w16 * 2).infer_type()[1] == [np.float16]


def test_truth_value_is_an_error():
    with pytest.raises(mx.MXNetError, match='not implemented for Symbol'):
        bool(mx.sym.var('x'))


def test_debug_str_lists_nodes():
    text = _mlp().debug_str()
    assert 'Op:FullyConnected, Name=fc1' in text and 'Variable:data' in text


def test_module_level_helpers():
    a = mx.sym.var('a')
    x = mx.nd.array([0.0, 2.0, 5.0])
    np.testing.assert_array_equal(mx.sym.maximum(a, 1).eval(a=x)[0].asnumpy(), [1, 2, 5])
    np.testing.assert_array_equal(mx.sym.minimum(3, a).eval(a=x)[0].asnumpy(), [0, 2, 3])
    np.testing.assert_array_equal(mx.sym.maximum(a, a * 2).eval(a=x)[0].asnumpy(), [0, 4, 10])
    assert mx.sym.maximum(3, 4) == 4 and mx.sym.minimum(3, 4) == 3
    np.testing.assert_array_equal(mx.sym.pow(a, 2).eval(a=x)[0].asnumpy(), [0, 4, 25])
    np.testing.assert_array_equal(mx.sym.pow(2, a).eval(a=x)[0].asnumpy(), [1, 4, 32])
    assert mx.sym.pow(2, 3) == 8
    zeros = mx.sym.zeros((2, 3))
    assert zeros.eval()[0].shape == (2, 3) and not zeros.eval()[0].asnumpy().any()
    np.testing.assert_array_equal(mx.sym.ones((2,)).eval()[0].asnumpy(), [1, 1])
    np.testing.assert_array_equal(mx.sym.full((2,), 7).eval()[0].asnumpy(), [7, 7])
    np.testing.assert_array_equal(mx.sym.arange(0, 3).eval()[0].asnumpy(), [0, 1, 2])
    assert mx.sym.zeros((2,), dtype='float64').eval()[0].dtype == np.float64


def test_shape_attribute_is_a_hint_that_given_shapes_override():
    data = mx.sym.Variable('data', shape=(1, 3, 10, 10))
    conv = mx.sym.Convolution(data, kernel=(2, 2), num_filter=1)
    assert conv.infer_shape()[1] == [(1, 1, 9, 9)]
    assert conv.infer_shape(data=(1, 3, 10, 14))[1] == [(1, 1, 9, 13)]
