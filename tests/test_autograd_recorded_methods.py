"""NDArray methods that copy or slice are recorded by autograd (as MXNet records them),
and the generated nd functions accept None for inputs that are not given."""
import numpy as np
import pytest

import symmod as mx


def test_indexing_astype_and_copy_are_differentiated():
    x = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    x.attach_grad()
    with mx.autograd.record():
        y = ((x[1] * 2).sum() + (x[:, 0:2] ** 2).sum() + x[-1, ::2].sum()
             + x.astype('float64').sum().astype('float32') + x.copy().sum())
    y.backward()
    value = x.asnumpy()
    expected = np.ones_like(value) * 2              # astype + copy
    expected[1] += 2                                 # x[1] * 2
    expected[:, :2] += 2 * value[:, :2]              # x[:, 0:2] ** 2
    expected[1, ::2] += 1                            # x[-1, ::2]
    np.testing.assert_allclose(x.grad.asnumpy(), expected)


def test_recorded_indexing_matches_numpy_shapes():
    x = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    x.attach_grad()
    with mx.autograd.record():
        for key in [0, (1, 2), (slice(None), 1), (slice(0, 2), slice(1, 3), 3), -1]:
            got = x[key]
            expected = np.arange(24).reshape(2, 3, 4)[key]
            np.testing.assert_array_equal(got.asnumpy().reshape(np.shape(expected) or (1,)),
                                          np.reshape(expected, np.shape(expected) or (1,)))
        picked = x[mx.nd.array([1, 1])]         # advanced keys record too, as in MXNet
    picked.backward()
    expected_grad = np.zeros((2, 3, 4))
    expected_grad[1] = 2
    np.testing.assert_array_equal(x.grad.asnumpy(), expected_grad)


def test_unrecorded_indexing_is_a_view():
    x = mx.nd.zeros((3, 4))
    row = x[1]
    row[:] = 5
    assert x.asnumpy()[1].tolist() == [5, 5, 5, 5]


def test_positional_none_marks_a_missing_input():
    x, w = mx.nd.ones((2, 3)), mx.nd.ones((4, 3))
    out = mx.nd.FullyConnected(x, w, None, num_hidden=4, no_bias=True)
    np.testing.assert_array_equal(out.asnumpy(), 3)
    with pytest.raises(mx.MXNetError, match="missing input 'bias'"):
        mx.nd.FullyConnected(x, w, None, num_hidden=4)
    assert mx.nd.sum(x, 1).shape == (2,)


def test_fresh_grad_flag_is_visible_on_arrays():
    x = mx.nd.ones(3)
    x.attach_grad()
    assert x._fresh_grad is False
    with mx.autograd.record():
        y = x * 2
    y.backward()
    assert x._fresh_grad is True
    x._fresh_grad = False
    assert x._fresh_grad is False


def test_custom_kvstore_instances_are_accepted_by_module_helpers():
    from symmod.model import _create_kvstore
    store = mx.kv.create('teststore')
    kv, update_on_kvstore = _create_kvstore(store, 1, {'w': mx.nd.zeros((2, 2))})
    assert kv is store and update_on_kvstore is store.is_capable('optimizer')
    with pytest.raises(TypeError, match='kvstore must be KVStore'):
        _create_kvstore(3, 1, {})
