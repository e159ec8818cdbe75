"""The deprecated mx.operator.NumpyOp / NDArrayOp: a Python operator in a bound graph,
with its gradient, loss-layer mode and custom shapes."""
import numpy as np
import pytest

import symmod as mx

pytestmark = pytest.mark.filterwarnings('ignore:.*Op has been deprecated')


class Softmax(mx.operator.NumpyOp):
    """A loss layer: softmax in forward, softmax - onehot(label) in backward."""

    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ['data', 'label']

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]]

    def forward(self, in_data, out_data):
        e = np.exp(in_data[0] - in_data[0].max(axis=1, keepdims=True))
        out_data[0][:] = e / e.sum(axis=1, keepdims=True)

    def backward(self, out_grad, in_data, out_data, in_grad):
        grad = out_data[0].copy()
        grad[np.arange(grad.shape[0]), in_data[1].astype(int)] -= 1
        in_grad[0][:] = grad


def test_default_numpy_op_is_identity_with_unit_gradient():
    x = mx.sym.var('X')
    sym = mx.operator.NumpyOp().get_symbol(x, name='numpy_op')
    exe = sym.bind(mx.cpu(), args=[mx.nd.full((4,), 10)], args_grad={'X': mx.nd.zeros(4)})
    np.testing.assert_array_equal(exe.forward(is_train=True)[0].asnumpy(), [10] * 4)
    exe.backward(mx.nd.ones(4))
    np.testing.assert_array_equal(exe.grad_dict['X'].asnumpy(), [1] * 4)


def test_numpy_loss_layer_needs_no_head_gradient():
    data = np.array([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]])
    sym = Softmax()(mx.sym.var('data'), mx.sym.var('label'))
    assert sym.list_arguments() == ['data', 'label']
    exe = sym.simple_bind(mx.cpu(), data=(2, 3))
    exe.forward(is_train=True, data=data, label=np.array([2, 0]))
    exe.backward()
    soft = np.exp(data) / np.exp(data).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), soft, rtol=1e-5)
    expected = soft - np.eye(3)[[2, 0]]
    np.testing.assert_allclose(exe.grad_dict['data'].asnumpy(), expected, rtol=1e-5,
                               atol=1e-6)


def test_ndarray_op_gets_ndarrays():
    class Square(mx.operator.NDArrayOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], mx.nd.NDArray)
            out_data[0][:] = in_data[0] * in_data[0]

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = 2 * in_data[0] * out_grad[0]

    exe = Square()(mx.sym.var('x')).bind(mx.cpu(), args=[mx.nd.array([1., 2.])],
                                         args_grad={'x': mx.nd.zeros(2)})
    np.testing.assert_array_equal(exe.forward(is_train=True)[0].asnumpy(), [1, 4])
    exe.backward(mx.nd.array([1., 0.5]))
    np.testing.assert_array_equal(exe.grad_dict['x'].asnumpy(), [2, 2])


def test_deprecation_warnings_and_backward_dependencies():
    with pytest.warns(UserWarning, match='NDArrayOp has been deprecated'):
        op = mx.operator.NDArrayOp(need_top_grad=False)
    assert op.declare_backward_dependency([0], [1, 2], [3]) == [1, 2, 3]
    with pytest.warns(UserWarning, match='NumpyOp has been deprecated'):
        mx.operator.NumpyOp()
