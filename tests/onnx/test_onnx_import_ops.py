"""Importing single ONNX operators written with the onnx helper API (as other tools write
them), each checked against ONNX Runtime on the same model."""
import numpy as np
import pytest
from onnx import TensorProto, helper

import symmod as mx
from symmod.base import MXNetError
from test_onnx_import import _compare_with_runtime, _model, _value

RNG = np.random.RandomState(7)


@pytest.mark.parametrize('reverse,exclusive', [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumsum(reverse, exclusive):
    nodes = [helper.make_node('CumSum', ['x', 'axis'], ['y'], reverse=reverse,
                              exclusive=exclusive)]
    model = _model(nodes, [_value('x', [3, 4])], [_value('y', [3, 4])],
                   {'axis': np.array(1, np.int64)})
    _compare_with_runtime(model, {'x': RNG.randn(3, 4).astype(np.float32)})


def _roi_align_model(mode, ratio, opset):
    attrs = dict(output_height=2, output_width=3, sampling_ratio=ratio, spatial_scale=0.5)
    if mode is not None:
        attrs['coordinate_transformation_mode'] = mode
    nodes = [helper.make_node('RoiAlign', ['x', 'rois', 'index'], ['y'], **attrs)]
    return _model(nodes, [_value('x', [2, 3, 8, 9]), _value('rois', [4, 4]),
                          _value('index', [4], 7)], [_value('y', [4, 3, 2, 3])], {},
                  opset=opset)


@pytest.mark.parametrize('mode,ratio,opset', [(None, 2, 13), (None, 0, 16),
                                              ('output_half_pixel', 0, 16),
                                              ('half_pixel', 2, 16)])
def test_roi_align(mode, ratio, opset):
    # the last box has zero width: its aligned adaptive grid is empty (ONNX gives 0)
    rois = np.array([[0, 0, 8, 6], [2, 2, 14, 12], [4, 6, 6, 16], [6, 2, 6, 10]], np.float32)
    feed = {'x': RNG.randn(2, 3, 8, 9).astype(np.float32), 'rois': rois,
            'index': np.array([0, 1, 1, 0], np.int64)}
    _compare_with_runtime(_roi_align_model(mode, ratio, opset), feed)


def test_max_roi_pool():
    nodes = [helper.make_node('MaxRoiPool', ['x', 'rois'], ['y'], pooled_shape=[2, 2],
                              spatial_scale=0.25)]
    model = _model(nodes, [_value('x', [2, 3, 8, 8]), _value('rois', [3, 5])],
                   [_value('y', [3, 3, 2, 2])], {})
    rois = np.array([[0, 0, 0, 31, 31], [1, 4, 8, 20, 28], [1, 0, 0, 3, 3]], np.float32)
    _compare_with_runtime(model, {'x': RNG.randn(2, 3, 8, 8).astype(np.float32),
                                  'rois': rois})


def test_grid_sample_corners_aligned_zero_padding():
    nodes = [helper.make_node('GridSample', ['x', 'grid'], ['y'], align_corners=1)]
    model = _model(nodes, [_value('x', [1, 2, 5, 4]), _value('grid', [1, 3, 3, 2])],
                   [_value('y', [1, 2, 3, 3])], {}, opset=16)
    feed = {'x': RNG.randn(1, 2, 5, 4).astype(np.float32),
            'grid': RNG.uniform(-1.2, 1.2, (1, 3, 3, 2)).astype(np.float32)}
    _compare_with_runtime(model, feed)


def test_grid_sample_other_conventions_are_refused():
    nodes = [helper.make_node('GridSample', ['x', 'grid'], ['y'], name='gs')]
    model = _model(nodes, [_value('x', [1, 2, 5, 4]), _value('grid', [1, 3, 3, 2])],
                   [_value('y', [1, 2, 3, 3])], {}, opset=16)
    with pytest.raises(MXNetError, match=r"node 'gs' \(GridSample\): mode=bilinear, "
                                         r"padding_mode=zeros, align_corners=0"):
        mx.contrib.onnx.import_model(model)


@pytest.mark.parametrize('elem', [TensorProto.FLOAT, TensorProto.INT32])
def test_mod_fmod_takes_the_dividends_sign(elem):
    nodes = [helper.make_node('Mod', ['a', 'b'], ['y'], fmod=1)]
    model = _model(nodes, [_value('a', [2, 4], elem), _value('b', [2, 4], elem)],
                   [_value('y', [2, 4], elem)], {})
    dtype = np.float32 if elem == TensorProto.FLOAT else np.int32
    a = np.array([[7.5, -7.5, 7.5, -7.5], [0, -3, 6.25, -1e-3]]).astype(dtype)
    b = np.array([[2, 2, -2, -2], [3, 2, 4, 4]]).astype(dtype)
    _compare_with_runtime(model, {'a': a, 'b': b}, rtol=0, atol=0)


def test_random_draws_have_the_distribution():
    nodes = [helper.make_node('RandomUniform', [], ['u'], low=2.0, high=3.0, shape=[400]),
             helper.make_node('RandomNormal', [], ['n'], mean=-1.0, scale=0.5, shape=[20, 20]),
             helper.make_node('RandomUniform', [], ['pinned'], low=1.5, high=1.5, shape=[2],
                              dtype=TensorProto.DOUBLE)]
    model = _model(nodes, [], [_value('u', [400]), _value('n', [20, 20]),
                               _value('pinned', [2], TensorProto.DOUBLE)], {})
    u, n, pinned = [out.asnumpy() for out in mx.contrib.onnx.import_model(model)[0].eval()]
    assert u.shape == (400,) and 2 <= u.min() and u.max() < 3 and abs(u.mean() - 2.5) < 0.05
    assert n.shape == (20, 20) and abs(n.mean() + 1) < 0.1 and abs(n.std() - 0.5) < 0.1
    assert pinned.dtype == np.float64 and pinned.tolist() == [1.5, 1.5]


def test_gather_nd():
    nodes = [helper.make_node('GatherND', ['x', 'index'], ['y'])]
    model = _model(nodes, [_value('x', [3, 4, 2]), _value('index', [2, 2, 2], TensorProto.INT64)],
                   [_value('y', [2, 2, 2])], {})
    index = np.array([[[0, 1], [2, -1]], [[-3, 0], [1, 3]]], np.int64)
    _compare_with_runtime(model, {'x': RNG.randn(3, 4, 2).astype(np.float32), 'index': index})


def test_round_halves_to_even():
    nodes = [helper.make_node('Round', ['x'], ['y'])]
    model = _model(nodes, [_value('x', [2, 6])], [_value('y', [2, 6])], {})
    x = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5],
                  [-3.7, -0.49999997, 0.49999997, 2.51, 1e7 + 1, -4.5]], np.float32)
    _compare_with_runtime(model, {'x': x}, rtol=0, atol=0)


