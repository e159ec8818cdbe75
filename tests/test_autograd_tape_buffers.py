"""The tape's buffers in an eager backward pass: an operator's input gradients are arrays
the tape made for that pass, so they are accumulated and handed on without copies, and a
long pass re-sizes the thread budget before every node."""
import numpy as np

import symmod as mx
from symmod import threads
from symmod.autograd import tape


def test_node_gradients_are_handed_on_without_a_copy(monkeypatch):
    made = []
    original = tape._TapeNode.run_backward

    def recording(node, req, out_grad):
        in_grad = original(node, req, out_grad)
        made.append(in_grad)
        return in_grad
    monkeypatch.setattr(tape._TapeNode, 'run_backward', recording)
    x = mx.nd.array(np.arange(6.0).reshape(2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.slice(x * 2, begin=(0, 1), end=(2, 3))
        z = (y * y).sum() + (x * 3).sum()        # x reaches the head along two paths
    nodes, variables = tape._graph_nodes([z])
    grads = tape._run_backward([z], None, variables, False, True, nodes)
    value = grads[id(variables[0])]
    # the first gradient reaching x is kept (not copied) and the second added into it
    assert any(value is g for grads_of_node in made for g in grads_of_node)
    expected = np.full((2, 3), 3.0)
    expected[:, 1:] += 8 * np.arange(6.0).reshape(2, 3)[:, 1:]
    np.testing.assert_allclose(value, expected)


def test_backward_applies_the_thread_width_per_node(monkeypatch):
    calls = []
    monkeypatch.setattr(threads, 'apply', lambda share=1: calls.append(share) or 1)
    x = mx.nd.ones((4, 5))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.relu(x * 2 + 1).sum()
    y.backward()
    assert len(calls) >= 4          # once at the start, then per node (mul, add, relu, sum)
    np.testing.assert_allclose(x.grad.asnumpy(), 2.0)
