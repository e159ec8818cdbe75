"""Comparisons of training building blocks: two optimizers, or a gluon block hybridized
and not."""
import copy

import numpy as np

from .arrays import default_context, rand_ndarray
from .compare import assert_almost_equal, compare_ndarray_tuple

__all__ = ['compare_optimizer', 'check_gluon_hybridize_consistency']


def compare_optimizer(opt1, opt2, shape, dtype, w_stype='default', g_stype='default',
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """Apply one update of ``opt1`` and ``opt2`` to equal random weights and gradients and
    compare the states and weights.

    Parameters
    ----------
    opt1, opt2 : Optimizer
    shape : tuple, or list of tuples
        One shape (single-tensor update), or a list for a multi-tensor update by ``opt2``
        checked against single-tensor updates by ``opt1``.
    dtype : numpy dtype
    w_stype, g_stype : {'default', 'row_sparse', 'csr'}
        Storage types of ``opt2``'s weight and gradient; ``opt1`` (the reference) gets
        them dense.
    """
    from .. import random
    ctx = default_context()
    if not isinstance(shape, list):
        assert ntensors == 1
        w1, w2 = _equal_pair(shape, dtype, w_stype, ctx, random.uniform, density=1)
        g1, g2 = _equal_pair(shape, dtype, g_stype, ctx, random.uniform)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2 = copy.deepcopy(w1)
    g2 = copy.deepcopy(g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def _equal_pair(shape, dtype, stype, ctx, uniform, density=None):
    """(a dense copy, a random array of storage type ``stype``)."""
    if stype == 'default':
        second = uniform(shape=shape, ctx=ctx, dtype=dtype)
        return second.copyto(ctx), second
    if stype not in ('row_sparse', 'csr'):
        raise Exception('type not supported yet')
    second = rand_ndarray(shape, stype, density=density, dtype=dtype)
    return second.copyto(ctx).tostype('default'), second


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True,
                                      rtol=1E-4, atol=1E-4):
    """Check that a HybridBlock gives the same outputs (and input gradients) hybridized and
    not, and optionally the same as ``numpy_func``.

    Parameters
    ----------
    net_builder : callable
        ``net_builder(prefix=...)`` builds the block (it must hold no random operators).
    data_l : list of NDArray
        Inputs.
    numpy_func : callable, optional
        Reference taking and returning numpy arrays.
    test_grad : bool
        Also compare the gradients of the inputs.
    """
    from .. import autograd
    from ..initializer import Initializer

    class _Saved(Initializer):
        """Initializes each parameter with the values saved from the first build."""

        def __init__(self, values):
            super().__init__()
            self._values = values

        def _init_weight(self, name, arr):
            arr[:] = self._values[name]

    saved_out = saved_grads = init = None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix='net_')
            net.initialize(init) if init is not None else net.initialize()
            if hybridize:
                net.hybridize()
            inputs = [x.copy() for x in data_l]
            if use_autograd:
                for x in inputs:
                    x.attach_grad()
                with autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if init is None:
                init = _Saved({k: v.data().asnumpy() for k, v in net.collect_params().items()})
            if saved_out is None:
                saved_out = out.asnumpy()
            else:
                assert_almost_equal(out.asnumpy(), saved_out, rtol=rtol, atol=atol)
            if use_autograd:
                grads = [x.grad.asnumpy() for x in inputs]
                if saved_grads is None:
                    saved_grads = grads
                else:
                    for got, want in zip(grads, saved_grads):
                        assert_almost_equal(got, want, rtol=rtol, atol=atol)
    if numpy_func is not None:
        expected = numpy_func(*[x.asnumpy() for x in data_l])
        assert_almost_equal(saved_out, np.asarray(expected), rtol=rtol, atol=atol)
