"""The linalg operators of MXNet 1.9.1 (gemm, Cholesky, triangular, factorizations,
determinants, diagonal/triangle copies) and the mx.nd.linalg / mx.sym.linalg /
mx.sym.contrib namespaces: forward against numpy, float64 finite differences,
batching, parameters, errors, and replay of what real MXNet recorded."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'_linalg_gemm', '_linalg_potrf', '_linalg_potri', '_linalg_trmm',
              '_linalg_trsm', '_linalg_sumlogdiag', '_linalg_syrk', '_linalg_gelqf',
              '_linalg_syevd', '_linalg_inverse', '_linalg_det', '_linalg_slogdet',
              '_linalg_extractdiag', '_linalg_makediag', '_linalg_extracttrian',
              '_linalg_maketrian'}
REFERENCE = 'ops_linalg_reference.npz'
rng = np.random.RandomState(7)


def t(x):
    return np.swapaxes(x, -1, -2)


def spd(*shape):
    x = rng.randn(*shape)
    return x @ t(x) + shape[-1] * np.eye(shape[-1])


def tri(*shape):
    """Matrices with a unit-ish diagonal; the unread triangle is noise."""
    x = rng.randn(*shape) * 0.3
    n = shape[-1]
    x[..., np.arange(n), np.arange(n)] = rng.uniform(1.0, 2.0, size=shape[:-1])
    return x


def numeric(sym, location):
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                           dtype=np.float64)


def joined(sym):
    """The outputs of a multi-output symbol flattened side by side (one output)."""
    return mx.sym.Concat(*[mx.sym.Flatten(out) for out in sym], dim=1)


def nd(x, dtype=np.float64):
    return mx.nd.array(x, dtype=dtype)


def symmetrized(var):
    """0.5 (X + X^T) of a 3-d symbol: finite differences of operators that read one
    triangle match MXNet's symmetric gradient only through a symmetric input."""
    return 0.5 * (var + mx.sym.swapaxes(var, dim1=1, dim2=2))


A = mx.sym.Variable('A')
B = mx.sym.Variable('B')


@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, 1e-6, 1e-8)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_gemm(dtype):
    a, b, c = rng.randn(2, 3, 4), rng.randn(2, 5, 4), rng.randn(2, 3, 5)
    got = mx.nd.linalg.gemm(nd(a, dtype), nd(b, dtype), nd(c, dtype), transpose_b=True,
                            alpha=2.0, beta=-0.5)
    assert got.dtype == dtype
    assert_almost_equal(got.asnumpy(), 2 * a @ t(b) - 0.5 * c, rtol=1e-5, atol=1e-5)
    sym = mx.sym.linalg.gemm(A, B, mx.sym.Variable('C'), transpose_a=True, alpha=0.7, beta=3.0,
                             axis=0)
    assert sym.list_arguments() == ['A', 'B', 'C']
    assert sym.infer_shape(A=(4, 2, 3), B=(4, 2, 5))[0][2] == (3, 2, 5)
    numeric(sym, [rng.randn(4, 2, 3), rng.randn(4, 2, 5), rng.randn(3, 2, 5)])
    with pytest.raises(MXNetError, match='incompatible matrix dimensions'):
        mx.nd.linalg.gemm(nd(a), nd(a), nd(c))


