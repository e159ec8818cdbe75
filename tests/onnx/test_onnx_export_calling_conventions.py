"""How MXNet's own ONNX tests call export_model, which symmod must accept the same way:
a HybridBlock without parameters exported to files (an empty params file), every input
given a shape stays a graph input (an output layer's label too, unless it is named
``<last node>_label``), and parameters fed at run time."""
import logging

import numpy as np
import onnx

import symmod as mx
from onnx_check import session


class _Head(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x, y):
        return F.SoftmaxOutput(x, y)


def test_parameterless_block_from_files_keeps_the_unread_label_input(tmp_path, caplog):
    net = _Head()
    net.initialize()
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).rand(4, 5).astype(np.float32))
    y = mx.nd.zeros((4,))
    expected = net(x, y).asnumpy()
    net.export(str(tmp_path / 'head'), epoch=0)
    with caplog.at_level(logging.WARNING):
        path = mx.onnx.export_model(str(tmp_path / 'head-symbol.json'),
                                    str(tmp_path / 'head-0000.params'),
                                    [(4, 5), (4,)], [np.float32, np.float32],
                                    str(tmp_path / 'head.onnx'))
    assert "is empty" in caplog.text                      # MXNet's warning, then no params
    model = onnx.load(path)
    assert [i.name for i in model.graph.input] == ['data0', 'data1']
    got = session(model).run(None, {'data0': x.asnumpy(), 'data1': y.asnumpy()})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_the_label_named_after_the_last_node_is_left_out(tmp_path):
    sym = mx.sym.SoftmaxOutput(mx.sym.var('data'), name='softmax')   # softmax_label
    model = onnx.load(mx.onnx.export_model(sym, {}, [(2, 3)], np.float32,
                                           str(tmp_path / 'm.onnx')))
    assert [i.name for i in model.graph.input] == ['data']
