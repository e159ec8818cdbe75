"""ONNX If, Scan and Loop written by another tool (the onnx helper API) import as symmod's
_cond, _foreach and _while_loop and predict like ONNX Runtime; the bodies read outer
tensors, outer initializers and constants of their own."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from test_onnx_import import _compare_with_runtime, _model, _value

F = TensorProto.FLOAT


def _const(name, value):
    return helper.make_node('Constant', [], [name],
                            value=numpy_helper.from_array(np.asarray(value, np.float32), name))


def _if_model():
    then_branch = helper.make_graph(
        [helper.make_node('Mul', ['x', 'scale'], ['then_y'])], 'then', [],
        [_value('then_y', [3])])
    else_branch = helper.make_graph(
        [_const('shift', [1.0, 2.0, 3.0]), helper.make_node('Sub', ['x', 'shift'], ['d']),
         helper.make_node('Mul', ['d', 'd'], ['else_y'])], 'else', [],
        [_value('else_y', [3])])
    nodes = [helper.make_node('ReduceSum', ['x'], ['total'], keepdims=1),
             helper.make_node('Greater', ['total', 'zero'], ['positive']),
             helper.make_node('If', ['positive'], ['y'], then_branch=then_branch,
                              else_branch=else_branch),
             helper.make_node('Add', ['y', 'x'], ['out'])]
    return _model(nodes, [_value('x', [3])], [_value('out', [3])],
                  {'scale': np.array([2, -1, 0.5], np.float32),
                   'zero': np.zeros(1, np.float32)})


def test_if_takes_the_branch_onnx_runtime_takes():
    model = _if_model()
    for x in ([1, 2, 0.5], [-1, -2, 0.5]):
        _compare_with_runtime(model, {'x': np.array(x, np.float32)})


def _scan_model():
    body = helper.make_graph(
        [helper.make_node('Add', ['s_in', 'x_t'], ['s_out']),
         helper.make_node('Mul', ['s_out', 'w'], ['y_t'])], 'body',
        [_value('s_in', [2]), _value('x_t', [2])], [_value('s_out', [2]), _value('y_t', [2])])
    nodes = [helper.make_node('Scan', ['s0', 'xs'], ['s_final', 'ys'], body=body,
                              num_scan_inputs=1)]
    return _model(nodes, [_value('s0', [2]), _value('xs', [4, 2])],
                  [_value('s_final', [2]), _value('ys', [4, 2])],
                  {'w': np.array([0.5, -3], np.float32)})


def test_scan_carries_its_state_and_stacks_its_outputs():
    rng = np.random.RandomState(4)
    _compare_with_runtime(_scan_model(), {'s0': rng.randn(2).astype(np.float32),
                                          'xs': rng.randn(4, 2).astype(np.float32)})


def _loop_model(early_exit, stacks):
    """v <- v * 0.5 + x for at most 4 steps (while sum(v) < 3 with ``early_exit``),
    stacking 2 v per step when ``stacks``."""
    nodes = [helper.make_node('Mul', ['v_in', 'half'], ['scaled']),
             helper.make_node('Add', ['scaled', 'x'], ['v_out'])]
    outputs = [_value('cond_out', [], TensorProto.BOOL), _value('v_out', [3])]
    if early_exit:
        nodes += [helper.make_node('ReduceSum', ['v_out'], ['total'], keepdims=0),
                  helper.make_node('Less', ['total', 'limit'], ['cond_out'])]
    else:
        nodes.append(helper.make_node('Identity', ['cond_in'], ['cond_out']))
    if stacks:
        nodes.append(helper.make_node('Mul', ['v_out', 'two'], ['y']))
        outputs.append(_value('y', [3]))
    body = helper.make_graph(nodes, 'body', [_value('i', [], TensorProto.INT64),
                                             _value('cond_in', [], TensorProto.BOOL),
                                             _value('v_in', [3])], outputs)
    loop_outputs = ['v_final'] + (['ys'] if stacks else [])
    graph_outputs = [_value('v_final', [3])] + ([_value('ys', [None, 3])] if stacks else [])
    return _model([helper.make_node('Loop', ['trips', '', 'v0'], loop_outputs, body=body)],
                  [_value('x', [3]), _value('v0', [3])], graph_outputs,
                  {'trips': np.array(4, np.int64), 'half': np.float32(0.5),
                   'two': np.float32(2), 'limit': np.float32(3)})


def test_loop_with_a_fixed_trip_count_stacks_every_step():
    rng = np.random.RandomState(5)
    _compare_with_runtime(_loop_model(early_exit=False, stacks=True),
                          {'x': rng.rand(3).astype(np.float32),
                           'v0': rng.rand(3).astype(np.float32)})


def test_loop_that_stops_on_its_condition_keeps_its_final_variables():
    for start in (0.0, 0.6, 2.0):       # stops after several steps, a few, the first
        _compare_with_runtime(_loop_model(early_exit=True, stacks=False),
                              {'x': np.array([0.5, 0.2, 0.1], np.float32),
                               'v0': np.full(3, start, np.float32)})


def test_loop_that_may_stop_early_stacks_zero_rows_past_the_stop():
    from onnx_check import session
    from test_onnx_import import imported_forward
    model = _loop_model(early_exit=True, stacks=True)
    lengths = []
    for start in (0.0, 2.0):            # runs all 4 steps; stops after the first
        feed = {'x': np.array([0.5, 0.2, 0.1], np.float32), 'v0': np.full(3, start, np.float32)}
        v_final, ys = session(model).run(None, feed)
        got_v, got_ys = imported_forward(model, feed)
        lengths.append(len(ys))
        np.testing.assert_allclose(got_v, v_final, rtol=1e-6)
        assert got_ys.shape == (4, 3)
        np.testing.assert_allclose(got_ys[:len(ys)], ys, rtol=1e-6)
        assert (got_ys[len(ys):] == 0).all()
    assert lengths == [4, 1]


def test_loop_that_may_stop_early_with_its_stacked_length_read_is_refused():
    import symmod as mx
    from symmod.base import MXNetError
    model = _loop_model(early_exit=True, stacks=True)
    model.graph.node.append(helper.make_node('Shape', ['ys'], ['rows']))
    model.graph.output.append(_value('rows', [2], TensorProto.INT64))
    with pytest.raises(MXNetError, match=r"\(Loop\): it may stop before its trip count while "
                                         r"stacking step outputs, and their length is read "
                                         r"\(Shape\)"):
        mx.contrib.onnx.import_model(model)


def _counting_loop_model():
    """v <- v + i * x for 5 steps, stacking i * 2 + v (i: the iteration number, int64)."""
    body = helper.make_graph(
        [helper.make_node('Cast', ['i'], ['i_f'], to=TensorProto.FLOAT),
         helper.make_node('Mul', ['i_f', 'x'], ['ix']),
         helper.make_node('Add', ['v_in', 'ix'], ['v_out']),
         helper.make_node('Mul', ['i', 'two'], ['i2']),
         helper.make_node('Cast', ['i2'], ['i2_f'], to=TensorProto.FLOAT),
         helper.make_node('Add', ['i2_f', 'v_out'], ['y']),
         helper.make_node('Identity', ['cond_in'], ['cond_out'])], 'body',
        [_value('i', [], TensorProto.INT64), _value('cond_in', [], TensorProto.BOOL),
         _value('v_in', [3])],
        [_value('cond_out', [], TensorProto.BOOL), _value('v_out', [3]), _value('y', [3])])
    return _model([helper.make_node('Loop', ['trips', '', 'v0'], ['v_final', 'ys'], body=body)],
                  [_value('x', [3]), _value('v0', [3])],
                  [_value('v_final', [3]), _value('ys', [5, 3])],
                  {'trips': np.array(5, np.int64), 'two': np.array(2, np.int64)})


def test_loop_body_reading_the_iteration_number():
    rng = np.random.RandomState(6)
    _compare_with_runtime(_counting_loop_model(), {'x': rng.rand(3).astype(np.float32),
                                                   'v0': rng.rand(3).astype(np.float32)})
