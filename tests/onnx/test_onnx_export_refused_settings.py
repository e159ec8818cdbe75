"""Operators that export, refused for a setting whose result a graph cannot reproduce:
the error names the node, the operator and what to change."""
import pytest

import symmod as mx
from symmod.base import MXNetError
from onnx_check import export


@pytest.mark.parametrize('build', [
    lambda a, b: mx.sym.all_finite(a, init_output=False, name='check'),
    lambda a, b: mx.sym.multi_all_finite(a, b, num_arrays=2, init_output=False,
                                         name='check')])
def test_all_finite_without_init_output_is_refused(tmp_path, build):
    sym = build(mx.sym.var('a'), mx.sym.var('b'))
    shapes = [(3,)] * len(sym.list_inputs())
    with pytest.raises(MXNetError, match=r"node 'check' \(operator \w*all_finite\).*"
                                         r"init_output=False keeps the value its output"):
        export(sym, {}, shapes, onnx_file_path=str(tmp_path / 'f.onnx'))
    assert not list(tmp_path.iterdir())


def test_rroi_align_with_adaptive_sampling_is_refused(tmp_path):
    sym = mx.sym.contrib.RROIAlign(mx.sym.var('data'), mx.sym.var('rois'), pooled_size=(2, 2),
                                   spatial_scale=1.0, sampling_ratio=0, name='rotated')
    with pytest.raises(MXNetError, match=r"node 'rotated' \(operator _contrib_RROIAlign\).*"
                                         r"sampling_ratio <= 0 takes ceil"):
        export(sym, {}, [(1, 2, 5, 5), (3, 6)], onnx_file_path=str(tmp_path / 'r.onnx'))
    assert not list(tmp_path.iterdir())


def test_box_nms_within_classes_is_refused(tmp_path):
    sym = mx.sym.contrib.box_nms(mx.sym.var('data'), id_index=0, name='nms')
    with pytest.raises(MXNetError, match=r"node 'nms' \(operator _contrib_box_nms\).*"
                                         r"suppression within each class"):
        export(sym, {}, [(1, 5, 6)], onnx_file_path=str(tmp_path / 'n.onnx'))
    assert not list(tmp_path.iterdir())
