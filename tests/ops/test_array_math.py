"""diag, moments, cumsum, histogram, ravel_multi_index, unravel_index, fill_element_0index,
softmin, _slice_assign(_scalar), _split_v2, _linspace, im2col/col2im, the AMP casts and
finiteness checks, cast_storage: against MXNet 1.9.1's numbers
(tests/data/gen/gen_ops_array_math_reference.py), numpy and float64 finite differences."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

from recorded_cases import case_meta, case_names, replay

TESTED_OPS = {'diag', 'moments', '_np_cumsum', '_histogram', '_ravel_multi_index',
              '_unravel_index', 'fill_element_0index', 'softmin', '_slice_assign',
              '_slice_assign_scalar', '_split_v2', '_linspace', 'im2col', 'col2im',
              'cast_storage'}
REFERENCE = 'ops_array_math_reference.npz'
RECORDED = {'diag', 'moments', 'cumsum', 'softmin', '_internal._histogram',
            'ravel_multi_index', 'unravel_index', '_internal._slice_assign',
            '_internal._slice_assign_scalar', '_internal._split_v2', '_internal._linspace',
            'im2col', 'col2im', 'amp_cast', 'amp_multicast', 'all_finite', 'multi_all_finite',
            'cast_storage'}
RNG = np.random.RandomState(11)


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-6)


def test_reference_covers_every_recorded_operator():
    ops = {case_meta(REFERENCE, n)['op'] for n in case_names(REFERENCE, RECORDED)}
    assert ops == RECORDED


def _gradient(sym, location):
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-8,
                           dtype=np.float64)


@pytest.mark.parametrize('shape, params', [((4,), {'k': 1}), ((3, 4), {'k': -1}),
                                           ((2, 3, 4), {'axis1': 0, 'axis2': 2})])
def test_diag_numpy_and_gradient(shape, params):
    x = RNG.randn(*shape)
    got = mx.nd.diag(mx.nd.array(x, dtype='float64'), **params).asnumpy()
    if x.ndim == 1:
        want = np.diag(x, params.get('k', 0))
    else:
        want = np.diagonal(x, params.get('k', 0), params.get('axis1', 0),
                           params.get('axis2', 1))
    np.testing.assert_array_equal(got, want)
    _gradient(mx.sym.diag(mx.sym.var('data'), **params), [x])


# MXNet 1.9.1 on a 3 x 5 matrix: k in [-3, 5] gives (possibly empty) diagonals, beyond
# that "Diagonal does not exist."
@pytest.mark.parametrize('k, length', [(3, 2), (5, 0), (-3, 0), (6, None), (-4, None)])
def test_diag_offsets_beyond_the_matrix_are_errors(k, length):
    x = mx.nd.ones((3, 5))
    if length is None:
        with pytest.raises(mx.MXNetError, match='does not exist'):
            mx.nd.diag(x, k=k)
    else:
        assert mx.nd.diag(x, k=k).shape == (length,)


def test_moments_and_cumsum_gradients():
    x = RNG.randn(3, 4, 2)
    mean, var = mx.nd.moments(mx.nd.array(x, dtype='float64'), axes=(0, 2))
    np.testing.assert_allclose(mean.asnumpy(), x.mean(axis=(0, 2)))
    np.testing.assert_allclose(var.asnumpy(), x.var(axis=(0, 2)))
    moments = mx.sym.moments(mx.sym.var('data'), axes=(1,))
    _gradient(moments[0] + 2 * moments[1], [x])
    _gradient(mx.sym.cumsum(mx.sym.var('a'), axis=1), [x])
    _gradient(mx.sym.cumsum(mx.sym.var('a')), [x])
    with pytest.raises(mx.MXNetError, match='empty axes'):
        mx.nd.moments(mx.nd.ones((2, 2)))


def test_softmin_is_softmax_of_negative_input():
    x = RNG.randn(3, 5)
    got = mx.nd.softmin(mx.nd.array(x, dtype='float64'), axis=1, temperature=0.7).asnumpy()
    want = mx.nd.softmax(mx.nd.array(-x, dtype='float64'), axis=1, temperature=0.7).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-12)
    _gradient(mx.sym.softmin(mx.sym.var('data'), axis=0, temperature=1.5), [x])


def test_histogram_matches_numpy_and_checks_arguments():
    data = RNG.uniform(-1, 4, 50)
    counts, edges = mx.nd.histogram(mx.nd.array(data), bins=5, range=(0, 3))
    want, want_edges = np.histogram(data.astype(np.float32), bins=5, range=(0, 3))
    np.testing.assert_array_equal(counts.asnumpy(), want)
    np.testing.assert_allclose(edges.asnumpy(), want_edges, rtol=1e-6)
    assert counts.dtype == np.int64
    with pytest.raises(mx.MXNetError, match='both or neither'):
        mx.nd._internal._histogram(mx.nd.array(data), bin_cnt=3)
    with pytest.raises(ValueError, match='null range'):
        mx.sym.histogram(mx.sym.var('a'), bins=3)


def test_ravel_unravel_round_trip():
    shape = (4, 5, 6)
    flat = RNG.randint(0, 120, 9)
    multi = mx.nd.unravel_index(mx.nd.array(flat), shape=shape)
    np.testing.assert_array_equal(multi.asnumpy(), np.stack(np.unravel_index(flat, shape)))
    back = mx.nd.ravel_multi_index(multi, shape=shape)
    np.testing.assert_array_equal(back.asnumpy(), flat)
    with pytest.raises(mx.MXNetError, match='rows'):
        mx.nd.ravel_multi_index(mx.nd.ones((2, 3)), shape=shape)


def test_unravel_index_with_unknown_leading_dim():
    # MXNet: a leading -1 takes the rest of the index (no wrap-around)
    flat = np.array([5, 6, 13, 29])
    for shape in [(-1, 5), (-1, 2, 5)]:
        got = mx.nd.unravel_index(mx.nd.array(flat), shape=shape).asnumpy()
        want = np.stack(np.unravel_index(flat, (100,) + shape[1:]))
        np.testing.assert_array_equal(got, want)
    back = mx.nd.ravel_multi_index(mx.nd.array(want), shape=(-1, 2, 5)).asnumpy()
    np.testing.assert_array_equal(back, flat)


def test_fill_element_0index_and_its_gradient():
    lhs = RNG.randn(4, 3)
    mhs = RNG.randn(4)
    rhs = np.array([2, 0, 1, 2], dtype=np.float64)
    want = lhs.copy()
    want[np.arange(4), rhs.astype(int)] = mhs
    got = mx.nd.fill_element_0index(mx.nd.array(lhs), mx.nd.array(mhs), mx.nd.array(rhs))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    sym = mx.sym.fill_element_0index(mx.sym.var('lhs'), mx.sym.var('mhs'), mx.sym.var('rhs'))
    check_numeric_gradient(sym, {'lhs': lhs, 'mhs': mhs, 'rhs': rhs},
                           grad_nodes=['lhs', 'mhs'], numeric_eps=1e-6, rtol=1e-5,
                           atol=1e-8, dtype=np.float64)


def test_slice_assign_in_place_and_gradient():
    x = mx.nd.zeros((3, 4))
    same = x.slice_assign(mx.nd.ones((2, 2)), (1, 1), (3, 3), (None, None))
    assert same is x
    np.testing.assert_array_equal(x.asnumpy()[1:3, 1:3], 1)
    x.slice_assign_scalar(7, (0,), (1,), (None,))
    np.testing.assert_array_equal(x.asnumpy()[0], 7)
    np.testing.assert_array_equal(x.asnumpy()[1:3, 1:3], 1)
    sym = mx.sym._internal._slice_assign(mx.sym.var('lhs'), mx.sym.var('rhs'),
                                         begin=(0, 1), end=(2, 4), step=(1, 2))
    _gradient(sym, [RNG.randn(3, 4), RNG.randn(2, 2)])
    with pytest.raises(mx.MXNetError, match='region'):
        mx.nd._internal._slice_assign(mx.nd.zeros((3, 4)), mx.nd.ones((3, 3)), begin=(0,),
                                      end=(2,))


def test_split_v2_functions_and_gradient():
    x = mx.nd.array(np.arange(14).reshape(7, 2))
    parts = mx.nd.split_v2(x, (2, 5))
    assert [p.shape for p in parts] == [(2, 2), (3, 2), (2, 2)]
    assert [p.shape for p in x.split_v2(7, squeeze_axis=True)][:2] == [(2,), (2,)]
    with pytest.raises(ValueError, match='equal division'):
        mx.nd.split_v2(x, 3)
    sym = mx.sym.split_v2(mx.sym.var('data'), 3, axis=0)       # symbolic: uneven allowed
    assert [s for s in sym.infer_shape(data=(7, 2))[1]] == [(3, 2), (2, 2), (2, 2)]
    _gradient(mx.sym.split_v2(mx.sym.var('data'), (1,), axis=1)[1], [RNG.randn(2, 3)])


def test_linspace_and_eye_functions():
    np.testing.assert_allclose(mx.nd.linspace(0, 1, 5, endpoint=False).asnumpy(),
                               np.linspace(0, 1, 5, endpoint=False), rtol=1e-6)
    assert mx.nd.linspace(0, 1, 3, dtype='float64').dtype == np.float64
    np.testing.assert_array_equal(mx.nd.eye(3, 4, k=-1).asnumpy(), np.eye(3, 4, k=-1))
    np.testing.assert_array_equal(mx.sym.linspace(1, 2, 3).eval()[0].asnumpy(), [1, 1.5, 2])
    with pytest.raises(mx.MXNetError, match='non-negative'):
        mx.nd.linspace(0, 1, -1)


def test_im2col_col2im_are_adjoint_and_differentiable():
    params = {'kernel': (2, 3), 'stride': (2, 1), 'dilate': (1, 2), 'pad': (1, 0)}
    image = RNG.randn(2, 3, 5, 7)
    cols = mx.nd.im2col(mx.nd.array(image, dtype='float64'), **params).asnumpy()
    other = RNG.randn(*cols.shape)
    back = mx.nd.col2im(mx.nd.array(other, dtype='float64'), output_size=(5, 7),
                        **params).asnumpy()
    # <im2col(x), y> == <x, col2im(y)>: each is the other's transpose
    np.testing.assert_allclose((cols * other).sum(), (image * back).sum(), rtol=1e-10)
    _gradient(mx.sym.im2col(mx.sym.var('data'), **params), [image])
    _gradient(mx.sym.col2im(mx.sym.var('data'), output_size=(5, 7), **params), [other])
    with pytest.raises(mx.MXNetError, match='does not fit'):
        mx.nd.im2col(mx.nd.ones((1, 1, 2, 2)), kernel=(3, 3))


def test_cast_storage_copies_dense_and_csr_needs_two_dimensions():
    x = mx.nd.array([1.0, 2.0])
    y = mx.nd.cast_storage(x, stype='default')
    assert y is not x and y.asnumpy().tolist() == [1, 2]
    assert mx.nd.cast_storage(mx.nd.ones((2, 2)), stype='csr').stype == 'csr'
    with pytest.raises(ValueError, match='2-D'):
        mx.nd.cast_storage(mx.nd.ones((2,)), stype='csr')
