"""Networks whose operator-hook reports tests/gluon/test_op_hook.py compares with MXNet
1.9.1's (tests/data/gen/gen_op_hook_reference.py), built with a given ``mx``."""


def build(mx, case):
    nn = mx.gluon.nn
    layers = {'dense': lambda: [nn.Dense(2)], 'relu': lambda: [nn.Activation('relu')],
              'pool': lambda: [nn.AvgPool1D()],
              'dense_relu': lambda: [nn.Dense(2), nn.Activation('relu')],
              'conv_bn': lambda: [nn.Conv1D(2, 3), nn.BatchNorm(), nn.LeakyReLU(0.1)]}[case]
    model = nn.HybridSequential(prefix=case + '_')
    with model.name_scope():
        model.add(*layers())
    model.initialize()
    model.hybridize()
    return model


def report(mx, case, monitor_all):
    """[(node name, operator name)] the hook sees on one forward pass."""
    seen = []
    model = build(mx, case)
    model.register_op_hook(lambda name, op, arr: seen.append(
        (mx.base.py_str(name), mx.base.py_str(op))), monitor_all)
    model(mx.nd.ones((2, 3, 4)))
    return seen


CASES = [(case, monitor_all) for case in ('dense', 'relu', 'pool', 'dense_relu', 'conv_bn')
         for monitor_all in (False, True)]
