"""ONNX pooling with pads no MXNet convention gives (asymmetric, begin above end) imports
as explicit padding plus 'valid' windows, and predicts like ONNX Runtime."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import symmod as mx
from onnx_check import session, symmod_forward


def _model(op_type, pads, **attrs):
    node = helper.make_node(op_type, ['x'], ['y'], kernel_shape=[3, 2], strides=[2, 3],
                            pads=pads, **attrs)
    graph = helper.make_graph([node], 'pool', [helper.make_tensor_value_info(
        'x', TensorProto.FLOAT, [2, 3, 9, 10])], [helper.make_tensor_value_info(
            'y', TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])


@pytest.mark.parametrize('op_type,attrs', [('MaxPool', {}),
                                           ('AveragePool', {'count_include_pad': 0}),
                                           ('AveragePool', {'count_include_pad': 1}),
                                           ('LpPool', {'p': 2})])
@pytest.mark.parametrize('pads', [[2, 0, 0, 1], [0, 1, 2, 0]])
def test_pads_of_no_mxnet_convention(op_type, attrs, pads):
    model = _model(op_type, pads, **attrs)
    x = np.random.RandomState(2).uniform(-3, 1, (2, 3, 9, 10)).astype(np.float32)
    expected = session(model).run(None, {'x': x})[0]
    sym, args, auxs = mx.contrib.onnx.import_model(model)
    got = symmod_forward(sym, {'x': x}, {})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
