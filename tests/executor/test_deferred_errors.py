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
                                  lambda y: y[0], lambda y: mx.nd.waitall(),
                                  lambda y: y + 1])
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
    _failing_take()
    other = mx.nd.ones((2,))
    np.testing.assert_array_equal(other.asnumpy(), [1, 1])
    with pytest.raises(mx.MXNetError):
        mx.nd.waitall()
    mx.nd.waitall()
