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
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            dtype = helper.tensor_dtype_to_np_dtype(attrs.get('dtype', 1))
            value = np.asarray(values[matches[0]], dtype)
            if 'shape' in attrs:            # (the Like forms take the value's shape)
                value = value.reshape(attrs['shape'])
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


# ---- random draws (_random_*, _sample_*, _shuffle) ----------------------------------------
def _draw_model(name, opset):
    _, sym, inputs, _ = CASES[name]
    names = [n for n in sym.list_inputs() if n in inputs]
    model = to_onnx_model(sym, {}, [inputs[n].shape for n in names],
                          [inputs[n].dtype for n in names], opset_version=opset)
    return model, inputs


def _runs(model, inputs, count=2):
    sess = session(model)
    return [sess.run(None, inputs) for _ in range(count)]


@pytest.mark.parametrize('opset', OPSETS)
def test_random_scalar_draws(opset):
    cases = {'random_uniform': (2, 3, 2.5), 'random_uniform_like': (-1, 1, 0.0)}
    for name, (low, high, mean) in cases.items():
        model, inputs = _draw_model(name, opset)
        (draw, (_, attrs)), = _draws(model).items()
        assert (attrs['low'], attrs['high']) == (low, high)
        pinned = (np.linspace(0.1, 0.9, 120).astype(np.float32) * (high - low) + low).reshape(
            3 if name == 'random_uniform' else 4, -1)
        np.testing.assert_array_equal(_run_all(_pinned(model, {draw: pinned}), inputs)[0],
                                      pinned)
        first, second = _runs(model, inputs)
        assert low <= first[0].min() and first[0].max() < high
        assert abs(first[0].mean() - mean) < 0.15 * (high - low)
        assert not np.array_equal(first[0], second[0])
    for name, loc, scale in (('random_normal', 1, 2), ('random_normal_like', -1, 0.5)):
        model, inputs = _draw_model(name, opset)
        values = _runs(model, inputs, 1)[0][0]
        assert abs(values.mean() - loc) < 0.3 * scale and abs(values.std() - scale) < 0.2 * scale
    for name, lam in (('random_exponential', 2), ('random_exponential_like', 4)):
        model, inputs = _draw_model(name, opset)
        (draw, _), = _draws(model).items()
        u = np.linspace(0, 0.99, 400).astype(np.float32)
        np.testing.assert_allclose(_run_all(_pinned(model, {draw: u}), inputs)[0],
                                   -np.log1p(-u) / lam, rtol=1e-5, atol=1e-6)
        values = _runs(model, inputs, 1)[0][0]
        assert values.min() >= 0 and abs(values.mean() - 1 / lam) < 0.25 / lam
    model, inputs = _draw_model('random_randint', opset)
    (draw, _), = _draws(model).items()
    u = np.linspace(0, 0.999, 400)
    np.testing.assert_array_equal(_run_all(_pinned(model, {draw: u}), inputs)[0],
                                  np.floor(u * 8) - 3)
    values = _runs(model, inputs, 1)[0][0]
    assert values.dtype == np.int32 and set(values.tolist()) == set(range(-3, 5))


def _run_all(model, inputs):
    return session(model).run(None, inputs)


@pytest.mark.parametrize('opset', OPSETS)
def test_sample_draws_per_parameter_row(opset):
    model, inputs = _draw_model('sample_uniform', opset)
    (draw, _), = _draws(model).items()
    u = np.tile(np.linspace(0, 0.99, 200), (2, 1))
    expected = inputs['data'][:, None] + (inputs['data2'] - inputs['data'])[:, None] * u
    np.testing.assert_allclose(_run_all(_pinned(model, {draw: u}), inputs)[0], expected,
                               rtol=1e-6)
    model, inputs = _draw_model('sample_normal', opset)
    values = _runs(model, inputs, 1)[0][0]
    assert abs(values[0].mean()) < 0.3 and abs(values[1].mean() - 10) < 0.15
    assert abs(values[1].std() - 0.5) < 0.1
    model, inputs = _draw_model('sample_exponential', opset)
    values = _runs(model, inputs, 1)[0][0]
    assert abs(values[0].mean() - 1) < 0.25 and abs(values[1].mean() - 0.25) < 0.07


@pytest.mark.parametrize('opset', OPSETS)
def test_sample_multinomial_and_shuffle(opset):
    model, inputs = _draw_model('sample_multinomial', opset)
    picks, log_p = _runs(model, inputs, 1)[0]
    probs = inputs['data']
    assert picks.shape == (2, 200) and set(picks[0].tolist()) == {0, 1}   # p = 0 never
    assert 0.6 < np.mean(picks[0] == 1) < 0.95 and set(picks[1].tolist()) == {0, 1, 2}
    np.testing.assert_allclose(log_p, np.log(np.take_along_axis(probs, picks, 1)), rtol=1e-6)
    model, inputs = _draw_model('shuffle', opset)
    first, second = [out[0] for out in _runs(model, inputs)]
    for out in (first, second):
        assert sorted(map(tuple, out.tolist())) == sorted(map(tuple, inputs['data'].tolist()))
    assert not np.array_equal(first, second)
