"""``with ctx:`` scoping of the current context."""
import threading

import symmod as mx


def test_nested_with_of_the_same_context_object_restores_the_outer_context():
    ctx = mx.cpu(1)
    assert mx.current_context() == mx.cpu(0)
    with ctx:
        with ctx:       # gluon blocks re-enter their input's context object
            assert mx.current_context() is ctx
        assert mx.current_context() is ctx
    assert mx.current_context() == mx.cpu(0)


def test_gluon_forward_on_another_context_leaves_the_current_context_alone():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(3), mx.gluon.nn.Dense(2))
    net.initialize(ctx=mx.cpu(1))
    net(mx.nd.ones((2, 4), ctx=mx.cpu(1)))
    assert mx.current_context() == mx.cpu(0)


def test_each_thread_has_its_own_current_context():
    seen = []

    def worker():
        seen.append(mx.current_context())
    with mx.cpu(2):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    assert seen == [mx.cpu(0)]
