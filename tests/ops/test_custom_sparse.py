"""Custom operators with csr storage (MXNet's rules): the prop's infer_storage_type gives
the outputs' storage types, the user's forward and backward see the sparse arrays
themselves, bound in an executor or called imperatively under autograd."""
import itertools

import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

_NAMES = itertools.count()
SEEN = []       # the storage types the user's code received: (method, stype of in_data[0])


class _StoredSquare(mx.operator.CustomOp):
    """Squares the stored values of a csr input (a dense input: every value)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0]
        SEEN.append(('forward', x.stype, out_data[0].stype))
        if x.stype == 'csr':
            value = mx.nd.sparse.csr_matrix((x.data * x.data, x.indices, x.indptr),
                                            shape=x.shape)
        else:
            value = x * x
        self.assign(out_data[0], req[0], value)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        SEEN.append(('backward', in_data[0].stype, out_data[0].stype))
        self.assign(in_grad[0], req[0],
                    2 * mx.nd.sparse.elemwise_mul(in_data[0], out_grad[0]))


class _StoredSquareProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=True)

    def infer_storage_type(self, in_stype):
        return in_stype, [in_stype[0]], []

    def infer_storage_type_backward(self, ograd_stype, in_stype, out_stype, igrad_stype,
                                    aux_stype):
        return ['default'], in_stype, out_stype, in_stype, []

    def create_operator(self, ctx, shapes, dtypes):
        return _StoredSquare()


@pytest.fixture(scope='module')
def op_type():
    name = '%s_%d' % (__name__, next(_NAMES))
    mx.operator.register(name)(_StoredSquareProp)
    return name


def _csr(rng, shape=(4, 6), density=0.4):
    dense = rng.uniform(-1, 1, shape).astype(np.float32)
    dense[rng.uniform(size=shape) > density] = 0
    return dense, mx.nd.array(dense).tostype('csr')


def test_bound_csr_argument_and_gradient(op_type):
    dense, x = _csr(np.random.RandomState(0))
    sym = mx.sym.Custom(mx.sym.var('data', stype='csr'), op_type=op_type)
    grad = mx.nd.zeros(x.shape).tostype('csr')
    exe = sym.bind(mx.cpu(), args={'data': x}, args_grad={'data': grad})
    del SEEN[:]
    exe.forward(is_train=True)
    out = exe.outputs[0]
    assert out.stype == 'csr'
    np.testing.assert_allclose(out.asnumpy(), dense * dense, rtol=1e-6)
    head = np.random.RandomState(1).uniform(-1, 1, x.shape).astype(np.float32)
    exe.backward([mx.nd.array(head)])
    assert grad.stype == 'csr'
    np.testing.assert_allclose(grad.asnumpy(), 2 * dense * head, rtol=1e-6)
    assert SEEN == [('forward', 'csr', 'csr'), ('backward', 'csr', 'csr')]


def test_numeric_gradient_with_csr_gradient(op_type):
    dense, x = _csr(np.random.RandomState(2))
    sym = mx.sym.Custom(mx.sym.var('data', stype='csr'), op_type=op_type)
    check_numeric_gradient(sym, [x], grad_stype_dict={'data': 'csr'}, numeric_eps=1e-3,
                           rtol=1e-2, atol=1e-3)


def test_recorded_call_backward_sees_csr(op_type):
    dense, x = _csr(np.random.RandomState(3))
    x.attach_grad()
    del SEEN[:]
    with mx.autograd.record():
        out = mx.nd.Custom(x, op_type=op_type)
    out.backward()
    assert out.stype == 'csr'
    np.testing.assert_allclose(out.asnumpy(), dense * dense, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * dense, rtol=1e-6)
    assert SEEN == [('forward', 'csr', 'csr'), ('backward', 'csr', 'csr')]


def test_dense_input_keeps_the_dense_path(op_type):
    x = mx.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    x.attach_grad()
    del SEEN[:]
    with mx.autograd.record():
        out = mx.nd.Custom(x, op_type=op_type)
    out.backward()
    assert out.stype == 'default'
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * x.asnumpy())
    assert SEEN == [('forward', 'default', 'default'), ('backward', 'default', 'default')]
