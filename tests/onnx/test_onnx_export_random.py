"""Exported random image augmentations (ONNX Runtime draws its own random numbers).

Each case is checked three ways: the ONNX draws have the operator's distribution
(RandomUniform bounds / RandomNormal scale and shape); with every draw pinned to a chosen
value, ONNX Runtime computes exactly what symmod's adjustment computes with that value
(for the colour jitter, also the order the draws put the steps in); and the model as
exported runs and gives different outputs from run to run.
"""
import copy

import numpy as np
import pytest
from onnx import helper, numpy_helper

from symmod.ops import image_color
from symmod.ops.image import saturate_cast
from symmod.onnx.export.model import to_onnx_model
from onnx_check import NEWEST, session
from onnx_export_cases import RANDOM_CASES

OPSETS = sorted({12, min(NEWEST, 21)})      # ONNX Runtime lacks the opset-22 Random* kernels
CASES = {c[0]: c for c in RANDOM_CASES}


def _draws(model):
    """{output name: (op type, attributes)} of the Random* nodes."""
    return {n.output[0]: (n.op_type, {a.name: helper.get_attribute_value(a) for a in n.attribute})
            for n in model.graph.node if n.op_type.startswith('Random')}


def _pinned(model, values):
    """The model with each Random* node whose output ends with a key of ``values``
    replaced by a Constant holding that value."""
    model = copy.deepcopy(model)
    nodes = model.graph.node
    for i, node in enumerate(nodes):
        matches = [k for k in values if node.output[0].endswith(k)]
        if node.op_type.startswith('Random') and matches:
            shape = helper.get_attribute_value(
                next(a for a in node.attribute if a.name == 'shape'))
            value = np.asarray(values[matches[0]], np.float32).reshape(shape)
            nodes[i].CopyFrom(helper.make_node('Constant', [], list(node.output),
                                               value=numpy_helper.from_array(value)))
    assert not _draws(model), 'draws left unpinned: %s' % sorted(_draws(model))
    return model


def _model(name, opset):
    _, sym, inputs, _ = CASES[name]
    data = inputs['data']
    return to_onnx_model(sym, {}, [data.shape], [data.dtype], opset_version=opset), data


def _run(model, data):
    return session(model).run(None, {'data': data})[0]


def _colour(data, adjust):
    return saturate_cast(adjust(data.astype(np.float32)), data.dtype)


def _close(got, expected, data):
    if data.dtype == np.uint8:
        # a float32 product on the other side of an integer boundary moves a pixel by 1
        assert np.abs(got.astype(int) - expected.astype(int)).max() <= 1
        assert np.mean(got != expected) < 0.05
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize('opset', OPSETS)
@pytest.mark.parametrize('name,axis', [('image_random_flip_left_right', -2),
                                       ('image_random_flip_top_bottom', -3)])
def test_random_flip(name, axis, opset):
    model, data = _model(name, opset)
    (draw, (op_type, attrs)), = _draws(model).items()
    assert (op_type, attrs['low'], attrs['high']) == ('RandomUniform', 0.0, 1.0)
    np.testing.assert_array_equal(_run(_pinned(model, {draw: 0.2}), data), np.flip(data, axis))
    np.testing.assert_array_equal(_run(_pinned(model, {draw: 0.7}), data), data)
    sess = session(model)
    flips = []
    for _ in range(40):
        out = sess.run(None, {'data': data})[0]
        flips.append(np.array_equal(out, np.flip(data, axis)))
        assert flips[-1] or np.array_equal(out, data)
    assert 0 < sum(flips) < 40        # fails with probability 2 ** -39


@pytest.mark.parametrize('opset', OPSETS)
@pytest.mark.parametrize('name,adjust,low,high', [
    ('image_random_brightness', image_color.adjust_brightness, 0.5, 1.5),
    ('image_random_contrast', image_color.adjust_contrast, 0.3, 1.2),
    ('image_random_saturation', image_color.adjust_saturation, 0.1, 1.9),
    ('image_random_hue', image_color.adjust_hue, -0.3, 0.4)])
def test_random_factor(name, adjust, low, high, opset):
    model, data = _model(name, opset)
    (draw, (op_type, attrs)), = _draws(model).items()
    assert op_type == 'RandomUniform' and attrs['shape'] == [1]
    np.testing.assert_allclose([attrs['low'], attrs['high']], [low, high], rtol=1e-7)
    for alpha in (low, (low + high) / 2, high):
        _close(_run(_pinned(model, {draw: alpha}), data), _colour(
            data, lambda img: adjust(img, np.float32(alpha))), data)
    sess = session(model)
    outs = [sess.run(None, {'data': data})[0] for _ in range(3)]
    assert not np.array_equal(outs[0], outs[1]) or not np.array_equal(outs[0], outs[2])


@pytest.mark.parametrize('opset', OPSETS)
def test_random_lighting(opset):
    model, data = _model('image_random_lighting', opset)
    (draw, (op_type, attrs)), = _draws(model).items()
    assert (op_type, attrs['shape'], attrs['mean']) == ('RandomNormal', [3, 1], 0.0)
    assert attrs['scale'] == pytest.approx(0.3)
    alpha = np.array([0.2, -0.4, 0.1], np.float32)
    _close(_run(_pinned(model, {draw: alpha}), data),
           _colour(data, lambda img: image_color.adjust_lighting(img, alpha)), data)
    sess = session(model)
    shifts = [(sess.run(None, {'data': data})[0] - data).reshape(-1, 3) for _ in range(2)]
    for shift in shifts:      # one colour shift for every pixel
        np.testing.assert_allclose(shift, np.broadcast_to(shift[0], shift.shape), atol=1e-3)
    assert not np.allclose(shifts[0][0], shifts[1][0])


@pytest.mark.parametrize('opset', OPSETS)
@pytest.mark.parametrize('name,steps', [
    ('image_random_color_jitter', [('brightness', 0.3), ('contrast', 0.4),
                                   ('saturation', 0.5), ('hue', 0.2)]),
    ('image_random_color_jitter_two', [('contrast', 0.4), ('hue', 0.2)])])
def test_random_color_jitter(name, steps, opset):
    model, data = _model(name, opset)
    draws = _draws(model)
    for i, (_, amount) in enumerate(steps):
        (op_type, attrs), = [v for k, v in draws.items() if k.endswith('_factor%d_draw' % i)]
        np.testing.assert_allclose([attrs['low'], attrs['high']], [-amount, amount], rtol=1e-7)
    (order_type, order_attrs), = [v for k, v in draws.items() if k.endswith('_order_draw')]
    assert order_attrs['shape'] == [len(steps)] and len(draws) == len(steps) + 1
    rng = np.random.RandomState(3)
    for _ in range(3):
        keys = rng.permutation(len(steps)).astype(np.float32) / len(steps)
        factors = [rng.uniform(-amount, amount) for _, amount in steps]
        pins = {'_order_draw': keys}
        pins.update({'_factor%d_draw' % i: f for i, f in enumerate(factors)})

        def expected(img):
            for index in np.argsort(keys):
                what = steps[index][0]
                base = 0 if what == 'hue' else 1
                adjust = getattr(image_color, 'adjust_' + what)
                img = adjust(img, np.float32(base) + np.float32(factors[index]))
            return img
        _close(_run(_pinned(model, pins), data), _colour(data, expected), data)
    sess = session(model)
    outs = [sess.run(None, {'data': data})[0] for _ in range(3)]
    assert not np.array_equal(outs[0], outs[1]) or not np.array_equal(outs[0], outs[2])