@pytest.mark.parametrize('lower', [True, False])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_potrf_and_potri(lower, dtype):
    a = spd(3, 4, 4)
    noisy = a + (np.triu(rng.randn(4, 4), 1) if lower else np.tril(rng.randn(4, 4), -1))
    factor = mx.nd.linalg.potrf(nd(noisy, dtype), lower=lower).asnumpy()
    chol = np.linalg.cholesky(a)
    assert_almost_equal(factor, chol if lower else t(chol), rtol=1e-5, atol=1e-5)
    inv = mx.nd.linalg.potri(nd(factor, dtype), lower=lower).asnumpy()
    assert_almost_equal(inv, np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    numeric(mx.sym.linalg.potrf(symmetrized(A), lower=lower), [a])
    numeric(mx.sym.linalg.potri(A, lower=lower), [tri(2, 3, 3)])


def test_potrf_errors():
    with pytest.raises(MXNetError, match='spotrf failed.*not positive definite'):
        mx.nd.linalg.potrf(mx.nd.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(MXNetError, match='no square matrix'):
        mx.nd.linalg.potrf(mx.nd.ones((3, 2)))
    with pytest.raises(MXNetError, match='32-bit and 64-bit'):
        mx.nd.linalg.potrf(mx.nd.ones((2, 2), dtype=np.float16))


@pytest.mark.parametrize('op', ['trmm', 'trsm'])
@pytest.mark.parametrize('rightside', [False, True])
@pytest.mark.parametrize('transpose', [False, True])
@pytest.mark.parametrize('lower', [False, True])
def test_trmm_trsm(op, rightside, transpose, lower):
    a = tri(2, 3, 3)
    b = rng.randn(2, 4, 3) if rightside else rng.randn(2, 3, 4)
    x = np.tril(a) if lower else np.triu(a)
    x = t(x) if transpose else x
    if op == 'trsm':
        x = np.linalg.inv(x)
    expected = 1.5 * (b @ x if rightside else x @ b)
    params = dict(rightside=rightside, transpose=transpose, lower=lower, alpha=1.5)
    got = getattr(mx.nd.linalg, op)(nd(a), nd(b), **params)
    assert_almost_equal(got.asnumpy(), expected, rtol=1e-10, atol=1e-12)
    numeric(getattr(mx.sym.linalg, op)(A, B, **params), [a, b])


def test_trmm_shapes_and_errors():
    sym = mx.sym.linalg.trmm(A, B, rightside=True)
    assert sym.infer_shape(A=(2, 3, 3), B=(2, 5, 3))[1] == [(2, 5, 3)]
    with pytest.raises(MXNetError, match='square matrices'):
        mx.nd.linalg.trmm(mx.nd.ones((3, 2)), mx.nd.ones((3, 2)))
    with pytest.raises(MXNetError, match='incompatible matrix dimensions'):
        mx.nd.linalg.trsm(mx.nd.ones((3, 3)), mx.nd.ones((2, 2)))


def test_sumlogdiag():
    a = spd(2, 3, 3)
    got = mx.nd.linalg.sumlogdiag(nd(a)).asnumpy()
    assert_almost_equal(got, np.log(np.diagonal(a, axis1=1, axis2=2)).sum(-1))
    assert mx.nd.linalg.sumlogdiag(nd(spd(3, 3))).shape == (1,)
    numeric(mx.sym.linalg.sumlogdiag(A), [a])
    with pytest.raises(MXNetError, match='square matrices'):
        mx.nd.linalg.sumlogdiag(mx.nd.ones((2, 3)))


@pytest.mark.parametrize('transpose', [False, True])
def test_syrk(transpose):
    a = rng.randn(2, 3, 4)
    expected = 0.5 * (t(a) @ a if transpose else a @ t(a))
    got = mx.nd.linalg.syrk(nd(a), transpose=transpose, alpha=0.5)
    assert got.shape == ((2, 4, 4) if transpose else (2, 3, 3))
    assert_almost_equal(got.asnumpy(), expected)
    numeric(mx.sym.linalg.syrk(A, transpose=transpose, alpha=0.5), [a])


@pytest.mark.parametrize('shape', [(3, 5), (2, 3, 3), (2, 2, 4)])
def test_gelqf(shape):
    a = rng.randn(*shape)
    q, l_ = [x.asnumpy() for x in mx.nd.linalg.gelqf(nd(a))]
    assert q.shape == a.shape and l_.shape == shape[:-1] + (shape[-2],)
    assert_almost_equal(l_ @ q, a, rtol=1e-10, atol=1e-12)
    assert_almost_equal(q @ t(q), np.broadcast_to(np.eye(shape[-2]), l_.shape), atol=1e-12)
    assert np.all(np.triu(l_, 1) == 0)
    numeric(joined(mx.sym.linalg.gelqf(A)), [a])
    with pytest.raises(MXNetError, match='last dimension must be >='):
        mx.nd.linalg.gelqf(mx.nd.ones((3, 2)))


def test_syevd():
    a = spd(2, 4, 4)
    u, w = [x.asnumpy() for x in mx.nd.linalg.syevd(nd(a))]
    assert_almost_equal(w, np.linalg.eigvalsh(a), rtol=1e-10, atol=1e-12)
    assert_almost_equal(t(u) @ (w[..., None] * u), a, rtol=1e-10, atol=1e-12)
    biggest = np.take_along_axis(u, np.argmax(np.abs(u), -1)[..., None], -1)
    assert np.all(biggest > 0)
    numeric(joined(mx.sym.linalg.syevd(symmetrized(A))), [a])
    assert not hasattr(mx.nd, 'linalg_syevd')       # MXNet gives syevd no alias
    with pytest.raises(MXNetError, match='last two dimensions must be equal'):
        mx.nd.linalg.syevd(mx.nd.ones((3, 2)))


def test_inverse():
    a = spd(2, 3, 3)
    assert_almost_equal(mx.nd.linalg.inverse(nd(a)).asnumpy(), np.linalg.inv(a))
    numeric(mx.sym.linalg.inverse(A), [rng.randn(2, 3, 3) + 3 * np.eye(3)])
    with pytest.raises(MXNetError, match='non-convertible'):
        mx.nd.linalg.inverse(mx.nd.array([[1.0, 2.0], [2.0, 4.0]]))
    assert mx.nd._npi_inv is not None


@pytest.mark.parametrize('shape', [(3, 3), (2, 4, 4)])
def test_det_and_slogdet(shape):
    a = rng.randn(*shape)
    det = mx.nd.linalg.det(nd(a)).asnumpy()
    sign, logdet = [x.asnumpy() for x in mx.nd.linalg.slogdet(nd(a))]
    expected_shape = shape[:-2] or (1,)
    assert det.shape == sign.shape == logdet.shape == expected_shape
    assert_almost_equal(det, np.linalg.det(a).reshape(expected_shape))
    ref_sign, ref_log = np.linalg.slogdet(a)
    assert_almost_equal(sign, ref_sign.reshape(expected_shape))
    assert_almost_equal(logdet, ref_log.reshape(expected_shape))
    numeric(mx.sym.linalg.det(A), [a])
    numeric(joined(mx.sym.linalg.slogdet(A)), [a])


def test_det_singular_has_zero_gradient_and_hidden_outputs():
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]])
    sym = mx.sym.linalg.det(A, name='det')
    assert sym.list_outputs() == ['det_output0']        # LU and pivots stay hidden
    ex = sym.bind(mx.cpu(), args={'A': nd(a)}, args_grad={'A': nd(np.zeros_like(a))})
    assert_almost_equal(ex.forward(is_train=True)[0].asnumpy(), np.array([0.0, 5.0]))
    ex.backward([nd(np.ones(2))])
    grad = ex.grad_dict['A'].asnumpy()
    assert np.all(grad[0] == 0)
    assert_almost_equal(grad[1], 5.0 * t(np.linalg.inv(a[1])))
    sign, logdet = mx.nd.linalg.slogdet(nd(a))
    assert sign.asnumpy()[0] == 0 and logdet.asnumpy()[0] == -np.inf
    with pytest.raises(MXNetError, match='32-bit and 64-bit'):
        mx.nd.linalg.det(mx.nd.ones((2, 2), dtype=np.int32))


