"""Scalars and zero-size arrays with and without NumPy-shape semantics, as MXNet 1.9.1:
without them (legacy) a 0 dim means unknown, so ``nd.zeros``/``nd.ones`` refuse ``()`` and
shapes with a 0 dim; under ``mx.np_shape()`` operators take and make zero-size arrays."""
import numpy as np
import pytest

import symmod as mx


@pytest.mark.parametrize('make', [mx.nd.zeros, mx.nd.ones])
@pytest.mark.parametrize('shape', [(), (0, 1, 3, 0), (0,), 0])
def test_legacy_creation_refuses_scalars_and_zero_sizes(make, shape):
    with pytest.raises(mx.MXNetError, match='NumPy-shape semantics'):
        make(shape)
    with mx.np_shape():
        made = make(shape)
    expected = np.zeros(shape) if make is mx.nd.zeros else np.ones(shape)
    assert made.shape == expected.shape
    np.testing.assert_array_equal(made.asnumpy(), expected)


def test_util_set_np_shape_allows_them_too():
    prev = mx.util.set_np_shape(True)
    try:
        assert mx.nd.ones(()).shape == ()
    finally:
        mx.util.set_np_shape(prev)
    with pytest.raises(mx.MXNetError):
        mx.nd.ones(())


def test_other_creation_functions_keep_making_them():
    # MXNet's empty, full and array make them in legacy mode too
    assert mx.nd.empty((0, 2)).shape == (0, 2)
    assert mx.nd.full((0, 2), 3).shape == (0, 2)
    assert mx.nd.array(np.zeros((0, 3))).shape == (0, 3)
    assert mx.nd.zeros((2, 3)).shape == (2, 3)
    out = mx.nd.empty((0,))
    assert mx.nd.zeros((0,), out=out) is out       # writing into an array: no new shape


@pytest.mark.parametrize('shapes, dim', [
    ([(0, 8, 12), (3, 8, 12), (0, 8, 12)], 0),
    ([(0, 3, 10), (0, 4, 10), (0, 5, 10)], 1),
    ([(8, 0, 0), (8, 0, 0)], 2),
    ([(8, 0, 5), (8, 7, 5)], 1)])
def test_concat_zero_size_inputs_under_np_shape(shapes, dim):
    arrays = [np.random.uniform(size=s).astype(np.float32) for s in shapes]
    with mx.np_shape():
        out = mx.nd.Concat(*[mx.nd.array(a) for a in arrays], dim=dim)
    expected = np.concatenate(arrays, axis=dim)
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_concat_shape_checks_still_hold():
    with mx.np_shape():
        with pytest.raises(mx.MXNetError, match='incompatible'):
            mx.nd.Concat(mx.nd.ones((0, 3)), mx.nd.ones((2, 4)), dim=0)
    data = [mx.sym.var('a'), mx.sym.var('b')]
    _, out, _ = mx.sym.Concat(*data, dim=1).infer_shape_partial(a=(2, 3), b=(2, 0))
    assert out == [(2, 0)]          # legacy: b's 0 is unknown, so is the total


def test_tile_zero_size_input_and_zero_reps():
    a = np.zeros((2, 3, 0, 4), dtype=np.int32)
    with mx.np_shape():
        tiled = mx.nd.tile(mx.nd.array(a, dtype=a.dtype), (2, 4, 6))
        assert tiled.shape == np.tile(a, (2, 4, 6)).shape
        assert mx.nd.tile(mx.nd.ones((4, 4)), (1, 0, 3)).shape == (1, 0, 12)
    with pytest.raises(mx.MXNetError, match='zero-size output'):
        mx.nd.tile(mx.nd.ones((4, 4)), (1, 0, 3))


@pytest.mark.parametrize('shape, axes', [((), None), ((0, 0, 0), None),
                                         ((0, 0, 0, 0), (2, 1))])
def test_bind_zero_size_and_scalar_inputs_under_np_shape(shape, axes):
    data = mx.sym.var('data')
    sym = mx.sym.contrib.index_array(data, axes=axes)
    with mx.np_shape():
        exe = sym.bind(mx.cpu(), {'data': mx.nd.array(np.ones(shape))},
                       args_grad={'data': mx.nd.array(np.ones(shape))})
        out = exe.forward(is_train=True)[0]
        exe.backward(mx.nd.array(np.ones(out.shape)))
    count = len(shape) if axes is None else len(axes)
    assert out.shape == shape + (count,) if shape else out.shape == (0,)
    np.testing.assert_array_equal(exe.grad_arrays[0].asnumpy(), np.zeros(shape))


def test_bind_legacy_zero_size_output_is_refused():
    data = mx.sym.var('data')
    with pytest.raises(mx.MXNetError, match='cannot infer shape'):
        mx.sym.contrib.index_array(data).bind(mx.cpu(), {'data': mx.nd.array(np.ones(()))})


def test_fill_a_scalar_with_a_full_slice():
    with mx.np_shape():
        x = mx.nd.ones(())
    x[:] = 0
    assert x.shape == () and x.asscalar() == 0


def test_zero_size_head_gradient_of_another_shape_is_accepted():
    # MXNet copies the head gradient element by element: with no elements on either
    # side a different shape is harmless (a mismatch with elements is still refused)
    data = mx.sym.var('data')
    sym = mx.sym.contrib.index_array(data, axes=(2, 1))
    with mx.np_shape():
        exe = sym.bind(mx.cpu(), {'data': mx.nd.array(np.ones((0, 0, 0, 0)))},
                       args_grad={'data': mx.nd.array(np.ones((0, 0, 0, 0)))})
        exe.forward(is_train=True)
        exe.backward(mx.nd.array(np.ones((0, 0, 2))))
    exe = mx.sym.relu(data).bind(mx.cpu(), {'data': mx.nd.ones((2, 3))},
                                 args_grad={'data': mx.nd.ones((2, 3))})
    exe.forward(is_train=True)
    with pytest.raises(ValueError, match='head gradient 0 has shape'):
        exe.backward(mx.nd.ones((3, 2)))
