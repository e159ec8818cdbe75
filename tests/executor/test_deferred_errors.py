"""An operator error inside Executor.forward surfaces at the first read of an output,
as MXNet 1.9.1's asynchronous engine reports it (once), not at forward."""
import numpy as np
import pytest

import symmod as mx


def _failing_take():
    sym = mx.sym.take(mx.sym.var('a'), mx.sym.var('i'), mode='raise')
    exe = sym.simple_bind(mx.cpu(), a=(3, 2), i=(2,))
    exe.arg_dict['a'][:] = np.arange(6).reshape(3, 2)
    exe.arg_dict['i'][:] = np.array([5, 0])
    exe.forward(is_train=True)          # does not raise
    return exe


@pytest.mark.parametrize('read', [lambda y: y.asnumpy(), lambda y: y.wait_to_read(),
                                  lambda y: mx.nd.waitall(),
                                  # what is computed from the output, a slice or a copy
                                  # holds the error until it is read (MXNet propagates it)
                                  lambda y: y[0].asnumpy(), lambda y: (y + 1).asnumpy(),
                                  lambda y: y.copy().wait_to_read()])
def test_error_is_raised_by_the_first_read(read):
    exe = _failing_take()
    with pytest.raises(mx.MXNetError, match='indices out of bound'):
        read(exe.outputs[0])
    exe.outputs[0].asnumpy()            # reported once, as MXNet


def test_backward_after_an_unreported_error_raises_it():
    exe = _failing_take()
    with pytest.raises(mx.MXNetError, match='indices out of bound'):
        exe.backward(mx.nd.ones((2, 2)))


def test_a_new_forward_replaces_the_error():
    exe = _failing_take()
    exe.arg_dict['i'][:] = np.array([2, 0])
    exe.forward()
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), [[4, 5], [0, 1]])
    mx.nd.waitall()


def test_other_arrays_are_not_affected():
    exe = _failing_take()                   # noqa: F841  (its outputs hold the error)
    other = mx.nd.ones((2,))
    np.testing.assert_array_equal(other.asnumpy(), [1, 1])
    with pytest.raises(mx.MXNetError):
        mx.nd.waitall()
    mx.nd.waitall()


def test_imperative_value_errors_surface_at_the_read():
    # as MXNet's engine: the call returns; what is computed from its result holds the
    # error; the first read raises it, once
    bad = mx.nd.random.normal(0, -1, shape=(2, 2))
    prod = mx.nd.dot(mx.nd.ones((2, 2)), bad)
    first, second = prod                    # slices hold it too
    with pytest.raises(mx.MXNetError, match='scale < 0'):
        first.asnumpy()
    second.asnumpy()
    taken = mx.nd.take(mx.nd.ones((3, 2)), mx.nd.array([7]), mode='raise')
    with pytest.raises(mx.MXNetError, match='indices out of bound'):
        mx.nd.waitall()
    del taken


def test_imperative_shape_errors_still_raise_at_the_call():
    with pytest.raises(mx.MXNetError):
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)))
