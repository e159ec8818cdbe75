"""Custom operators written against the ``mx.operator`` API, shared by
tests/ops/test_custom.py (with symmod) and tests/data/gen/gen_custom_json.py (with real
MXNet 1.9.1), so both build the very same graph.
"""
import numpy as np

SOFTMAX = 'test_softmax'
SCALE_STATS = 'test_scale_stats'


_REGISTERED = set()


def register_ops(mx):
    """Register the test operators with ``mx`` (symmod or mxnet), once."""
    if mx.__name__ in _REGISTERED:
        return
    _REGISTERED.add(mx.__name__)

    class Softmax(mx.operator.CustomOp):
        """The MXNet tutorial's softmax loss, in numpy."""

        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0].asnumpy()
            y = np.exp(x - x.max(axis=1, keepdims=True))
            y /= y.sum(axis=1, keepdims=True)
            self.assign(out_data[0], req[0], mx.nd.array(y, dtype=x.dtype))

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            label = in_data[1].asnumpy().ravel().astype(np.int64)
            y = out_data[0].asnumpy()
            y[np.arange(label.shape[0]), label] -= 1.0
            self.assign(in_grad[0], req[0], mx.nd.array(y, dtype=y.dtype))

    @mx.operator.register(SOFTMAX)
    class SoftmaxProp(mx.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def list_arguments(self):
            return ['data', 'label']

        def infer_shape(self, in_shape):
            data_shape = in_shape[0]
            return [data_shape, (data_shape[0],)], [data_shape], []

        def create_operator(self, ctx, shapes, dtypes):
            return Softmax()

    class ScaleStats(mx.operator.CustomOp):
        """Two inputs and two outputs (x * scale + shift, x * x) and a running mean of x
        over the batch, written with NDArray arithmetic."""

        def __init__(self, scale, momentum):
            super().__init__()
            self.scale = scale
            self.momentum = momentum

        def forward(self, is_train, req, in_data, out_data, aux):
            x, shift = in_data
            self.assign(out_data[0], req[0], mx.nd.broadcast_add(x * self.scale,
                                                                 shift.reshape((1, -1))))
            self.assign(out_data[1], req[1], x * x)
            if is_train:
                aux[0][:] = aux[0] * self.momentum + \
                    mx.nd.mean(x, axis=0) * (1.0 - self.momentum)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            x = in_data[0]
            self.assign(in_grad[0], req[0], out_grad[0] * self.scale + out_grad[1] * x * 2.0)
            self.assign(in_grad[1], req[1], mx.nd.sum(out_grad[0], axis=0))

    @mx.operator.register(SCALE_STATS)
    class ScaleStatsProp(mx.operator.CustomOpProp):
        # MXNet 1.9.1 cannot bind a Custom op with aux states whose number of outputs
        # differs from its number of arguments (an index slip in its backward storage
        # inference), hence two arguments for two outputs
        def __init__(self, scale='1.0', momentum='0.9'):
            super().__init__(need_top_grad=True)
            self.scale = float(scale)
            self.momentum = float(momentum)

        def list_arguments(self):
            return ['data', 'shift']

        def list_outputs(self):
            return ['output', 'squared']

        def list_auxiliary_states(self):
            return ['running_mean']

        def infer_shape(self, in_shape):
            shape = in_shape[0]
            return [shape, [shape[-1]]], [shape, shape], [[shape[-1]]]

        def create_operator(self, ctx, shapes, dtypes):
            return ScaleStats(self.scale, self.momentum)


def json_graph(mx):
    """FullyConnected -> ScaleStats (two inputs and outputs, aux) -> sum -> softmax loss."""
    data = mx.sym.Variable('data')
    fc = mx.sym.FullyConnected(data, num_hidden=6, name='fc1')
    stats = mx.sym.Custom(fc, op_type=SCALE_STATS, scale=0.5, momentum=0.75, name='stats')
    total = mx.sym.elemwise_add(stats[0], stats[1], name='total')
    return mx.sym.Custom(total, op_type=SOFTMAX, name='softmax')


def json_graph_inputs():
    """Deterministic inputs for json_graph: data (4, 5), fc1 parameters, stats shift, labels."""
    rng = np.random.RandomState(7)
    return {
        'data': rng.uniform(-1, 1, (4, 5)).astype(np.float32),
        'fc1_weight': rng.uniform(-0.5, 0.5, (6, 5)).astype(np.float32),
        'fc1_bias': rng.uniform(-0.1, 0.1, (6,)).astype(np.float32),
        'stats_shift': rng.uniform(-0.3, 0.3, (6,)).astype(np.float32),
        'softmax_label': np.array([0, 3, 5, 1], dtype=np.float32),
    }
