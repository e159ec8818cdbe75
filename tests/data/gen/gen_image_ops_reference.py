"""Record MXNet 1.9.1's image operators (mx.nd.image.*), mx.image.imrotate and the gluon
vision transforms built on them (tests/ops/test_image_ops.py, tests/test_image_rotate.py,
tests/gluon/test_transforms_ops.py).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_image_ops_reference.py

Writes tests/data/image_ops_reference.npz. Inputs are fixed arrays (``in/<name>``); each
case ``<case>`` stores its output ``<case>/out`` and, for the differentiable operators,
the gradient of ``sum(out * head)`` (``<case>/grad``, head ``<case>/head``). The random
colour operators are recorded with min_factor == max_factor (a fixed factor). Error
messages go to ``errors`` (JSON).
"""
import json
import os

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'image_ops_reference.npz')

RNG = np.random.RandomState(11)
INPUTS = {
    'u8': RNG.randint(0, 256, (6, 8, 3)).astype(np.uint8),
    'u8_batch': RNG.randint(0, 256, (2, 5, 6, 3)).astype(np.uint8),
    'f32': RNG.uniform(0, 255, (7, 9, 3)).astype(np.float32),
    'gray': RNG.randint(0, 256, (4, 6, 1)).astype(np.uint8),
    'chw': RNG.uniform(0, 1, (3, 4, 5)).astype(np.float32),
    'nchw': RNG.uniform(0, 1, (2, 3, 4, 5)).astype(np.float32),
    'rot': RNG.uniform(0, 1, (2, 7, 9)).astype(np.float32),
    'rot_batch': RNG.uniform(0, 1, (3, 2, 6, 6)).astype(np.float32),
}

# case -> (operator, input, parameters, differentiable)
CASES = {
    'to_tensor': ('to_tensor', 'u8', {}, False),
    'to_tensor_batch': ('to_tensor', 'u8_batch', {}, False),
    'normalize': ('normalize', 'chw', {'mean': (0.1, 0.2, 0.3), 'std': (0.5, 2.0, 4.0)}, True),
    'normalize_batch': ('normalize', 'nchw', {'mean': (0.5,), 'std': (0.25,)}, True),
    'crop': ('crop', 'f32', {'x': 2, 'y': 1, 'width': 4, 'height': 5}, True),
    'crop_batch': ('crop', 'u8_batch', {'x': 0, 'y': 2, 'width': 3, 'height': 3}, False),
    'resize_linear': ('resize', 'u8', {'size': (11, 5)}, False),
    'resize_cubic': ('resize', 'u8', {'size': (5, 9), 'interp': 2}, False),
    'resize_nearest_keep': ('resize', 'f32', {'size': 4, 'keep_ratio': True, 'interp': 0},
                            False),
    'resize_cubic_float': ('resize', 'f32', {'size': 12, 'interp': 2}, False),
    'resize_batch': ('resize', 'u8_batch', {'size': (4, 3)}, False),
    'flip_left_right': ('flip_left_right', 'u8', {}, False),
    'flip_top_bottom': ('flip_top_bottom', 'f32_even', {}, False),
    'brightness': ('random_brightness', 'u8', {'min_factor': 1.3, 'max_factor': 1.3}, False),
    'contrast': ('random_contrast', 'u8', {'min_factor': 0.6, 'max_factor': 0.6}, False),
    'contrast_gray': ('random_contrast', 'gray', {'min_factor': 1.4, 'max_factor': 1.4}, False),
    'hue': ('random_hue', 'u8', {'min_factor': 0.2, 'max_factor': 0.2}, False),
    'hue_float': ('random_hue', 'f32', {'min_factor': 0.65, 'max_factor': 0.65}, False),
    'lighting': ('adjust_lighting', 'u8', {'alpha': (0.1, -0.2, 0.3)}, False),
    'lighting_float': ('adjust_lighting', 'f32', {'alpha': (-0.5, 0.0, 0.25)}, False),
}
INPUTS['f32_even'] = INPUTS['f32'][:6]


def run(name, op, source, params, differentiable, record):
    x = mx.nd.array(INPUTS[source], dtype=INPUTS[source].dtype)
    func = getattr(mx.nd.image, op)
    if not differentiable:
        record[name + '/out'] = func(x, **params).asnumpy()
        return
    x.attach_grad()
    with mx.autograd.record():
        out = func(x, **params)
    head = RNG.uniform(-1, 1, out.shape).astype(np.float32)
    out.backward(mx.nd.array(head))
    record[name + '/out'] = out.asnumpy()
    record[name + '/head'] = head
    record[name + '/grad'] = x.grad.asnumpy()


def rotations(record):
    img = mx.nd.array(INPUTS['rot'])
    for angle in (30, -75, 180):
        record['rotate/%d/out' % angle] = mx.image.imrotate(img, angle).asnumpy()
    record['rotate/zoom_in/out'] = mx.image.imrotate(img, 40, zoom_in=True).asnumpy()
    record['rotate/zoom_out/out'] = mx.image.imrotate(img, 40, zoom_out=True).asnumpy()
    batch = mx.nd.array(INPUTS['rot_batch'])
    angles = np.array([10, -100, 45], np.float32)
    record['rotate/batch/angles'] = angles
    record['rotate/batch/out'] = mx.image.imrotate(batch, mx.nd.array(angles)).asnumpy()
    T = mx.gluon.data.vision.transforms
    record['transform/rotate/out'] = T.Rotate(25)(img).asnumpy()
    u8 = mx.nd.array(INPUTS['u8'], dtype='uint8')
    record['transform/crop_resize/out'] = T.CropResize(1, 1, 5, 4, (3, 6), 2)(u8).asnumpy()
    record['transform/crop_resize_nosize/out'] = T.CropResize(2, 0, 3, 6)(u8).asnumpy()
    record['transform/resize_cubic/out'] = T.Resize(10, keep_ratio=True,
                                                    interpolation=2)(u8).asnumpy()


def errors():
    calls = {
        'crop_outside': lambda: mx.nd.image.crop(mx.nd.zeros((4, 4, 3)), 2, 2, 3, 1),
        'resize_size3': lambda: mx.nd.image.resize(mx.nd.zeros((4, 4, 3)), (1, 2, 3)),
        'to_tensor_5d': lambda: mx.nd.image.to_tensor(mx.nd.zeros((1, 2, 3, 4, 5))),
        'brightness_2d': lambda: mx.nd.image.random_brightness(mx.nd.zeros((4, 4)), 1, 2),
    }
    found = {}
    for name, call in calls.items():
        try:
            call().wait_to_read()
            found[name] = None
        except mx.base.MXNetError as err:
            # the explanation after "Check failed: <condition>: "
            found[name] = str(err).strip().split('\n')[-1].split(': ', 2)[-1].strip()
    return found


def main():
    record = {'in/' + k: v for k, v in INPUTS.items()}
    for name, (op, source, params, differentiable) in CASES.items():
        run(name, op, source, params, differentiable, record)
    rotations(record)
    record['errors'] = np.array(json.dumps(errors()))
    record['cases'] = np.array(json.dumps(CASES))
    np.savez_compressed(OUT, **record)
    print('wrote %d arrays to %s (%d bytes)' % (len(record), os.path.normpath(OUT),
                                                os.path.getsize(OUT)))


if __name__ == '__main__':
    main()