@pytest.mark.parametrize('offset', [-2, 0, 1])
def test_extractdiag_makediag(offset):
    a = rng.randn(2, 4, 4)
    diag = mx.nd.linalg.extractdiag(nd(a), offset=offset).asnumpy()
    assert_almost_equal(diag, np.diagonal(a, offset, axis1=1, axis2=2))
    made = mx.nd.linalg.makediag(nd(diag), offset=offset).asnumpy()
    assert_almost_equal(made, np.stack([np.diag(d, offset) for d in diag]))
    numeric(mx.sym.linalg.extractdiag(A, offset=offset), [a])
    numeric(mx.sym.linalg.makediag(A, offset=offset), [diag])


def test_extractdiag_errors():
    with pytest.raises(MXNetError, match='illegal offset 3'):
        mx.nd.linalg.extractdiag(mx.nd.ones((3, 3)), offset=3)
    with pytest.raises(MXNetError, match='square matrices'):
        mx.nd.linalg.extractdiag(mx.nd.ones((3, 2)))


@pytest.mark.parametrize('offset,lower', [(0, True), (0, False), (1, True), (-1, False)])
def test_extracttrian_maketrian(offset, lower):
    x = np.arange(16.0).reshape(4, 4)
    got = mx.nd.linalg.extracttrian(nd(x), offset=offset, lower=lower).asnumpy()
    # lower triangles are packed row by row, upper ones column by column
    if offset < 0 or (offset == 0 and lower):
        expected = [x[i, j] for i in range(4) for j in range(4) if i - j >= -offset]
    else:
        expected = [x[i, j] for j in range(4) for i in range(4) if j - i >= offset]
    assert got.tolist() == expected
    made = mx.nd.linalg.maketrian(nd(got), offset=offset, lower=lower).asnumpy()
    keep = np.tril(np.ones((4, 4)), offset) if (offset < 0 or (offset == 0 and lower)) \
        else np.triu(np.ones((4, 4)), offset)
    assert_almost_equal(made, x * keep)
    numeric(mx.sym.linalg.extracttrian(A, offset=offset, lower=lower), [rng.randn(2, 4, 4)])
    numeric(mx.sym.linalg.maketrian(A, offset=offset, lower=lower),
            [rng.randn(2, len(expected))])
    with pytest.raises(MXNetError, match='invalid dimension for the last axis'):
        mx.nd.linalg.maketrian(mx.nd.ones((4,)))


