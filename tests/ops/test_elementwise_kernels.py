"""The threaded relu, addition and copy loops (special.relu_forward,
elementwise_kernels.add / copy): MXNet's relu (NaN kept, every non-positive value to +0),
numpy's sum and copy, bit for bit, at one and two threads, above and below the threading
size, in place, and through the operators (Activation, relu, elemwise_add and its
gradient)."""
import numba
import numpy as np
import pytest

import symmod as mx
from symmod.ops import elementwise_kernels as kernels, special
from symmod.ops.unary import relu_values

RNG = np.random.RandomState(4)
SIZES = [7, special.PARALLEL_MIN + special.BLOCK // 3]     # the serial loop, the blocks


def _data(size, dtype):
    x = RNG.standard_normal(size).astype(dtype)
    x[:6] = [np.nan, -0.0, 0.0, -np.inf, np.inf, -np.nan]
    return x


@pytest.fixture(params=[1, 2], ids=['1thread', '2threads'])
def threads(request):
    before = numba.get_num_threads()
    numba.set_num_threads(min(request.param, numba.config.NUMBA_NUM_THREADS))
    yield request.param
    numba.set_num_threads(before)


@pytest.mark.parametrize('size', SIZES)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_relu_is_mxnets(size, dtype, threads):
    x = _data(size, dtype)
    out = relu_values(x, np.empty_like(x))
    expected = np.where(np.isnan(x) | (x > 0), x, 0).astype(dtype)
    np.testing.assert_array_equal(out, expected)
    assert not np.signbit(out[~np.isnan(out)]).any()           # -0.0 gives +0.0
    relu_values(x, x)                                           # in place
    np.testing.assert_array_equal(x, expected)


@pytest.mark.parametrize('size', SIZES)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_add_equals_numpy(size, dtype, threads):
    a, b = _data(size, dtype), RNG.standard_normal(size).astype(dtype)
    np.testing.assert_array_equal(kernels.add(a, b, np.empty_like(a)), a + b)
    np.testing.assert_array_equal(kernels.add(a, b), a + b)


@pytest.mark.parametrize('size', SIZES)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_copy_keeps_every_bit(size, dtype, threads):
    src = _data(size, dtype)
    out = np.full_like(src, 7)
    assert kernels.copy(src, out) is out
    np.testing.assert_array_equal(out.view(np.uint8), src.view(np.uint8))


def test_elemwise_add_gradient_is_a_copy_unless_it_is_the_same_buffer():
    shape = (4, 8, 64, 64)
    dy = RNG.standard_normal(shape).astype(np.float32)
    op = mx.ops.registry.get('elemwise_add')()
    grads = [np.zeros(shape, np.float32), dy]       # the second is dy's own buffer
    before = dy.copy()
    op.backward(['write', 'write'], [dy], [None, None], [None], grads, [])
    np.testing.assert_array_equal(grads[0], before)
    np.testing.assert_array_equal(dy, before)
    op.backward(['add', 'null'], [dy], [None, None], [None], grads, [])
    np.testing.assert_array_equal(grads[0], 2 * before)


@pytest.mark.parametrize('size', SIZES)
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_relu_grad_pair_under_every_request(size, dtype, threads):
    # both input gradients of relu(a + b): dz where z > 0 (NaN in dz kept), each stored
    # as its request says; one array for both when an input is added to itself
    dz, z = _data(size, dtype), RNG.standard_normal(size).astype(dtype)
    g = np.where(z > 0, dz, 0).astype(dtype)
    start_a, start_b = (RNG.standard_normal(size).astype(dtype) for _ in range(2))
    store = {'null': lambda start: start, 'write': lambda start: g,
             'add': lambda start: start + g}
    for req_a in ('null', 'write', 'add'):
        for req_b in ('null', 'write', 'add'):
            da, db = start_a.copy(), start_b.copy()
            kernels.relu_grad_pair(dz, z, da, db, req_a, req_b)
            np.testing.assert_array_equal(da, store[req_a](start_a), err_msg=(req_a, req_b))
            np.testing.assert_array_equal(db, store[req_b](start_b), err_msg=(req_a, req_b))
            if 'null' in (req_a, req_b):
                continue
            both = start_a.copy()
            kernels.relu_grad_pair(dz, z, both, both, req_a, req_b)
            np.testing.assert_array_equal(both, store[req_b](store[req_a](start_a)))


def test_other_arrays_take_numpys_path():
    x = RNG.standard_normal((300, 400)).astype(np.float32)
    view = x[:, ::2]                                  # not contiguous
    np.testing.assert_array_equal(relu_values(view, np.empty(view.shape, np.float32)),
                                  np.maximum(view, 0))
    half = x.astype(np.float16)
    np.testing.assert_array_equal(relu_values(half, np.empty_like(half)), np.maximum(half, 0))
    ints = np.arange(special.PARALLEL_MIN, dtype=np.int32)
    np.testing.assert_array_equal(kernels.add(ints, ints, np.empty_like(ints)), 2 * ints)
    np.testing.assert_array_equal(kernels.copy(ints, np.empty_like(ints)), ints)
    np.testing.assert_array_equal(kernels.copy(view, np.empty(view.shape, np.float32)), view)
    wide = RNG.standard_normal((special.PARALLEL_MIN, 2))
    column = RNG.standard_normal((special.PARALLEL_MIN, 1))
    np.testing.assert_array_equal(kernels.add(wide, column, np.empty_like(wide)),
                                  wide + column)                # broadcasting


def test_operators_use_them():
    shape = (4, 8, 64, 64)                            # above the threading size
    x = _data(int(np.prod(shape)), np.float32).reshape(shape)
    y = RNG.standard_normal(shape).astype(np.float32)
    expected = np.where(np.isnan(x) | (x > 0), x, 0)
    np.testing.assert_array_equal(mx.nd.Activation(mx.nd.array(x), act_type='relu').asnumpy(),
                                  expected)
    np.testing.assert_array_equal(mx.nd.relu(mx.nd.array(x)).asnumpy(), expected)
    total = mx.nd.elemwise_add(mx.nd.array(x), mx.nd.array(y)).asnumpy()
    np.testing.assert_array_equal(total, x + y)
    sym = mx.sym.Activation(mx.sym.var('a') + mx.sym.var('b'), act_type='relu')
    ex = sym.bind(mx.cpu(), {'a': mx.nd.array(x), 'b': mx.nd.array(y)})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), np.maximum(x + y, 0))
