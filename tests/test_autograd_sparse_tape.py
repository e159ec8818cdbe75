"""The autograd tape keeps a recorded csr argument as csr: no dense copy of a large sparse
input is held between forward and backward, and the gradients are unchanged."""
import tracemalloc

import numpy as np
import scipy.sparse

import symmod as mx


def test_recorded_csr_argument_is_not_held_dense():
    rows, cols = 3000, 2000                     # dense float32: 24 MB
    matrix = scipy.sparse.random(rows, cols, density=0.0005, format='csr',
                                 dtype=np.float32, random_state=0)
    x = mx.nd.sparse.csr_matrix(matrix)
    w = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (cols, 4)).astype(np.float32))
    w.attach_grad()
    with mx.autograd.record():                  # compile and cache what the calls use
        mx.nd.sparse.dot(x, w).backward()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        with mx.autograd.record():
            y = mx.nd.sparse.dot(x, w)
        held = tracemalloc.get_traced_memory()[0] - before
        y.backward(mx.nd.ones(y.shape))
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert held < 2 << 20, held                 # the output and the tape entry only
    assert peak < 8 << 20, peak                 # the backward's csr^T products neither
    np.testing.assert_allclose(w.grad.asnumpy(),
                               matrix.T @ np.ones((rows, 4), np.float32), rtol=1e-5)
