"""Detection operators exported with a varying batch (``dynamic=True``): box_nms runs
every batch item in one batched ONNX NonMaxSuppression, so one exported file serves any
batch size in ONNX Runtime and, imported back, in symmod."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.onnx.export.model import to_onnx_model
from onnx_check import NEWEST, check_export, export, symmod_forward
from onnx_export_cases_graphs import NMS_CASES


def _batched(data):
    """``data`` with a leading batch axis, and a bigger batch (an item changed a little
    plus a copy of the first)."""
    if data.ndim == 2:
        data = data[None]
    other = data[-1:] * np.float32(0.9) + np.float32(0.05)
    return data, np.concatenate([data, other, data[:1]], axis=0)


@pytest.mark.parametrize('name,sym,inputs,options', NMS_CASES, ids=[c[0] for c in NMS_CASES])
def test_box_nms_batch_varies_in_onnx_runtime(name, sym, inputs, options):
    data, bigger = _batched(inputs['data'])
    check_export(sym, {'data': data}, dynamic=True,
                 dynamic_input_shapes=[('batch',) + data.shape[1:]],
                 dynamic_inputs=[{'data': bigger}, {'data': data[:1]}],
                 opsets=[12, 13, NEWEST])


@pytest.mark.parametrize('name,sym,inputs,options', NMS_CASES, ids=[c[0] for c in NMS_CASES])
def test_box_nms_with_varying_batch_imports_back(name, sym, inputs, options):
    data, bigger = _batched(inputs['data'])
    model = to_onnx_model(sym, {}, [data.shape], [np.float32], dynamic=True,
                          dynamic_input_shapes=[('batch',) + data.shape[1:]],
                          opset_version=NEWEST)
    assert 'Range' in {n.op_type for n in model.graph.node}
    imported, args, auxs = mx.contrib.onnx.import_model(model)
    params = {k: v.asnumpy() for k, v in list(args.items()) + list(auxs.items())}
    for feed in (data, bigger):
        np.testing.assert_allclose(symmod_forward(imported, {'data': feed}, params)[0],
                                   symmod_forward(sym, {'data': feed}, {})[0],
                                   rtol=1e-6, atol=1e-6)


def test_box_nms_two_varying_batch_axes():
    sym = mx.sym.contrib.box_nms(mx.sym.var('data'), overlap_thresh=0.4, topk=5,
                                 valid_thresh=0.2)
    rows = NMS_CASES[1][2]['data']                     # (3, 15, 6)
    data = np.stack([rows[:2], rows[1:]])             # (2, 2, 15, 6)
    check_export(sym, {'data': data}, dynamic=True,
                 dynamic_input_shapes=[('a', 'b', 15, 6)],
                 dynamic_inputs=[{'data': rows[None]}, {'data': np.stack([rows] * 3)}],
                 opsets=[12, NEWEST])


def test_box_nms_with_a_varying_number_of_boxes_is_refused(tmp_path):
    sym = mx.sym.contrib.box_nms(mx.sym.var('data'), name='nms')
    with pytest.raises(MXNetError, match=r"node 'nms' \(operator _contrib_box_nms\).*"
                                         r"number of boxes or a row width that varies"):
        export(sym, {}, [(2, 10, 6)], dynamic=True, dynamic_input_shapes=[('b', 'n', 6)],
               onnx_file_path=str(tmp_path / 'nms.onnx'))
