"""Partial shape inference rules MXNet 1.9.1 has for batch_dot and where (its
test_infer_shape): what stays unknown until which dims are known, in legacy (0 unknown)
and NumPy-shape (-1 unknown) semantics."""
import symmod as mx


def test_batch_dot_needs_the_contracted_dims():
    z = mx.sym.batch_dot(mx.sym.var('x'), mx.sym.var('y'))
    assert z.infer_shape_partial(x=(0, 3, 4), y=(0, 4, 5))[1] == [(0, 3, 5)]
    assert z.infer_shape_partial(x=(0, 3, 4), y=(0, 0, 5))[1] == [()]
    assert z.infer_shape_partial(x=(0, 3, 0), y=(0, 4, 5))[1] == [()]
    with mx.np_shape(True):
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(-1, 4, 5))[1] == [(-1, 3, 5)]
        assert z.infer_shape_partial(x=(-1, 3, 4), y=(-1, -1, 5))[1] == [None]
    assert z.infer_shape(x=(2, 3, 4), y=(2, 4, 5))[1] == [(2, 3, 5)]


def test_where_needs_the_whole_condition():
    w = mx.sym.where(mx.sym.var('cond'), mx.sym.var('x'), mx.sym.var('y'))
    assert w.infer_shape_partial(cond=(0, 2), x=(0, 2), y=(0, 2))[1] == [()]
    assert w.infer_shape_partial(cond=(0,), x=(2, 2), y=(2, 2))[1] == [()]
    with mx.np_shape(True):
        assert w.infer_shape_partial(cond=(-1, 2), x=(-1, 2), y=(-1, 2))[1] == [None]
        assert w.infer_shape_partial(cond=(-1,), x=(2, 2), y=(2, 2))[1] == [None]
    assert w.infer_shape(cond=(2,), x=(2, 3), y=(2, 3))[1] == [(2, 3)]
    assert w.infer_shape_partial(cond=(2, 3), x=(2, 0), y=(0, 3))[1] == [(2, 3)]
