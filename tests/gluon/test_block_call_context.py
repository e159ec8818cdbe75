"""A HybridBlock called on NDArrays runs with their context current (imperative and
hybridized), whatever context was current at the call."""
import numpy as np
import pytest

import symmod as mx
from symmod import gluon


class _SeesContext(gluon.HybridBlock):
    """Records the current context inside hybrid_forward and makes a new array there."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def hybrid_forward(self, F, x, *args):
        self.seen.append(mx.current_context())
        return x + F.ones_like(x)


@pytest.mark.parametrize('outer', [None, mx.cpu(0), mx.cpu(2)])
def test_the_inputs_context_is_current_inside(outer):
    block = _SeesContext()
    x = mx.nd.ones((2, 3), ctx=mx.cpu(1))
    if outer is None:
        out = block(x)
    else:
        with outer:
            out = block(x)
        assert mx.current_context() is not None
    assert block.seen == [mx.cpu(1)]
    assert out.context == mx.cpu(1)
    np.testing.assert_array_equal(out.asnumpy(), 2 * np.ones((2, 3)))


def test_the_outer_context_comes_back_after_the_call():
    block = _SeesContext()
    with mx.cpu(3):
        block(mx.nd.ones((1,), ctx=mx.cpu(1)))
        assert mx.current_context() == mx.cpu(3)
        block(mx.nd.ones((1,), ctx=mx.cpu(3)))
        assert mx.current_context() == mx.cpu(3)
    assert block.seen == [mx.cpu(1), mx.cpu(3)]


def test_inputs_on_two_contexts_run_imperatively_on_the_first():
    block = _SeesContext()
    a = mx.nd.ones((2,), ctx=mx.cpu(1))
    b = mx.nd.ones((2,), ctx=mx.cpu(2))
    block(a, b)
    assert block.seen == [mx.cpu(1)]
    block.hybridize()
    with pytest.raises(ValueError, match='multiple contexts'):
        block(a, b)


def test_inputs_with_none_take_the_general_path():
    block = _SeesContext()
    block(mx.nd.ones((2,), ctx=mx.cpu(1)), None)
    assert block.seen == [mx.cpu(1)]