def test_grad_req_add():
    a = spd(2, 3, 3)
    sym = mx.sym.linalg.inverse(A)
    head = rng.randn(2, 3, 3)
    grads = []
    for req in ('write', 'add'):
        g = nd(np.ones_like(a))
        ex = sym.bind(mx.cpu(), args={'A': nd(a)}, args_grad={'A': g}, grad_req=req)
        ex.forward(is_train=True)
        ex.backward([nd(head)])
        grads.append(g.asnumpy())
    assert_almost_equal(grads[1], grads[0] + 1)


def test_namespaces():
    names = {'gemm', 'gemm2', 'potrf', 'potri', 'trmm', 'trsm', 'sumlogdiag', 'syrk', 'gelqf',
             'syevd', 'inverse', 'det', 'slogdet', 'extractdiag', 'makediag', 'extracttrian',
             'maketrian'}
    assert set(mx.nd.linalg.__all__) == names == set(mx.sym.linalg.__all__)
    for name in names:
        assert getattr(mx.nd.linalg, name) is getattr(mx.nd, '_linalg_' + name)
        assert getattr(mx.sym.linalg, name) is getattr(mx.sym, '_linalg_' + name)
    a = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    assert_almost_equal(mx.nd.linalg.gemm2(a, a).asnumpy(), mx.nd.linalg_gemm2(a, a).asnumpy())
    sym = mx.sym.linalg.potrf(A, name='chol')
    assert sym.list_outputs() == ['chol_output']
    assert sym.tojson() == mx.sym.linalg_potrf(A, name='chol').tojson()
    # symmod's contrib updates are NDArray functions, not operators: no symbol form
    assert mx.sym.contrib.__all__ == sorted(
        n[len('_contrib_'):] for n in mx.ops.registry.list_operators()
        if n.startswith('_contrib_')) + ['rand_zipfian', 'foreach', 'while_loop', 'cond']
