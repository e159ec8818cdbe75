"""amp_cast, amp_multicast, all_finite and multi_all_finite against MXNet 1.9.1
(tests/data/gen/gen_ops_contrib_reference.py) and their dtype rules."""
import numpy as np
import pytest

import symmod as mx

from recorded_cases import case_names, replay

TESTED_OPS = {'amp_cast', 'amp_multicast', 'all_finite', 'multi_all_finite'}
REFERENCE = 'ops_contrib_reference.npz'


@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=0, atol=0)


def test_multicast_gradients_come_back_in_the_input_types():
    a = mx.nd.array([1.5, 2.5], dtype=np.float16)
    b = mx.nd.array([3.25, 4.0], dtype=np.float32)
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        x, y = mx.nd.amp_multicast(a, b, num_outputs=2)
        z = x * y
    assert x.dtype == np.float32 and y.dtype == np.float32
    z.backward()
    assert a.grad.dtype == np.float16 and b.grad.dtype == np.float32
    np.testing.assert_array_equal(a.grad.asnumpy(), [3.25, 4.0])
    np.testing.assert_array_equal(b.grad.asnumpy(), [1.5, 2.5])


def test_all_finite_without_init_keeps_the_output():
    out = mx.nd.array([7.0])
    mx.nd.all_finite(mx.nd.array([1.0, 2.0]), init_output=False, out=out)
    assert out.asscalar() == 7.0
    mx.nd.all_finite(mx.nd.array([1.0, np.nan]), init_output=False, out=out)
    assert out.asscalar() == 0.0
