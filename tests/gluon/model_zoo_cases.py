"""What tests/gluon/test_model_zoo.py and its MXNet generator
(tests/data/gen/gen_model_zoo_reference.py) share: the networks run in full, their inputs
and a deterministic parameter filling both frameworks compute alike (so no parameter
values need storing)."""
import json
import zlib

import numpy as np

# name -> (constructor: a get_model name or a class of model_zoo.vision, kwargs, input)
BUILT = {
    'resnet18_v1': ('resnet18_v1', {'classes': 10}, (1, 3, 32, 32)),
    'resnet_v2_bottleneck': ('ResNetV2', {'block': 'BottleneckV2', 'layers': [1, 2],
                                          'channels': [8, 16, 32], 'classes': 5},
                             (2, 3, 32, 32)),
    'resnet_v1_bottleneck': ('ResNetV1', {'block': 'BottleneckV1', 'layers': [1, 1],
                                          'channels': [8, 16, 32], 'classes': 5,
                                          'thumbnail': True}, (2, 3, 16, 16)),
    'resnet_v2_basic': ('ResNetV2', {'block': 'BasicBlockV2', 'layers': [2, 1],
                                     'channels': [8, 8, 16], 'classes': 5}, (2, 3, 32, 32)),
    'mobilenet0.25': ('mobilenet0.25', {'classes': 10}, (1, 3, 32, 32)),
    'mobilenetv2_0.25': ('mobilenetv2_0.25', {'classes': 10}, (1, 3, 32, 32)),
    'densenet_small': ('DenseNet', {'num_init_features': 8, 'growth_rate': 4,
                                    'block_config': [2, 3], 'classes': 5}, (2, 3, 56, 56)),
    'squeezenet1.1': ('squeezenet1.1', {'classes': 10}, (1, 3, 224, 224)),
}

# the input gradient is taken in training mode (MXNet's BatchNorm has no inference-mode
# backward), except for networks with Dropout (random masks) and no BatchNorm
GRAD_IN_INFERENCE = {'squeezenet1.1'}


def build(vision, case):
    """The network of ``case`` from a model_zoo.vision module (symmod's or MXNet's)."""
    ctor, kwargs, _ = BUILT[case]
    kwargs = dict(kwargs)
    if 'block' in kwargs:
        kwargs['block'] = getattr(vision, kwargs['block'])
    if ctor[0].isupper():
        return getattr(vision, ctor)(**kwargs)
    return vision.get_model(ctor, **kwargs)


def fill(name, shape):
    """A deterministic float32 value for parameter ``name`` (by the name's CRC): small
    weights, variances and gammas around 1."""
    size = int(np.prod(shape))
    phase = zlib.crc32(name.encode()) % 1000 / 1000.
    wave = np.sin(np.arange(size, dtype=np.float64) * 0.7 + phase * 6.283).reshape(shape)
    if name.endswith(('running_var', 'gamma')):
        return (1 + 0.2 * wave).astype(np.float32)
    fan_in = size // shape[0] if len(shape) > 1 else 1
    return (wave / np.sqrt(max(fan_in, 1))).astype(np.float32)


def model_input(case):
    shape = BUILT[case][2]
    return np.cos(np.arange(np.prod(shape), dtype=np.float64) * 0.01).reshape(shape) \
        .astype(np.float32)


def run_filled(mx, case):
    """Build ``case`` with ``mx`` (in a fresh NameManager), fill its parameters, and
    return its inference output, its input gradient (every 4th row and column) and the
    node names of its symbolic graph."""
    with mx.name.NameManager():
        net = build(mx.gluon.model_zoo.vision, case)
    net.initialize()
    x = model_input(case)
    net(mx.nd.array(x))
    for name, p in net.collect_params().items():
        p.set_data(mx.nd.array(fill(name, p.shape)))
    out = net(mx.nd.array(x)).asnumpy()
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record(train_mode=case not in GRAD_IN_INFERENCE):
        head = net(data)
    head.backward()
    nodes = [n['name'] for n in json.loads(net(mx.sym.var('data')).tojson())['nodes']]
    return out, data.grad.asnumpy()[..., ::4, ::4], nodes