@pytest.mark.parametrize('pads,strides', [([2, 0], [1]), ([0, 3], [2]), ([1, 2], [3])])
def test_conv_1d_asymmetric_pads(pads, strides):
    out = (10 + sum(pads) - 3) // strides[0] + 1
    nodes = [helper.make_node('Conv', ['x', 'w', 'b'], ['y'], kernel_shape=[3], pads=pads,
                              strides=strides)]
    init = {'w': RNG.randn(4, 2, 3).astype(np.float32), 'b': RNG.randn(4).astype(np.float32)}
    model = _model(nodes, [_value('x', [2, 2, 10])], [_value('y', [2, 4, out])], init)
    _compare_with_runtime(model, {'x': RNG.randn(2, 2, 10).astype(np.float32)})


def test_det():
    nodes = [helper.make_node('Det', ['x'], ['y'])]
    model = _model(nodes, [_value('x', [2, 3, 3])], [_value('y', [2])], {})
    _compare_with_runtime(model, {'x': RNG.randn(2, 3, 3).astype(np.float32)}, atol=1e-4)


def test_scatter_nd_and_scatter_elements():
    nodes = [helper.make_node('ScatterND', ['x', 'index', 'rows'], ['y']),
             helper.make_node('ScatterElements', ['x', 'cols', 'values'], ['z'], axis=1)]
    model = _model(nodes, [_value('x', [4, 3]), _value('index', [2, 1], TensorProto.INT64),
                           _value('rows', [2, 3]), _value('cols', [4, 1], TensorProto.INT64),
                           _value('values', [4, 1])],
                   [_value('y', [4, 3]), _value('z', [4, 3])], {})
    feed = {'x': RNG.randn(4, 3).astype(np.float32), 'index': np.array([[3], [0]], np.int64),
            'rows': RNG.randn(2, 3).astype(np.float32),
            'cols': np.array([[0], [2], [-1], [1]], np.int64),
            'values': RNG.randn(4, 1).astype(np.float32)}
    _compare_with_runtime(model, feed)
