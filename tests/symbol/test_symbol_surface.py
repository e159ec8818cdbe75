"""Symbol behaviours of MXNet 1.9.1: get_children, shapes given to infer_shape overriding
__shape__, NumPy-shape semantics in partial inference and JSON, NDArray-only methods,
_gen_atomic_symbol, numpy integers in parameters, abs(), and bind-time gradient rules
(zero propagation through stop_gradient, non-differentiable operators)."""
import json
import re

import numpy as np
import pytest

import symmod as mx
from symmod.base import NotImplementedForSymbol


def test_get_children_lists_each_node_once():
    data = mx.sym.var('data')
    sliced = mx.sym.SliceChannel(data, num_outputs=3, name='slice')
    assert sliced.get_children().list_outputs() == ['data']
    concat = mx.sym.Concat(*list(sliced))
    assert concat.get_children().list_outputs() == ['slice_output0', 'slice_output1',
                                                    'slice_output2']
    fc = mx.sym.FullyConnected(data, num_hidden=3, name='fc')
    assert fc.get_children().get_children() is None


def test_given_shapes_override_the_shape_attribute():
    a = mx.sym.var('a', shape=(2, 3))
    c = mx.sym.elemwise_add(a, mx.sym.var('b'))
    assert c.infer_shape()[0] == [(2, 3), (2, 3)]
    assert c.infer_shape(a=(5, 6))[0] == [(5, 6), (5, 6)]


def test_np_shape_partial_inference_and_json():
    w = mx.sym.var('w', shape=(3, 0))
    fc = mx.sym.FullyConnected(mx.sym.var('d'), w, num_hidden=3)
    assert fc.infer_shape_partial()[0] == [(), (3, 0), ()]
    assert 'is_np_shape' not in json.loads(fc.tojson())['attrs']
    with mx.np_shape(True):
        args, outs, _ = fc.infer_shape_partial()
        assert args == [None, (3, -1), None] and outs == [None]
        assert json.loads(fc.tojson())['attrs']['is_np_shape'] == ['int', 1]
        minus = mx.sym.var('m', shape=(2, -1))
        assert (minus + mx.sym.var('n')).infer_shape(n=(2, 5))[0] == [(2, 5), (2, 5)]
        loaded = mx.sym.load_json(fc.tojson())
        assert loaded.infer_shape(d=(4, 7))[0][1] == (3, 7)


def test_ndarray_only_methods_raise_not_implemented_for_symbol():
    s = mx.sym.var('s')
    for method in ('asnumpy', 'asscalar', 'copy', 'as_in_context', 'detach', 'backward',
                   'wait_to_read'):
        with pytest.raises(NotImplementedForSymbol, match=method):
            getattr(s, method)()
    with pytest.raises(mx.MXNetError, match='not implemented'):
        s.gradient(['s'])
    with pytest.raises(mx.MXNetError, match='subgraph backend'):
        s.optimize_for('MKLDNN')
    assert isinstance(s.handle, tuple)


def test_gen_atomic_symbol_keeps_operator_and_attributes():
    s = mx.sym.RNN(mx.sym.var('data'), mx.sym.var('p'), mx.sym.var('h0'), mx.sym.var('h1'),
                   state_size=10, num_layers=2, bidirectional=True, state_outputs=True,
                   mode='lstm', name='rnn')
    atom = s._gen_atomic_symbol()
    assert atom.list_arguments() == ['data', 'parameters', 'state', 'state_cell']
    assert atom.list_outputs() == s.list_outputs()
    assert atom.attr('state_size') == '10'
    with pytest.raises(mx.MXNetError, match='one operator'):
        mx.sym.var('x')._gen_atomic_symbol()


def test_numpy_integers_in_parameters_and_abs():
    axes = tuple(np.random.permutation(3))
    t = mx.sym.transpose(mx.sym.var('a'), axes=axes)
    assert t.attr('axes') == str(tuple(int(a) for a in axes))
    out = abs(mx.sym.var('x')).eval(x=mx.nd.array([-2.0, 3.0]))[0]
    assert out.asnumpy().tolist() == [2, 3]


def test_stop_gradient_runs_no_backward_and_writes_zero_gradients():
    data = mx.sym.var('data')
    net = data
    for _ in range(4):
        net = net * net
    total = lambda e: int(re.search(r'Total (\d+) MB allocated', e.debug_str()).group(1))  # noqa
    full = net.simple_bind(mx.cpu(), data=(64, 256, 256))
    frozen = mx.sym.stop_gradient(net).simple_bind(mx.cpu(), data=(64, 256, 256))
    null = net.simple_bind(mx.cpu(), data=(64, 256, 256), grad_req='null')
    assert total(full) > total(frozen) == total(null)
    frozen.grad_dict['data'][:] = 3
    frozen.forward(is_train=True)
    frozen.backward()                        # no head gradient needed: nothing flows
    assert (frozen.grad_dict['data'].asnumpy() == 0).all()


def test_non_differentiable_operator_refuses_a_gradient_at_bind():
    x, idx = mx.sym.var('x'), mx.sym.var('idx')
    taken = mx.sym.batch_take(x, idx)
    kwargs = dict(x=(4, 3), idx=(4,), type_dict={'x': np.float32, 'idx': np.int32})
    with pytest.raises(mx.MXNetError, match='non-differentiable'):
        taken.simple_bind(mx.cpu(), **kwargs)
    exe = mx.sym.stop_gradient(taken).simple_bind(mx.cpu(), **kwargs)
    exe.forward()
    exe.backward()
