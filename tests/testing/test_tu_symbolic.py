"""mx.test_utils symbol checks: forward, backward, numeric gradients, consistency, speed."""
import numpy as np
import pytest

import symmod as mx
from symmod import test_utils as tu


def _data():
    return np.random.uniform(-1, 1, (3, 4))


def test_check_symbolic_forward_returns_outputs_and_detects_mismatch():
    x = mx.sym.var('x')
    data = _data()
    outs = tu.check_symbolic_forward(mx.sym.square(x), [data], [data ** 2])
    assert isinstance(outs[0], mx.nd.NDArray)
    sym = mx.sym.square(x)
    tu.check_symbolic_forward(sym, {'x': data}, {sym.list_outputs()[0]: data ** 2})
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(mx.sym.square(x), [data], [data ** 3])


def test_check_symbolic_forward_asnumpy_keeps_input_dtypes():
    x = mx.sym.var('x')
    data = np.arange(6).reshape(2, 3).astype(np.int32)
    outs = tu.check_symbolic_forward(x + 1, [data], [data + 1], dtype='asnumpy')
    assert outs[0].dtype == np.int32


@pytest.mark.parametrize('req', ['write', 'add', 'null'])
def test_check_symbolic_backward_honours_grad_req(req):
    x = mx.sym.var('x')
    data, head = _data(), _data()
    grads = tu.check_symbolic_backward(mx.sym.square(x), [data], [head], [2 * data * head],
                                       grad_req=req)
    assert isinstance(grads['x'], mx.nd.NDArray)


def test_check_symbolic_backward_detects_wrong_gradient():
    x = mx.sym.var('x')
    data = _data()
    with pytest.raises(AssertionError):
        tu.check_symbolic_backward(mx.sym.square(x), [data], [np.ones_like(data)], [data])


def test_check_numeric_gradient_passes_and_catches_a_wrong_backward():
    x = mx.sym.var('x')
    tu.check_numeric_gradient(mx.sym.tanh(x), [_data()], dtype=np.float64, rtol=1e-5, atol=1e-7)
    tu.check_numeric_gradient(mx.sym.tanh(x) * mx.sym.var('y'), [_data(), _data()],
                              grad_nodes={'x': 'add', 'y': 'null'}, dtype=np.float64)

    class WrongGrad(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * 3)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * 2)       # should be 3

    @mx.operator.register('tu_wrong_grad')
    class WrongGradProp(mx.operator.CustomOpProp):
        def list_arguments(self):
            return ['data']

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return WrongGrad()

    with pytest.raises(AssertionError, match='NUMERICAL_x'):
        tu.check_numeric_gradient(mx.sym.Custom(x, op_type='tu_wrong_grad'), [_data()],
                                  dtype=np.float64)


def test_numeric_grad_uses_eps_as_the_full_difference_width():
    x = mx.sym.var('x')
    exe = (x * x * x).bind(mx.cpu(), args={'x': mx.nd.array([2.0], dtype=np.float64)})
    grads = tu.numeric_grad(exe, {'x': np.array([2.0])}, eps=0.5, dtype=np.float64)
    # ((2.25^3) - (1.75^3)) / 0.5, the central difference over [x - eps/2, x + eps/2]
    np.testing.assert_allclose(grads['x'], (2.25 ** 3 - 1.75 ** 3) / 0.5)


def test_location_must_name_every_argument():
    x, y = mx.sym.var('x'), mx.sym.var('y')
    with pytest.raises(ValueError, match='do not match'):
        tu.check_symbolic_forward(x + y, {'x': _data()}, [_data()])


def test_check_consistency_across_dtypes():
    sym = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='fc')
    ctx_list = [{'ctx': mx.cpu(0), 'data': (2, 4), 'type_dict': {'data': np.float64}},
                {'ctx': mx.cpu(0), 'data': (2, 4), 'type_dict': {'data': np.float32}}]
    gt = tu.check_consistency(sym, ctx_list)
    assert set(gt) >= {'fc_output', 'fc_weight'}
    wrong = {'fc_output': mx.nd.zeros((2, 3)), 'fc_weight': None, 'fc_bias': None,
             'data': None}
    with pytest.raises(AssertionError):
        tu.check_consistency(sym, ctx_list, ground_truth=wrong, grad_req='null')


def test_check_speed_and_simple_forward():
    x = mx.sym.var('x')
    assert tu.check_speed(mx.sym.relu(x), N=2, x=(4, 4)) > 0
    assert tu.check_speed(mx.sym.relu(x), location={'x': _data()}, N=2, typ='forward') > 0
    np.testing.assert_allclose(tu.simple_forward(x * 2, x=np.ones((2,), np.float32)), [2, 2])
