"""The deformable convolution layers tests/gluon/test_deformable_layers.py and its MXNet
generator (tests/data/gen/gen_deformable_layers_reference.py) build, with a given ``mx``."""
import numpy as np

LAYERS = {
    'plain': ('DeformableConvolution', dict(channels=4, kernel_size=(3, 3), padding=1)),
    'groups': ('DeformableConvolution', dict(channels=4, kernel_size=(3, 2), groups=2,
                                             num_deformable_group=2, activation='relu',
                                             offset_use_bias=False)),
    'modulated': ('ModulatedDeformableConvolution', dict(channels=3, kernel_size=(2, 2),
                                                         strides=2, use_bias=False)),
}
INPUT = (2, 4, 7, 6)


def build(mx, case):
    cls, kwargs = LAYERS[case]
    with mx.name.NameManager():
        layer = getattr(mx.gluon.contrib.cnn, cls)(prefix=case + '_', **kwargs)
    layer.initialize()
    return layer


def values(rng, shape, name):
    # offsets of a pixel or so, so that the sampling is really deformed
    scale = 0.3 if 'offset' in name else 0.5
    return (rng.randn(*shape) * scale).astype(np.float32)


def run(mx, case, params=None):
    """Output and input gradient of the layer with the given (or drawn) parameters."""
    layer = build(mx, case)
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, INPUT).astype(np.float32)
    layer(mx.nd.array(x))
    drawn = {}
    for name, p in layer.collect_params().items():
        drawn[name] = values(rng, p.shape, name) if params is None else params[name]
        p.set_data(mx.nd.array(drawn[name]))
    data = mx.nd.array(x)
    data.attach_grad()
    with mx.autograd.record():
        out = layer(data)
    backward = case != 'modulated'       # MXNet's CPU build has no modulated backward
    if backward:
        out.backward()
    return {'out': out.asnumpy(), 'grad': data.grad.asnumpy() if backward else None,
            'params': drawn, 'repr': repr(layer)}
