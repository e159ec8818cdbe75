"""Detection operators exported with a varying batch (``dynamic=True``): box_nms,
MultiBoxDetection and MultiProposal run every batch item in one batched ONNX
NonMaxSuppression, so one exported file serves any batch size in ONNX Runtime and,
imported back, in symmod."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.onnx.export.model import to_onnx_model
from onnx_check import NEWEST, check_export, export, symmod_forward
from onnx_export_cases_graphs import MULTIBOX_CASES, NMS_CASES, VISION_CASES

_DETECTION = [c for c in MULTIBOX_CASES if c[0].startswith('MultiBoxDetection')]
# (Proposal takes one image, as in MXNet: its batch stays 1 with a warning)
_PROPOSALS = [c for c in VISION_CASES if c[0].startswith('MultiProposal')]


def _import_forward(model, feed):
    imported, args, auxs = mx.contrib.onnx.import_model(model)
    params = {k: v.asnumpy() for k, v in list(args.items()) + list(auxs.items())}
    return symmod_forward(imported, feed, params)


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
    for feed in (data, bigger):
        np.testing.assert_allclose(_import_forward(model, {'data': feed})[0],
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


def _detection_batches(inputs):
    """The SSD inputs, and a bigger batch (an item repeated with other class scores)."""
    bigger = dict(inputs)
    for name in ('cls_prob', 'loc_pred'):
        bigger[name] = np.concatenate([inputs[name], inputs[name][::-1], inputs[name][:1]])
    return inputs, bigger


@pytest.mark.parametrize('name,sym,inputs,options', _DETECTION, ids=[c[0] for c in _DETECTION])
def test_multibox_detection_batch_varies(name, sym, inputs, options):
    inputs, bigger = _detection_batches(inputs)
    one = dict(inputs, cls_prob=bigger['cls_prob'][-2:-1],
               loc_pred=bigger['loc_pred'][-2:-1])
    shapes = [('batch',) + inputs['cls_prob'].shape[1:], ('batch',) + inputs['loc_pred'].shape[1:],
              inputs['anchor'].shape]
    check_export(sym, inputs, dynamic=True, dynamic_input_shapes=shapes,
                 dynamic_inputs=[bigger, one], opsets=[12, 13, NEWEST])
    names = sym.list_inputs()
    model = to_onnx_model(sym, {}, [inputs[n].shape for n in names], [np.float32] * 3,
                          dynamic=True, dynamic_input_shapes=shapes, opset_version=NEWEST)
    for feed in (inputs, bigger):
        np.testing.assert_allclose(_import_forward(model, feed)[0],
                                   symmod_forward(sym, feed, {})[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name,sym,inputs,options', _PROPOSALS, ids=[c[0] for c in _PROPOSALS])
def test_proposals_batch_varies(name, sym, inputs, options):
    names = sym.list_inputs()
    bigger = {n: np.concatenate([inputs[n], inputs[n][::-1] * np.float32(0.9)]) for n in names}
    bigger[names[2]] = np.concatenate([inputs[names[2]], inputs[names[2]][::-1]])  # im_info
    shapes = [('batch',) + inputs[n].shape[1:] for n in names]
    check_export(sym, inputs, dynamic=True, dynamic_input_shapes=shapes,
                 dynamic_inputs=[bigger], opsets=[12, 13, NEWEST])
    model = to_onnx_model(sym, {}, [inputs[n].shape for n in names], [np.float32] * 3,
                          dynamic=True, dynamic_input_shapes=shapes, opset_version=NEWEST)
    for feed in (inputs, bigger):
        for got, expected in zip(_import_forward(model, feed), symmod_forward(sym, feed, {})):
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)


def test_multiproposal_with_a_varying_feature_map_is_refused(tmp_path):
    name, sym, inputs, options = _PROPOSALS[0]
    shapes = [('b', 8, 'h', 5), ('b', 16, 'h', 5), ('b', 3)]
    with pytest.raises(MXNetError, match=r"operator _contrib_MultiProposal\).*vary other "
                                         r"than the batch"):
        export(sym, {}, [inputs[n].shape for n in sym.list_inputs()], dynamic=True,
               dynamic_input_shapes=shapes, onnx_file_path=str(tmp_path / 'p.onnx'))
